/**
 * NLTK 3.8's Punkt sentence splitter at tokenising time (nltk/tokenize/punkt.py:
 * `PunktSentenceTokenizer.tokenize` with boundary realignment), the sentence half of
 * `nltk.word_tokenize`. Training is not ported: the parameters (abbreviations, collocations,
 * sentence starters, orthographic contexts) are data that NLTK ships as the `punkt` / `punkt_tab`
 * models, so they are passed in (src-main loads NLTK's `punkt_tab/english` where it is
 * installed). Python's Unicode regex classes are spelled out as in treebank.ts.
 */
import { PY_WHITESPACE, pyRstrip, pyStrip } from './pytext';

export interface PunktParameters {
  /** Abbreviation types, lower case, without the final period ("dr", "u.s"). */
  abbrevTypes: ReadonlySet<string>;
  /** Collocations as "type1\ttype2" (a period-final type and the type after it). */
  collocations: ReadonlySet<string>;
  /** Frequent sentence starters, lower case. */
  sentStarters: ReadonlySet<string>;
  /** Orthographic context flags per type (see ORTHO_*); absent = 0. */
  orthoContext: ReadonlyMap<string, number>;
}

export const EMPTY_PUNKT_PARAMETERS: PunktParameters = {
  abbrevTypes: new Set(),
  collocations: new Set(),
  sentStarters: new Set(),
  orthoContext: new Map(),
};

const ORTHO_BEG_UC = 1 << 1;
const ORTHO_MID_UC = 1 << 2;
const ORTHO_UNK_UC = 1 << 3;
const ORTHO_BEG_LC = 1 << 4;
const ORTHO_MID_LC = 1 << 5;
const ORTHO_UNK_LC = 1 << 6;
const ORTHO_UC = ORTHO_BEG_UC + ORTHO_MID_UC + ORTHO_UNK_UC;
const ORTHO_LC = ORTHO_BEG_LC + ORTHO_MID_LC + ORTHO_UNK_LC;

const S = `[${PY_WHITESPACE}]`;
const NOT_S = `[^${PY_WHITESPACE}]`;
const END = '(?=\\n?$)';
/** PunktLanguageVars._re_non_word_chars for the English sentence-end characters. */
const NON_WORD = `(?:[)";}\\]\\*:@'\\({\\[?!])`;
const MULTI_CHAR = `(?:-{2,}|\\.{2,}|(?:\\.${S}){2,}\\.)`;
const WORD_START = '[^\\("`{\\[:;&#*@\\)}\\]\\-,]';

/** PunktLanguageVars._word_tokenize_fmt: splits off punctuation other than periods. */
const WORD_TOKENIZER = new RegExp(
  `(${MULTI_CHAR}|(?=${WORD_START})${NOT_S}+?(?=${S}|$|${NON_WORD}|${MULTI_CHAR}|,(?=$|${S}|${NON_WORD}|${MULTI_CHAR}))|${NOT_S})`,
  'gu',
);
/** PunktLanguageVars._period_context_fmt: a possible sentence end and what follows it. */
const PERIOD_CONTEXT = new RegExp(
  `[\\.\\?!](?=(?<afterTok>${NON_WORD}|${S}+(?<nextTok>${NOT_S}+)))`,
  'gud',
);
/** PunktLanguageVars.re_boundary_realignment (MULTILINE `$`: before any newline). */
const BOUNDARY_REALIGNMENT = new RegExp(`^["')\\]}]+?(?:${S}+|(?=--)|(?=\\n|$))`, 'u');

const RE_ELLIPSIS = /^\.\.+$/u;
const RE_NUMERIC = new RegExp(`^-?[\\.,]?\\p{Nd}[\\p{Nd},\\.-]*\\.?${END}`, 'u');
/** `[^\W\d]\.$`: a word character that is not a digit, then the period. */
const RE_INITIAL = new RegExp(`^[\\p{L}\\p{Nl}\\p{No}_]\\.${END}`, 'u');
const SENT_END_CHARS = new Set(['.', '?', '!']);
const PUNCTUATION = new Set([';', ':', ',', '.', '!', '?']);
/** Python's `string.whitespace` (ASCII only), used to find the word before a period. */
const ASCII_WHITESPACE = new Set([' ', '\t', '\n', '\r', '\x0b', '\x0c']);

