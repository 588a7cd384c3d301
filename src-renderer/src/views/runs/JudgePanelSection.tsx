import type { JudgePanel } from '@shared/judgePanel';
import { judgePanelView } from './judgePanelShape';
import styles from './ScoreTables.module.css';

/**
 * Every judge of the run with its J and 95% interval, and how far the judges agree (issue 37):
 * shown once a judge beside the run's own has scored it.
 */
export function JudgePanelSection({ panel }: { panel: JudgePanel | null | undefined }) {
  if (!panel || panel.judges.length < 2) return null;
  const view = judgePanelView(panel);
  return (
    <section className="panel" aria-labelledby="judge-panel-title">
      <h2 id="judge-panel-title">Judges and their agreement</h2>
      <table aria-labelledby="judge-panel-title">
        <caption className={styles.caption}>
          J over {view.questions} judged final answers, with 95% bootstrap intervals over
          conversations; Δ is paired by question against the first judge.
        </caption>
        <thead>
          <tr>
            <th scope="col">Judge</th>
            <th scope="col" className={styles.num}>
              J [95%]
            </th>
            <th scope="col" className={styles.num}>
              Δ vs first [95%]
            </th>
            <th scope="col" className={styles.num}>
              n
            </th>
            <th scope="col" className={styles.num}>
              No verdict
            </th>
            <th scope="col">Self-consistency and measured error</th>
          </tr>
        </thead>
        <tbody>
          {view.judges.map((j) => (
            <tr key={j.key}>
              <th scope="row" title={j.title}>
                {j.name}
                {j.own ? ' (run)' : ''}
              </th>
              <td className={styles.num}>{j.j}</td>
              <td className={styles.num}>{j.vsFirst}</td>
              <td className={styles.num}>{j.n}</td>
              <td className={styles.num}>{j.missing}</td>
              <td>{[j.consistency, j.measuredError].filter(Boolean).join('; ') || '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {view.agreement.length > 0 ? (
        <table aria-label="Agreement between judges">
          <caption className={styles.caption}>
            Agreement between judges (one verdict each: the label, or the repeats&apos; majority),
            95% intervals over conversations.
          </caption>
          <thead>
            <tr>
              <th scope="col">Statistic</th>
              <th scope="col" className={styles.num}>
                Value [95%]
              </th>
              <th scope="col" className={styles.num}>
                n
              </th>
            </tr>
          </thead>
          <tbody>
            {view.agreement.map((row) => (
              <tr key={row.label}>
                <th scope="row">{row.label}</th>
                <td className={styles.num}>{row.value}</td>
                <td className={styles.num}>{row.n}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
