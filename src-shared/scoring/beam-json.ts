import { PY_WHITESPACE, pyStrip } from './pytext';

/**
 * How BEAM's `compute_metrics.py` (b2a3ee8) reads a judge reply:
 *
 *     response = model.invoke(prompt).content.strip()
 *     try:    response = parse_json_response(response=response)
 *     except: response = json.loads(repair_json(response))
 *     score += int(response['score'])
 *
 * `parse_json_response` is reproduced exactly. `repair_json` (json_repair 0.44.1) is a large
 * heuristic parser; the workbench reproduces the part of it that judge replies need (one JSON
 * object or array somewhere in the text, with trailing commas, a comma missing after a number,
 * a missing closing quote or missing closing brackets at the end) and refuses the rest rather than guess: such a reply is
 * the question's judge error (`BeamReplyUnread`), never a silent score. Every repair it makes is
 * golden-tested against json_repair itself (tests/fixtures/golden/beam.json).
 */

/** Why a reply has no score the reference would have read. */
export type BeamReplyProblem =
  /** The reference itself raises here (no JSON, not an object, no "score"): its run stops. */
  | 'reference-raises'
  /** json_repair would decide; the workbench does not reproduce that case of it. */
  | 'repair-not-reproduced';

export class BeamReplyUnread extends Error {
  constructor(
    readonly problem: BeamReplyProblem,
    why: string,
  ) {
    super(why);
    this.name = 'BeamReplyUnread';
  }
}

const WS = `[${PY_WHITESPACE}]`;
const FENCED = new RegExp(`\`\`\`(?:json)?${WS}*(\\[[^]*\\]|\\{[^]*\\})${WS}*\`\`\``, 'u');
const FIRST_BRACKETED = /(\{[^]*?\}|\[[^]*?\])/u;
/** Python's json.loads accepts these; JSON.parse does not (refused rather than misread). */
const PY_ONLY_CONSTANTS = /\b(?:NaN|Infinity)\b/;

/** Python `json.loads`, refusing the NaN/Infinity constants JSON.parse cannot read. */
function jsonLoads(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    if (PY_ONLY_CONSTANTS.test(text)) {
      throw new BeamReplyUnread('repair-not-reproduced', 'reply uses NaN or Infinity');
    }
    throw error;
  }
}

/** `parse_json_response`, exactly: throws where it raises. */
export function parseJsonResponse(reply: string): unknown {
  let response = pyStrip(reply);
  if (response.startsWith('```')) {
    const match = FENCED.exec(response);
    if (match) response = pyStrip(match[1] as string);
  }
  try {
    return jsonLoads(response);
  } catch (error) {
    if (error instanceof BeamReplyUnread) throw error;
  }
  const match = FIRST_BRACKETED.exec(response);
  if (match) return jsonLoads(match[1] as string);
  throw new Error('No valid JSON found in response.');
}

/** What the reference's reader makes of a reply: `parse_json_response`, else `repair_json`. */
export function readBeamReply(reply: string): unknown {
  const stripped = pyStrip(reply);
  try {
    return parseJsonResponse(stripped);
  } catch (error) {
    if (error instanceof BeamReplyUnread) throw error;
  }
  return repairJson(stripped);
}

/** `response['score']` of what was read: the reference raises on anything but an object with it. */
export function scoreOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BeamReplyUnread('reference-raises', 'reply is not a JSON object');
  }
  if (!Object.hasOwn(value, 'score')) {
    throw new BeamReplyUnread('reference-raises', 'reply has no "score"');
  }
  return (value as Record<string, unknown>)['score'];
}

const unsupported = (why: string): BeamReplyUnread =>
  new BeamReplyUnread('repair-not-reproduced', `json_repair case not reproduced: ${why}`);

/**
 * `json.loads(repair_json(text))` for the replies it is reproduced on: the first `{` or `[`
 * starts the value (everything before it is skipped, as json_repair skips it); after the value
 * nothing but text without brackets, quotes-free of JSON starts, may follow.
 */
export function repairJson(text: string): unknown {
  const start = text.search(/[{[#/]/);
  if (start === -1) {
    // json_repair returns "" and the reference's `""['score']` raises.
    throw new BeamReplyUnread('reference-raises', 'reply holds no JSON');
  }
  if (text[start] === '#' || text[start] === '/') throw unsupported('a comment before the JSON');
  const parser = new LenientParser(text, start);
  const value = parser.value();
  if (/[{[#/]/.test(text.slice(parser.index))) throw unsupported('more text with JSON after it');
  return value;
}

class LenientParser {
  constructor(
    private readonly text: string,
    public index: number,
  ) {}

  private skipWhitespace(): void {
    while (this.index < this.text.length && /\s/.test(this.text[this.index] as string))
      this.index++;
  }

  private get atEnd(): boolean {
    return this.index >= this.text.length;
  }

  value(): unknown {
    this.skipWhitespace();
    const char = this.text[this.index];
    if (char === '{') return this.object();
    if (char === '[') return this.array();
    if (char === '"') return this.string();
    const literal = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)(?![\w.])/.exec(
      this.text.slice(this.index),
    );
    if (!literal)
      throw unsupported(`a value starting "${this.text.slice(this.index, this.index + 10)}"`);
    this.index += literal[0].length;
    return JSON.parse(literal[0]) as unknown;
  }

  private object(): Record<string, unknown> {
    this.index++;
    const out: Record<string, unknown> = {};
    for (;;) {
      this.skipWhitespace();
      if (this.atEnd) return out;
      if (this.text[this.index] === '}') {
        this.index++;
        return out;
      }
      if (this.text[this.index] !== '"') throw unsupported('a key without double quotes');
      const key = this.string();
      this.skipWhitespace();
      if (this.text[this.index] !== ':') throw unsupported('a key without a colon');
      this.index++;
      this.skipWhitespace();
      if (this.atEnd || this.text[this.index] === '}') throw unsupported('a key without a value');
      const isString = this.text[this.index] === '"';
      out[key] = this.value();
      this.skipWhitespace();
      if (this.text[this.index] === ',') this.index++;
      // json_repair reads the next key after a number, literal or container without a comma
      // (golden); after a string its quote heuristics decide, which are not reproduced.
      else if (!isString && this.text[this.index] === '"') continue;
      else if (!this.atEnd && this.text[this.index] !== '}') throw unsupported('a missing comma');
    }
  }

  private array(): unknown[] {
    this.index++;
    const out: unknown[] = [];
    for (;;) {
      this.skipWhitespace();
      if (this.atEnd) return out;
      if (this.text[this.index] === ']') {
        this.index++;
        return out;
      }
      out.push(this.value());
      this.skipWhitespace();
      if (this.text[this.index] === ',') this.index++;
      else if (!this.atEnd && this.text[this.index] !== ']') throw unsupported('a missing comma');
    }
  }

  /** A double-quoted string without escapes; one left open at the end is closed there. */
  private string(): string {
    const close = this.text.indexOf('"', this.index + 1);
    const end = close === -1 ? this.text.length : close;
    const body = this.text.slice(this.index + 1, end);
    if (body.includes('\\')) throw unsupported('a backslash in a string');
    if (close === -1) {
      if (/["'\u201c\u201d]/.test(body)) throw unsupported('quotes in an unclosed string');
      this.index = this.text.length;
      return body.trimEnd();
    }
    this.index = close + 1;
    return body;
  }
}
