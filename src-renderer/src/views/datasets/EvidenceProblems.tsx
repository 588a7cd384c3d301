import type { DatasetStats } from '@shared/dataset/stats';
import type { EvidenceProblemKind } from '@shared/dataset/types';
import { formatCount, plural } from './shape';

/** Problems that lost the evidence entry, as opposed to ones the loader repaired. */
export const LOST_EVIDENCE: ReadonlySet<EvidenceProblemKind> = new Set(['unresolved', 'malformed']);

export function EvidenceProblems({
  evidence,
  onOpenQuestion,
}: {
  evidence: DatasetStats['evidence'];
  onOpenQuestion: (sampleId: string, qaIndex: number) => void;
}) {
  const { details } = evidence;
  return (
    <section className="panel" aria-labelledby="evidence-problems-title">
      <h2 id="evidence-problems-title">Evidence problems</h2>
      <p className="evidence-summary">
        <span className="badge badge-warn">{formatCount(evidence.repaired)} repaired</span>
        <span className="badge badge-danger">{formatCount(evidence.unresolved)} unresolved</span>
        <span className="badge">{plural(evidence.duplicates, 'duplicate')}</span>
        <span className="badge">
          {plural(evidence.questionsWithoutEvidence, 'question')} without usable evidence
        </span>
      </p>
      {details.length > 0 ? (
        <details>
          <summary>Show all {plural(details.length, 'evidence problem')}</summary>
          <div className="table-scroll problems-scroll">
            <table aria-label="Evidence problem list">
              <thead>
                <tr>
                  <th scope="col">Sample</th>
                  <th scope="col" className="num">
                    Question
                  </th>
                  <th scope="col">Raw id</th>
                  <th scope="col">Problem</th>
                  <th scope="col">Repaired to</th>
                </tr>
              </thead>
              <tbody>
                {details.map((d, i) => (
                  <tr key={`${d.sampleId}:${d.qaIndex}:${i}`}>
                    <td>{d.sampleId}</td>
                    <td className="num">
                      <button
                        type="button"
                        className="link-button"
                        onClick={() => onOpenQuestion(d.sampleId, d.qaIndex)}
                      >
                        qa[{d.qaIndex}]
                      </button>
                    </td>
                    <td>
                      <code>{d.raw}</code>
                      {d.part !== undefined && d.part !== d.raw ? (
                        <span className="muted"> (part {d.part})</span>
                      ) : null}
                    </td>
                    <td>
                      <span
                        className={`badge ${LOST_EVIDENCE.has(d.problem) ? 'badge-danger' : 'badge-warn'}`}
                      >
                        {d.problem}
                      </span>
                    </td>
                    <td>
                      {d.repairedTo ? (
                        <code>{d.repairedTo}</code>
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      ) : null}
    </section>
  );
}
