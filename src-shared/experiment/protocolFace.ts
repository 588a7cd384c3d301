/**
 * A named protocol's face: what the run form, the Models view and the CLI's help and errors show,
 * browser-safe. Its engine (the prompt bytes and parsing) is core/answer's entry of the same name;
 * the engine maps are typed by these names, so a face without an engine does not compile.
 */
export interface ProtocolFace {
  /** How a select names it. */
  readonly label: string;
  /** One line for `--help`: what it asks and whose code it copies. */
  readonly help: string;
}
