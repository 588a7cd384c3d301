import type { CSSProperties } from 'react';
import type { RetrievedRow } from './shape';

/**
 * Retrieved memories in rank order, evidence turns marked (the Runs panel and Compare's flip).
 * `mark` adds a note beside a memory's rank (Compare: where the other run ranked it).
 */
export function RetrievedList<R extends RetrievedRow>({
  rows,
  label,
  mark,
  style,
}: {
  rows: readonly R[];
  label: string;
  mark?: (row: R) => { text: string; title: string; tone: string } | null;
  style?: CSSProperties;
}) {
  return (
    <ol className="retrieved-list" aria-label={label} style={style}>
      {rows.map((r) => {
        const note = mark ? mark(r) : null;
        return (
          <li
            key={`${r.rank}-${r.id}`}
            className={r.isEvidence ? 'retrieved-item is-evidence' : 'retrieved-item'}
            data-dia-id={r.diaId ?? undefined}
            data-evidence={r.isEvidence ? 'true' : undefined}
          >
            <div className="retrieved-meta">
              <span className="rank">#{r.rank}</span>
              {note ? (
                <span className={`rank-move rank-move-${note.tone}`} title={note.title}>
                  {note.text}
                </span>
              ) : null}
              <code className="dia-id">{r.diaId ?? r.id}</code>
              <span className="muted">score {r.score.toFixed(3)}</span>
              {r.turn ? <span className="speaker">{r.turn.speaker}</span> : null}
              {r.isEvidence ? <span className="badge badge-evidence">EVIDENCE</span> : null}
            </div>
            {r.text !== null ? <p className="retrieved-text">{r.text}</p> : null}
          </li>
        );
      })}
      {rows.length === 0 ? <li className="muted">Nothing was retrieved.</li> : null}
    </ol>
  );
}
