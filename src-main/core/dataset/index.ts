/** The dataset layer's public surface: import from here, not from the files behind it. */
export { parseSessionDateTime } from './dates';
export { isRepair, isUnresolved, normaliseEvidence } from './evidence';
export type { NormalisedEvidence } from './evidence';
export { findJsonSyntaxError, lineColumn, parseJsonText } from './jsonText';
export type { JsonParseResult, JsonSyntaxError } from './jsonText';
export {
  DEFAULT_MAX_DATASET_BYTES,
  MAX_DATASET_BYTES_ENV,
  createDefaultRegistry,
  datasetByteLimit,
  loadDatasetBytes,
  loadDatasetFile,
  loadDatasetText,
  loadDatasetValue,
} from './load';
export type { LoadDatasetOptions } from './load';
export { locomoLoader } from './locomo';
export { longMemEvalLoader, parseLongMemEvalDate } from './longmemeval';
export {
  LongMemEvalFileReader,
  indexLongMemEvalFile,
  isLongMemEvalFile,
  streamsDataset,
} from './longmemevalFile';
export type { LongMemEvalFileIndex } from './longmemevalFile';
export { packetCount, packetsOf, TURNS_PER_PACKET } from './packets';
export { DatasetLoaderRegistry } from './registry';
export type { DatasetLoader, LoadContext, LoaderOutput } from './registry';
export { sampleById } from './select';
export { DatasetStatsTally, datasetStats, sampleStats } from './stats';
export { planTestTrigger, planTests, testThreshold } from './testPlan';
export { questionVisibility } from './visibility';
