/**
 * The experiment contract shared by the CLI, the API and the UI, re-exported whole so existing
 * imports keep working. New code imports the module that owns what it needs:
 * `experiment/config` (the run's config schema and defaults), `experiment/llm` (an LLM endpoint's
 * shape and deadlines), `experiment/answerer`, `experiment/judge`, `experiment/records` (answers
 * and tests), `experiment/events` (progress), `experiment/summaries` (the pure aggregations) and
 * `experiment/status` (run statuses, how a run ends, the ETA).
 */
export * from './experiment/answerer';
export * from './experiment/config';
export * from './experiment/events';
export * from './experiment/judge';
export * from './experiment/llm';
export * from './experiment/records';
export * from './experiment/status';
export * from './experiment/summaries';
