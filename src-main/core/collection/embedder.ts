// The Embedder interface is declared beside the index kinds' engine contract, whose vector
// engine embeds through it; collections and memory services import it from here.
export type { Embedder } from '../../../src-shared/index-kinds/engine';
