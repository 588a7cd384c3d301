import type { PlaygroundFusedHit, PlaygroundHit, PlaygroundResult } from '@shared/designs';
import type { PlaygroundRecall } from '@shared/designs';
import { contributionText, formatRecall, formatScore, hitBody } from './shape';

/**
 * The fused list first (what an experiment would get), then one column per index, each with the
 * engine's recall against the scored question's evidence (marked in every column).
 */
export function ResultColumns({
  result,
  evidence,
}: {
  result: PlaygroundResult;
  evidence: ReadonlySet<string>;
}) {
  return (
    <>
      <p className="muted result-facts">
        {result.fused.length} fused hits in {result.ms.toFixed(1)} ms
        {result.namedSpeakers.length > 0
          ? ` · speaker boost for ${result.namedSpeakers.join(', ')}`
          : ''}
      </p>
      <div className="result-columns">
        <Column
          title="Fused"
          subtitle="after fusion, neighbour context and speaker boost"
          hits={result.fused}
          recall={result.fusedRecall}
          k={result.topK}
          evidence={evidence}
          fused
        />
        {result.perIndex.map((column) => (
          <Column
            key={column.index}
            title={column.index}
            subtitle={`${column.type} index`}
            hits={column.hits}
            recall={column.recall}
            k={result.topK}
            evidence={evidence}
          />
        ))}
      </div>
    </>
  );
}

function Column({
  title,
  subtitle,
  hits,
  recall,
  k,
  evidence,
  fused = false,
}: {
  title: string;
  subtitle: string;
  hits: ReadonlyArray<PlaygroundHit | PlaygroundFusedHit>;
  recall: PlaygroundRecall | null;
  k: number;
  evidence: ReadonlySet<string>;
  fused?: boolean;
}) {
  return (
    <section
      className={`result-column${fused ? ' result-fused' : ''}`}
      aria-label={`${title} results`}
    >
      <header>
        <h3>{title}</h3>
        <span className="muted">{subtitle}</span>
        {recall ? (
          <span
            className={`badge ${recall.found === recall.total ? 'badge-ok' : recall.found > 0 ? 'badge-warn' : 'badge-danger'}`}
          >
            {formatRecall(recall, k)}
          </span>
        ) : null}
      </header>
      {hits.length === 0 ? <p className="muted">No hits.</p> : null}
      <ol>
        {hits.map((hit) => {
          const isEvidence = hit.diaId !== null && evidence.has(hit.diaId);
          return (
            <li
              key={hit.id}
              className={`hit${isEvidence ? ' hit-evidence' : ''}`}
              data-dia-id={hit.diaId ?? undefined}
              data-evidence={isEvidence ? 'true' : undefined}
            >
              <div className="hit-meta">
                <span className="hit-rank">#{hit.rank}</span>
                <code className="dia-id">{hit.diaId ?? hit.id}</code>
                {hit.speaker ? <span className="speaker">{hit.speaker}</span> : null}
                {isEvidence ? <span className="badge badge-evidence">evidence</span> : null}
                <span className="hit-score" title="score">
                  {formatScore(hit.score)}
                </span>
              </div>
              <p className="hit-text">{hitBody(hit)}</p>
              {'contributions' in hit ? (
                <p className="hit-from muted">
                  {hit.contributions.length > 0
                    ? `from ${contributionText(hit.contributions)}`
                    : 'neighbour of a hit'}
                  {hit.speakerBoosted ? ' · speaker boost' : ''}
                </p>
              ) : null}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
