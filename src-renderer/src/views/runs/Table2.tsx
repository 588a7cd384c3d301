import type { Percentiles, Table2Columns } from '@shared/compare';
import { formatTokens } from './shape';

/** Mem0 Table 2's columns as the Runs and Compare views show them (ms, as the runs store them). */

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '–';
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(0);
}

export function formatPercentiles(p: Percentiles | null | undefined): string {
  if (p === null || p === undefined) return '–';
  return `${formatMs(p.p50)} / ${formatMs(p.p95)}`;
}

export function IngestCost({ ingest }: { ingest: Table2Columns['ingest'] }) {
  if (ingest === null) return <span className="muted">–</span>;
  return (
    <span title={`over ${ingest.conversations} conversation(s)`}>
      {formatTokens(Math.round(ingest.callsPerConversation))} calls ·{' '}
      {formatTokens(Math.round(ingest.tokensPerConversation))} tokens
    </span>
  );
}

/** Memory tokens per question (mean / p50); "–" for runs from before they were counted. */
export function MemoryTokens({ tokens }: { tokens: Table2Columns['memoryTokens'] }) {
  if (tokens === null) return <span className="muted">–</span>;
  return (
    <span title={`over ${tokens.answers} answer(s)`}>
      {formatTokens(Math.round(tokens.mean))} / {formatTokens(Math.round(tokens.p50))}
    </span>
  );
}

/** One line under a run's answers: search and total p50 / p95, the memory LLM per conversation. */
export function Table2Line({ columns }: { columns: Table2Columns }) {
  return (
    <p className="muted" aria-label="Mem0 Table 2 columns">
      Mem0 Table 2 · search p50 / p95 {formatPercentiles(columns.searchMs)} ms · total (search +
      answer) p50 / p95 {formatPercentiles(columns.totalMs)} ms · memory tokens / question mean /
      p50 <MemoryTokens tokens={columns.memoryTokens} /> · memory LLM per conversation{' '}
      <IngestCost ingest={columns.ingest} />
    </p>
  );
}