interface Token {
  tok: string;
  type: string;
  periodFinal: boolean;
  sentbreak: boolean;
  abbr: boolean;
  ellipsis: boolean;
}

function makeToken(tok: string): Token {
  return {
    tok,
    type: tok.toLowerCase().replace(RE_NUMERIC, '##number##'),
    periodFinal: tok.endsWith('.'),
    sentbreak: false,
    abbr: false,
    ellipsis: false,
  };
}

function typeNoPeriod(token: Token): string {
  return [...token.type].length > 1 && token.type.endsWith('.')
    ? token.type.slice(0, -1)
    : token.type;
}

function typeNoSentPeriod(token: Token): string {
  return token.sentbreak ? typeNoPeriod(token) : token.type;
}

function firstChar(token: Token): string {
  return String.fromCodePoint(token.tok.codePointAt(0) ?? 0);
}
const isUpper = (ch: string): boolean => /\p{Uppercase}/u.test(ch);
const isLower = (ch: string): boolean => /\p{Lowercase}/u.test(ch);

/** PunktBaseClass._tokenize_words, flattened: line and paragraph starts do not affect tokenize. */
function tokenizeWords(text: string): Token[] {
  const tokens: Token[] = [];
  for (const line of text.split('\n')) {
    if (pyStrip(line) === '') continue;
    for (const match of line.matchAll(WORD_TOKENIZER)) tokens.push(makeToken(match[1] as string));
  }
  return tokens;
}

export class PunktSentenceTokenizer {
  constructor(private readonly params: PunktParameters) {}

  /** `PunktSentenceTokenizer.tokenize(text)`: the sentences of `text`. */
  tokenize(text: string): string[] {
    return this.spans(text).map(([start, end]) => text.slice(start, end));
  }

  private spans(text: string): Array<[number, number]> {
    const slices = this.slicesFromText(text);
    // _realign_boundaries: closing punctuation after a break joins the sentence before it.
    const out: Array<[number, number]> = [];
    let realign = 0;
    slices.forEach(([start, stop], i) => {
      const sentence1: [number, number] = [start + realign, stop];
      const next = slices[i + 1];
      if (!next) {
        if (sentence1[1] > sentence1[0]) out.push(sentence1);
        return;
      }
      const match = BOUNDARY_REALIGNMENT.exec(text.slice(next[0], next[1]));
      if (match) {
        out.push([sentence1[0], next[0] + pyRstrip(match[0]).length]);
        realign = match[0].length;
      } else {
        realign = 0;
        if (sentence1[1] > sentence1[0]) out.push(sentence1);
      }
    });
    return out;
  }

  private slicesFromText(text: string): Array<[number, number]> {
    const slices: Array<[number, number]> = [];
    let lastBreak = 0;
    for (const { match, context } of this.potentialEndContexts(text)) {
      if (this.textContainsSentbreak(context)) {
        slices.push([lastBreak, match.index + match[0].length]);
        const nextTok = match.indices?.groups?.['nextTok'];
        lastBreak = nextTok ? nextTok[0] : match.index + match[0].length;
      }
    }
    slices.push([lastBreak, pyRstrip(text).length]);
    return slices;
  }

