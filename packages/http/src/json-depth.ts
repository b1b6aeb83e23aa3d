import { unsupportedMediaType, validation } from '@githost/errors';

/**
 * How deep a JSON body may nest: every body githost takes is a few levels deep (a merge request
 * comment's object, a webhook's `events` list), and GitHub's API refuses deeply nested bodies too.
 * A deeper one is refused before it is parsed, so nothing recursive ever walks it (docs/decisions/json-nesting-limit.md).
 */
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * Whether JSON text opens more than `limit` objects and arrays inside each other. One pass,
 * no recursion and no allocation: brackets inside strings (escaped quotes included) do not
 * count. Text that is not JSON is left to the parser, which refuses it; only depth is judged here.
 */
export function nestedDeeperThan(text: string | Uint8Array, limit = MAX_JSON_DEPTH): boolean {
  const codeAt = typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i]!;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = codeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    }
  }
  return false;
}

/**
 * body-parser's `verify` hook: runs on the raw (already inflated) body before `JSON.parse`.
 * UTF-8 is scanned byte for byte, with no copy of the body (no byte of a multi-byte UTF-8
 * character is ASCII, so the brackets, quotes and backslashes are the text's); UTF-16 is decoded first. A charset TextDecoder does
 * not know (UTF-32) is refused: RFC 8259 §8.1 asks for UTF-8 between systems anyway.
 */
export function refuseDeepJson(_req: unknown, _res: unknown, body: Buffer, charset: string | null): void {
  const encoding = (charset ?? 'utf-8').toLowerCase();
  let text: string | Uint8Array;
  if (encoding === 'utf-8' || encoding === 'utf8') {
    text = body;
  } else {
    try {
      text = new TextDecoder(encoding).decode(body);
    } catch {
      throw unsupportedMediaType(`Unsupported charset "${encoding.toUpperCase()}"`);
    }
  }
  if (nestedDeeperThan(text)) throw validation(`JSON body nested deeper than ${MAX_JSON_DEPTH} levels`);
}
