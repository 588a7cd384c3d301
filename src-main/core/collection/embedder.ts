/**
 * An embedder turns texts into fixed-size vectors. Collections and memory services depend on
 * this interface only, so the offline word-vector embedder and HTTP embedders are interchangeable.
 */
export interface Embedder {
  /** Stable identifier recorded in run manifests, e.g. `wink-sif-100d` or `openai:text-embedding-3-small`. */
  readonly name: string;
  readonly dim: number;
  /**
   * One vector per text, in order. Vectors are L2-normalised unless the embedder says otherwise.
   * `signal` stops slow work (an HTTP embedder's requests) when the caller gives up.
   */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
}
