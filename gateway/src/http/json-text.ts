/** Deeper JSON is refused before it is parsed (docs/malformed-input.md). */
export const MAX_JSON_DEPTH = 32;

/**
 * Fields whose JSON numbers keep the text they were written as: usage quantities are exact
 * decimals, so `12345678901234567.5` must not go through a float, and `1e3` must reach the one
 * quantity rule as written (which refuses exponents) rather than as 1000.
 */
export const EXACT_DECIMAL_FIELDS: ReadonlySet<string> = new Set(['quantity']);

export type JsonText = { ok: true; text: string } | { ok: false; depth: number };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
/** JSON's number grammar: anything else is left for JSON.parse to refuse, never quoted into a string. */
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
/** Longer keys can't be one of EXACT_DECIMAL_FIELDS; not worth decoding. */
const MAX_KEY_LITERAL = 64;
// Character codes rather than regular expressions: this loop sees every byte of every body.
const isWhitespace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
const isDigit = (code: number) => code >= 0x30 && code <= 0x39;
/** Digits, '-', '+', '.', 'e', 'E'. */
const isNumberChar = (code: number) =>
  isDigit(code) || code === MINUS || code === 0x2b || code === 0x2e || code === 0x65 || code === 0x45;

/** The index just past the string literal opening at `start` (or the text's end if unterminated). */
function endOfString(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

function keyOf(literal: string): string | undefined {
  if (literal.length > MAX_KEY_LITERAL) return undefined;
  try {
    return JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
}

/**
 * One pass over a JSON text before JSON.parse: refuses nesting deeper than MAX_JSON_DEPTH (a few
 * hundred levels would otherwise overflow recursive code further on), and quotes the numbers of
 * EXACT_DECIMAL_FIELDS. Syntax errors are left for JSON.parse to report.
 */
export function prepareJsonText(text: string): JsonText {
  let depth = 0;
  let out = '';
  let copiedUpTo = 0;
  let lastString: string | undefined;
  let key: string | undefined;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = endOfString(text, i);
      lastString = text.slice(i, end);
      i = end;
      continue;
    }
    if (isWhitespace(code)) {
      i++;
      continue;
    }
    if (code === COLON) {
      key = lastString === undefined ? undefined : keyOf(lastString);
      lastString = undefined;
      i++;
      continue;
    }
    if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth++;
      if (depth > MAX_JSON_DEPTH) return { ok: false, depth };
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
    } else if (code === MINUS || isDigit(code)) {
      let end = i + 1;
      while (end < text.length && isNumberChar(text.charCodeAt(end))) end++;
      if (key !== undefined && EXACT_DECIMAL_FIELDS.has(key) && JSON_NUMBER.test(text.slice(i, end))) {
        out += `${text.slice(copiedUpTo, i)}"${text.slice(i, end)}"`;
        copiedUpTo = end;
      }
      i = end;
      key = undefined;
      lastString = undefined;
      continue;
    }
    key = undefined;
    lastString = undefined;
    i++;
  }
  return { ok: true, text: copiedUpTo === 0 ? text : out + text.slice(copiedUpTo) };
}
