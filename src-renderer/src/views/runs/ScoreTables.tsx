import type { RunErrata } from '@shared/errata';
import { categoryLabel, type BenchmarkProfile, type SchemeId } from '@shared/benchmarks';
import type { MeanN } from '@shared/experiment';
import { metricList, type MetricId } from '@shared/metrics';
import type { ProtocolJudgeSummary } from '@shared/rescore';
import { formatScore, METRIC_LABELS } from '../../components/charts/categoryRows';
import { JudgeRescoreForm } from './JudgeRescoreForm';
import styles from './ScoreTables.module.css';

/**
 * J of the final answers under each judge protocol a rescore stored (issue 11 item 8): one row
 * per protocol, a column per category any protocol scored, and the form that adds a protocol.
 */
export function JudgeProtocolsPanel({
  runId,
  running,
  protocols,
  profile,
  scheme,
  onRescored,
}: {
  runId: string;
  running: boolean;
  protocols: readonly ProtocolJudgeSummary[];
  profile: BenchmarkProfile;
  scheme: SchemeId;
  onRescored: () => void;
}) {
  const how = (
    <>
      Add one below or from the command line:{' '}
      <code>npm run -s cli -- rescore {runId} --judge mem0</code> (any judge protocol; the answers
      are not asked again).
    </>
  );
  const categories = profile.categories.filter((c) =>
    protocols.some((p) => p.byCategory[String(c.id)] !== undefined),
  );
  return (
    <section className="panel" aria-labelledby="judge-protocols-title">
      <h2 id="judge-protocols-title">J per judge protocol</h2>
      {protocols.length === 0 ? (
        <p className="muted">No judge protocol has rescored this run. {how}</p>
      ) : (
        <table aria-labelledby="judge-protocols-title">
          <caption className={styles.caption}>
            Mean verdict over the final answers (n in brackets); unreadable replies count as wrong.{' '}
            {how}
          </caption>
          <thead>
            <tr>
              <th scope="col">Protocol</th>
              <th scope="col">Model</th>
              {categories.map((c) => (
                <th key={c.id} scope="col" className={styles.num}>
                  {c.id} {categoryLabel(profile, c.id, scheme)}
                </th>
              ))}
              <th scope="col" className={styles.num}>
                Overall
              </th>
              <th scope="col" className={styles.num}>
                Unparseable
              </th>
            </tr>
          </thead>
          <tbody>
            {protocols.map((p) => (
              <tr key={p.protocol}>
                <th scope="row">{p.protocol}</th>
                <td>
                  <code>{p.model}</code>
                </td>
                {categories.map((c) => (
                  <td key={c.id} className={styles.num}>
                    {judgeCell(p.byCategory[String(c.id)])}
                  </td>
                ))}
                <td className={styles.num}>
                  <strong>{judgeCell(p.overall)}</strong>
                </td>
                <td className={styles.num}>{p.unparseable}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <JudgeRescoreForm runId={runId} running={running} profile={profile} onRescored={onRescored} />
    </section>
  );
}

function judgeCell(s: { mean: number; n: number } | undefined): string {
  return s === undefined ? '–' : `${formatScore(s.mean)} (${s.n})`;
}

const ANSWER_METRICS = new Set<MetricId>(
  metricList()
    .filter((m) => m.source === 'answer')
    .map((m) => m.id),
);

/**
 * A run that applied errata (`experiment --errata`): the chosen answer metric per category against
 * the original gold, the corrected gold, and the ceiling — what the cli report prints.
 */
export function ErrataPanel({
  errata,
  metric: chosen,
  profile,
  scheme,
}: {
  errata: RunErrata;
  /** The view's metric; a metric the errata do not rescore (recall, J) shows official F1. */
  metric: MetricId;
  profile: BenchmarkProfile;
  scheme: SchemeId;
}) {
  const metric: MetricId = ANSWER_METRICS.has(chosen) ? chosen : 'officialF1';
  const row = (
    key: string,
    label: string,
    original: MeanN | undefined,
    corrected: MeanN | undefined,
    ceiling: MeanN | undefined,
    total = false,
  ) => (
    <tr key={key} className={total ? styles.total : undefined}>
      <th scope="row">{label}</th>
      <td className={styles.num}>{formatScore(original?.mean)}</td>
      <td className={styles.num}>{formatScore(corrected?.mean)}</td>
      <td className={styles.num}>{formatScore(ceiling?.mean)}</td>
      <td className={styles.num}>{original?.n ?? 0}</td>
    </tr>
  );
  return (
    <section className="panel" aria-labelledby="errata-title">
      <h2 id="errata-title">Errata</h2>
      <p className="muted">
        {errata.name ?? errata.file.split(/[\\/]/).pop()} · sha256{' '}
        <code title={errata.sha256}>{errata.sha256.slice(0, 12)}</code> · {errata.entries.length}{' '}
        {errata.entries.length === 1 ? 'entry' : 'entries'}, {errata.applied} final{' '}
        {errata.applied === 1 ? 'answer' : 'answers'} rescored against the corrected gold
      </p>
      <table
        aria-label={`Errata: ${METRIC_LABELS[metric]} against the original and corrected gold`}
      >
        <caption className={styles.caption}>
          <strong>{METRIC_LABELS[metric]}</strong> per category (the metric chosen above; recall and
          J show official F1). Ceiling: the most any system scores against the original gold (the
          corrected answer where the gold is wrong). J is not asked again against the corrected
          gold.
        </caption>
        <thead>
          <tr>
            <th scope="col">Category</th>
            <th scope="col" className={styles.num}>
              Original gold
            </th>
            <th scope="col" className={styles.num}>
              Corrected gold
            </th>
            <th scope="col" className={styles.num}>
              Ceiling
            </th>
            <th scope="col" className={styles.num}>
              n
            </th>
          </tr>
        </thead>
        <tbody>
          {profile.categories.map((c) =>
            row(
              String(c.id),
              `${c.id} ${categoryLabel(profile, c.id, scheme)}`,
              errata.original.byCategory[c.id]?.[metric],
              errata.corrected.byCategory[c.id]?.[metric],
              errata.ceiling[String(c.id)]?.[metric],
            ),
          )}
          {row(
            'all',
            'Overall (all)',
            errata.original.overall.all[metric],
            errata.corrected.overall.all[metric],
            errata.ceiling['all']?.[metric],
            true,
          )}
        </tbody>
      </table>
    </section>
  );
}
