/** The Embedder interface lives with its consumer, the collection (a lower layer than embed). */
export type { Embedder } from '../collection/embedder';
