import type { TextIndexFactory, VectorIndexFactory } from '../../../src-shared/index-kinds/engine';
import { TextIndex } from './text-index';
import { VectorIndex, blobToVector, vectorToBlob } from './vector-index';

/**
 * The structures the index kinds' engines build through their KindContext (the engines live in
 * src-shared/index-kinds and cannot import flexsearch or hnswlib themselves).
 */
export const TEXT_INDEXES: TextIndexFactory = { create: (settings) => new TextIndex(settings) };

export const VECTOR_INDEXES: VectorIndexFactory = {
  empty: (settings) => VectorIndex.empty(settings),
  load: (settings, path, checksum, labels) => VectorIndex.load(settings, path, checksum, labels),
  rebuild: (settings, rows, count) => VectorIndex.rebuild(settings, rows, count),
  removeFile: (path) => VectorIndex.removeFile(path),
  toBlob: vectorToBlob,
  fromBlob: blobToVector,
};
