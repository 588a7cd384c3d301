import { memo } from 'react';
import type { RunComparison, RunCost } from '@shared/compare';
import type { TokenTotals } from '@shared/runs';
import { formatCost, formatTokens } from '../runs/shape';
import { IngestCost, MemoryTokens, formatMs, formatPercentiles } from '../runs/Table2';
import { RunTag } from './RunPicker';
import { COST_HEADERS, runLetter } from './shape';

const ROLES = ['answer', 'judge', 'memory'] as const;

/** Tokens per model role, cost and latency of each compared run: what a better score cost. */
export const CostPanel = memo(function CostPanel({
  comparison,
  costs,
}: {
  comparison: RunComparison;
  costs: readonly RunCost[];
}) {
  return (
    <section className="panel" aria-labelledby="compare-cost-title">
      <h2>
        <span id="compare-cost-title">Cost and speed</span>{' '}
        <span className="muted heading-note">
          · tokens in + out per model role over every test, cost at the endpoints&apos; prices;
          latencies are means over final answers; Mem0 Table 2&apos;s columns: search and total
          (search + answer) p50 / p95, the retrieved memory tokens a question hands the answerer,
          memory LLM calls and tokens per conversation
        </span>
      </h2>
      <div className="table-scroll">
        <table className="flip-table" aria-label="Cost and speed">
          <thead>
            <tr>
              <th scope="col">Run</th>
              {ROLES.map((role) => (
                <th key={role} scope="col" className="num">
                  {COST_HEADERS[role]}
                </th>
              ))}
              <th scope="col" className="num">
                {COST_HEADERS.cost}
              </th>
              <th scope="col" className="num">
                {COST_HEADERS.retrieveMs}
              </th>
              <th scope="col" className="num">
                {COST_HEADERS.answerMs}
              </th>
              <th scope="col" className="num">
                {COST_HEADERS.search}
              </th>
              <th scope="col" className="num">
                {COST_HEADERS.total}
              </th>
              <th scope="col" className="num">
                {COST_HEADERS.memoryTokens}
              </th>
              <th scope="col" className="num">
                {COST_HEADERS.ingest}
              </th>
            </tr>
          </thead>
          <tbody>
            {comparison.runs.map((run, i) => {
              const cost = costs[i];
              return (
                <tr key={run.runId}>
                  <th scope="row">
                    <span className="run-name">
                      <RunTag index={i} />
                      <span>{runLetter(i)}</span>
                    </span>
                  </th>
                  {ROLES.map((role) => (
                    <td key={role} className="num">
                      <Tokens totals={cost?.[role] ?? null} />
                    </td>
                  ))}
                  <td className="num">{formatCost(cost?.totalCost)}</td>
                  <td className="num">{formatMs(cost?.meanRetrieveMs)}</td>
                  <td className="num">{formatMs(cost?.meanAnswerMs)}</td>
                  <td className="num">{formatPercentiles(cost?.table2.searchMs)}</td>
                  <td className="num">{formatPercentiles(cost?.table2.totalMs)}</td>
                  <td className="num">
                    <MemoryTokens tokens={cost?.table2.memoryTokens ?? null} />
                  </td>
                  <td className="num">
                    <IngestCost ingest={cost?.table2.ingest ?? null} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
});

function Tokens({ totals }: { totals: TokenTotals | null }) {
  if (totals === null || totals.calls === 0) return <span className="muted">–</span>;
  return (
    <span title={`${formatTokens(totals.calls)} calls`}>
      {formatTokens(totals.promptTokens)} + {formatTokens(totals.completionTokens)}
    </span>
  );
}
