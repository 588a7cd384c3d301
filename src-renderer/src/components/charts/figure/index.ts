export { barFigure, type BarFigureInput } from './barFigure';
export { curveFigure, niceTicks, type CurveFigureInput } from './curveFigure';
export { heatmapFigure, type HeatmapFigureInput } from './heatmapFigure';
export { sceneToSvg } from './svg';
export { sceneToPdf } from './pdf';
export type { Scene } from './scene';
export {
  DEFAULT_FIGURE_OPTIONS,
  FIGURE_FONT_SIZES,
  FIGURE_SIZES,
  type FigureFontSize,
  type FigureOptions,
  type FigureSize,
} from './layout';
export { bootstrapSentence, joinSentences, nSentence } from './caption';
