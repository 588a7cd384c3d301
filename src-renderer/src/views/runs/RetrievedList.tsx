import type { RetrievedRow } from './shape';

/** Retrieved memories in rank order, evidence turns marked (the Runs panel and Compare's flip). */
export function RetrievedList({ rows, label }: { rows: readonly RetrievedRow[]; label: string }) {
  return (
    <ol className="retrieved-list" aria-label={label}>
      {rows.map((r) => (
        <li
          key={`${r.rank}-${r.id}`}
          className={r.isEvidence ? 'retrieved-item is-evidence' : 'retrieved-item'}
          data-dia-id={r.diaId ?? undefined}
          data-evidence={r.isEvidence ? 'true' : undefined}
        >
          <div className="retrieved-meta">
            <span className="rank">#{r.rank}</span>
            <code className="dia-id">{r.diaId ?? r.id}</code>
            <span className="muted">score {r.score.toFixed(3)}</span>
            {r.turn ? <span className="speaker">{r.turn.speaker}</span> : null}
            {r.isEvidence ? <span className="badge badge-evidence">EVIDENCE</span> : null}
          </div>
          {r.turn ? <p className="retrieved-text">{r.turn.text}</p> : null}
        </li>
      ))}
      {rows.length === 0 ? <li className="muted">Nothing was retrieved.</li> : null}
    </ol>
  );
}
