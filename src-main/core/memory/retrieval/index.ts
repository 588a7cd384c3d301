export * from './config';
export { QUESTION_WORDS, mentionedSpeakers, stripQuestionWords } from './query';
export { sharedWinkEmbedder, WINK_EMBEDDER_NAME } from './embedder';
export {
  TEXT_INDEX,
  VECTOR_INDEX,
  TurnRetrievalService,
  contextVector,
  hybridSettings,
  textSettings,
  vectorSettings,
  type TurnPresetName,
  type TurnRetrievalSettings,
} from './service';
export { packetItems, turnMetadata, turnText, type TurnMetadata } from './turns';
