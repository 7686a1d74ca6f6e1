// The bytes of JSON's structure, for the decoders that scan a body without parsing it.

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const COLON = 0x3a;
export const COMMA = 0x2c;

/** JSON's whitespace: space, line feed, carriage return, tab. */
export function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** `{` or `[`: the first byte of an object or array. */
export function opensContainer(c: number): boolean {
  return c === OPEN_BRACE || c === OPEN_BRACKET;
}

/** `}` or `]`: the last byte of an object or array. */
export function closesContainer(c: number): boolean {
  return c === CLOSE_BRACE || c === CLOSE_BRACKET;
}

/** `,`, `:`, `}` or `]`: ends a number or literal, and can never start a value. */
export function isDelimiter(c: number): boolean {
  return c === COMMA || c === COLON || closesContainer(c);
}

// Node's (and Bun's) Buffer has the slicer `toString` calls; `toString` itself costs about 30
// bytes of garbage a call in argument handling, which a relist pays per item.
const hasUtf8Slice = typeof (Buffer.prototype as { utf8Slice?: unknown }).utf8Slice === 'function';

/** `b`'s bytes from `start` to `end`, decoded as UTF-8 (as `b.toString('utf8', start, end)`). */
export function utf8Text(b: Buffer, start: number, end: number): string {
  return hasUtf8Slice
    ? (b as Buffer & { utf8Slice(start: number, end: number): string }).utf8Slice(start, end)
    : b.toString('utf8', start, end);
}
