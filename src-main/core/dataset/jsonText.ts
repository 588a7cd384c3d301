/**
 * JSON parsing that can say where a file is broken. Node 20's JSON.parse messages only sometimes
 * carry a position (`Unexpected token '}', "..." is not valid JSON` has none), so on failure we
 * re-scan the text with a small syntax checker to find the first bad offset ourselves. The
 * scanner only runs on the failure path; valid files pay nothing.
 */

export interface JsonSyntaxError {
  /** 0-based offset into the text. */
  offset: number;
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units like editors that count characters. */
  column: number;
  reason: string;
}

export type JsonParseResult = { ok: true; value: unknown } | { ok: false; error: JsonSyntaxError };

export function parseJsonText(text: string): JsonParseResult {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    const found = findJsonSyntaxError(text);
    if (found) return { ok: false, error: { ...found, ...lineColumn(text, found.offset) } };
    // The scanner and V8 disagree: claim no place rather than a wrong one. V8's own words are
    // not used: they quote the text around the error.
    return { ok: false, error: { offset: 0, line: 1, column: 1, reason: 'invalid JSON' } };
  }
}

export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX4 = /^[0-9a-fA-F]{4}$/;

/**
 * Messages say where and what was expected, never which character was found: the file may be
 * anything a user pointed at (`/etc/shadow`), and its bytes must not travel back in an error.
 */
function foundEnd(ch: string | undefined): string {
  return ch === undefined ? ', found end of input' : '';
}

/**
 * The first syntax error in `text` (RFC 8259), or null if it is valid JSON. Iterative, so deeply
 * nested input cannot overflow the stack.
 */
export function findJsonSyntaxError(text: string): { offset: number; reason: string } | null {
  const n = text.length;
  let i = 0;
  const stack: Array<'{' | '['> = [];
  type State = 'value' | 'key' | 'after';
  let state: State = 'value';

  const skipWs = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
  };
  const fail = (reason: string): { offset: number; reason: string } => ({ offset: i, reason });

  // Returns an error or null after consuming a string starting at text[i] === '"'.
  const scanString = (): { offset: number; reason: string } | null => {
    i++;
    while (i < n) {
      const ch = text[i] as string;
      if (ch === '"') {
        i++;
        return null;
      }
      if (ch === '\\') {
        const next = text[i + 1];
        if (next === 'u') {
          if (!HEX4.test(text.slice(i + 2, i + 6))) return fail('invalid \\u escape in string');
          i += 6;
        } else if (next !== undefined && ESCAPES.has(next)) {
          i += 2;
        } else {
          return fail('invalid escape in string');
        }
        continue;
      }
      if (ch.charCodeAt(0) < 0x20) return fail('unescaped control character in string');
      i++;
    }
    return fail('unterminated string');
  };

  for (;;) {
    skipWs();
    const ch = text[i];
    if (state === 'value') {
      if (ch === '{' || ch === '[') {
        stack.push(ch);
        i++;
        skipWs();
        const close = ch === '{' ? '}' : ']';
        if (text[i] === close) {
          stack.pop();
          i++;
          state = 'after';
        } else {
          state = ch === '{' ? 'key' : 'value';
        }
      } else if (ch === '"') {
        const err = scanString();
        if (err) return err;
        state = 'after';
      } else if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) {
        NUMBER.lastIndex = i;
        const m = NUMBER.exec(text);
        if (!m) return fail('invalid number');
        i += m[0].length;
        state = 'after';
      } else if (text.startsWith('true', i) || text.startsWith('null', i)) {
        i += 4;
        state = 'after';
      } else if (text.startsWith('false', i)) {
        i += 5;
        state = 'after';
      } else {
        return fail(`expected a value${foundEnd(ch)}`);
      }
    } else if (state === 'key') {
      if (ch !== '"') return fail(`expected a property name in double quotes${foundEnd(ch)}`);
      const err = scanString();
      if (err) return err;
      skipWs();
      if (text[i] !== ':') return fail(`expected ':' after property name${foundEnd(text[i])}`);
      i++;
      state = 'value';
    } else {
      const top = stack[stack.length - 1];
      if (top === undefined) {
        return i < n ? fail('unexpected content after the JSON value') : null;
      }
      const close = top === '{' ? '}' : ']';
      if (ch === ',') {
        i++;
        state = top === '{' ? 'key' : 'value';
      } else if (ch === close) {
        stack.pop();
        i++;
      } else {
        return fail(`expected ',' or '${close}'${foundEnd(ch)}`);
      }
    }
  }
}