  /** _match_potential_end_contexts: each candidate break with the word before and after it. */
  private *potentialEndContexts(
    text: string,
  ): Generator<{ match: RegExpExecArray; context: string }> {
    let previousSlice: [number, number] = [0, 0];
    let previousMatch: RegExpExecArray | null = null;
    for (const match of text.matchAll(PERIOD_CONTEXT)) {
      const beforeText = text.slice(previousSlice[1], match.index);
      let indexAfterLastSpace = lastAsciiWhitespaceIndex(beforeText);
      if (indexAfterLastSpace) indexAfterLastSpace += previousSlice[1] + 1;
      else indexAfterLastSpace = previousSlice[0];
      const prevWordSlice: [number, number] = [indexAfterLastSpace, match.index];
      if (previousMatch && previousSlice[1] <= prevWordSlice[0]) {
        yield { match: previousMatch, context: contextOf(text, previousSlice, previousMatch) };
      }
      previousMatch = match;
      previousSlice = prevWordSlice;
    }
    if (previousMatch) {
      yield { match: previousMatch, context: contextOf(text, previousSlice, previousMatch) };
    }
  }

  /** text_contains_sentbreak: a break on any token but the last. */
  private textContainsSentbreak(text: string): boolean {
    const tokens = tokenizeWords(text);
    for (const token of tokens) this.firstPass(token);
    let found = false;
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i] as Token;
      this.secondPass(token, tokens[i + 1]);
      if (found) return true;
      if (token.sentbreak) found = true;
    }
    return false;
  }

  private firstPass(token: Token): void {
    const { tok } = token;
    if (SENT_END_CHARS.has(tok)) token.sentbreak = true;
    else if (RE_ELLIPSIS.test(tok)) token.ellipsis = true;
    else if (token.periodFinal && !tok.endsWith('..')) {
      const stem = tok.slice(0, -1).toLowerCase();
      const lastPart = stem.split('-').at(-1) ?? stem;
      if (this.params.abbrevTypes.has(stem) || this.params.abbrevTypes.has(lastPart)) {
        token.abbr = true;
      } else token.sentbreak = true;
    }
  }

  private secondPass(token1: Token, token2: Token | undefined): void {
    if (!token2 || !token1.periodFinal) return;
    const typ = typeNoPeriod(token1);
    const nextTyp = typeNoSentPeriod(token2);
    const tokIsInitial = RE_INITIAL.test(token1.tok);
    if (this.params.collocations.has(`${typ}\t${nextTyp}`)) {
      token1.sentbreak = false;
      token1.abbr = true;
      return;
    }
    if ((token1.abbr || token1.ellipsis) && !tokIsInitial) {
      const isSentStarter = this.orthoHeuristic(token2);
      if (isSentStarter === true) {
        token1.sentbreak = true;
        return;
      }
      if (isUpper(firstChar(token2)) && this.params.sentStarters.has(nextTyp)) {
        token1.sentbreak = true;
        return;
      }
    }
    if (tokIsInitial || typ === '##number##') {
      const isSentStarter = this.orthoHeuristic(token2);
      if (isSentStarter === false) {
        token1.sentbreak = false;
        token1.abbr = true;
        return;
      }
      if (
        isSentStarter === 'unknown' &&
        tokIsInitial &&
        isUpper(firstChar(token2)) &&
        !((this.params.orthoContext.get(nextTyp) ?? 0) & ORTHO_LC)
      ) {
        token1.sentbreak = false;
        token1.abbr = true;
      }
    }
  }

  /** _ortho_heuristic: does `token` start a sentence (true, false or unknown)? */
  private orthoHeuristic(token: Token): boolean | 'unknown' {
    if (PUNCTUATION.has(token.tok)) return false;
    const context = this.params.orthoContext.get(typeNoSentPeriod(token)) ?? 0;
    const first = firstChar(token);
    if (isUpper(first) && context & ORTHO_LC && !(context & ORTHO_MID_UC)) return true;
    if (isLower(first) && (context & ORTHO_UC || !(context & ORTHO_BEG_LC))) return false;
    return 'unknown';
  }
}

function contextOf(text: string, slice: [number, number], match: RegExpExecArray): string {
  return text.slice(slice[0], slice[1]) + match[0] + (match.groups?.['afterTok'] ?? '');
}

/** _get_last_whitespace_index: the last ASCII whitespace, or 0 when there is none. */
function lastAsciiWhitespaceIndex(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) if (ASCII_WHITESPACE.has(text[i] as string)) return i;
  return 0;
}
