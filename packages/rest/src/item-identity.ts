// Reads an object's identity (metadata.name, metadata.namespace, metadata.resourceVersion)
// straight from its JSON bytes, without parsing the object. A relisting cache uses it to
// recognise objects it already holds and skip parsing them.

import {
  BACKSLASH,
  CLOSE_BRACE,
  COLON,
  COMMA,
  closesContainer,
  isWhitespace,
  OPEN_BRACE,
  opensContainer,
  QUOTE,
} from './json-bytes.js';

/** Which object, at which version: read from `metadata` before the object is parsed. */
export interface ListItemIdentity {
  /** The object's `metadata.name`. */
  readonly name: string;
  /** Absent for cluster-scoped objects. */
  readonly namespace?: string | undefined;
  /** The object's `metadata.resourceVersion`: equal versions mean an unchanged object. */
  readonly resourceVersion: string;
}

const metadataKey = Buffer.from('metadata');
const nameKey = Buffer.from('name');
const namespaceKey = Buffer.from('namespace');
const resourceVersionKey = Buffer.from('resourceVersion');

function skipWhitespace(b: Buffer, i: number): number {
  while (i < b.length && isWhitespace(b[i] as number)) i++;
  return i;
}

/** `i` is just after an opening quote; returns the index of the closing quote, or -1. */
function stringEnd(b: Buffer, i: number): number {
  for (; i < b.length; i++) {
    const c = b[i] as number;
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  return -1;
}

/** Returns the index just after the value starting at `i`, or -1 if it does not end. */
function skipValue(b: Buffer, i: number): number {
  const first = b[i] as number;
  if (first === QUOTE) {
    const end = stringEnd(b, i + 1);
    return end < 0 ? -1 : end + 1;
  }
  if (opensContainer(first)) {
    let depth = 0;
    for (; i < b.length; i++) {
      const c = b[i] as number;
      if (c === QUOTE) {
        i = stringEnd(b, i + 1);
        if (i < 0) return -1;
      } else if (opensContainer(c)) {
        depth++;
      } else if (closesContainer(c)) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  for (; i < b.length; i++) {
    const c = b[i] as number;
    if (c === COMMA || closesContainer(c) || isWhitespace(c)) return i;
  }
  return i;
}

function keyIs(b: Buffer, start: number, end: number, key: Buffer): boolean {
  return end - start === key.length && b.compare(key, 0, key.length, start, end) === 0;
}

/** Decodes the JSON string whose quotes are at `open` and `close`. */
function decodeString(b: Buffer, open: number, close: number): string {
  const raw = b.toString('utf8', open + 1, close);
  return raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
}

// Where the key of the member last read by `readKey` starts and ends. Module state rather
// than a result object: this runs for every item of a relist, so it allocates nothing.
let keyStart = 0;
let keyEnd = 0;

/**
 * Reads `"key" :` at `i` (after whitespace), recording the key's bounds, and returns where
 * the value starts, or -1.
 */
function readKey(b: Buffer, i: number): number {
  if (b[i] !== QUOTE) return -1;
  keyStart = i + 1;
  keyEnd = stringEnd(b, keyStart);
  if (keyEnd < 0) return -1;
  i = skipWhitespace(b, keyEnd + 1);
  return b[i] === COLON ? skipWhitespace(b, i + 1) : -1;
}

/** After a member's value: the start of the next member, or -1 at the end of the object. */
function nextMember(b: Buffer, i: number): number {
  i = skipWhitespace(b, i);
  return b[i] === COMMA ? skipWhitespace(b, i + 1) : -1;
}

/** Reads name, namespace and resourceVersion from the `metadata` object at `i`. */
function readMetadata(b: Buffer, i: number): ListItemIdentity | undefined {
  if (b[i] !== OPEN_BRACE) return undefined;
  let name: string | undefined;
  let namespace: string | undefined;
  let resourceVersion: string | undefined;
  i = skipWhitespace(b, i + 1);
  if (b[i] !== CLOSE_BRACE) {
    while (i >= 0) {
      const value = readKey(b, i);
      if (value < 0) return undefined;
      if (b[value] === QUOTE) {
        const close = stringEnd(b, value + 1);
        if (close < 0) return undefined;
        if (keyIs(b, keyStart, keyEnd, nameKey)) name = decodeString(b, value, close);
        else if (keyIs(b, keyStart, keyEnd, namespaceKey))
          namespace = decodeString(b, value, close);
        else if (keyIs(b, keyStart, keyEnd, resourceVersionKey)) {
          resourceVersion = decodeString(b, value, close);
        }
        i = close + 1;
      } else {
        i = skipValue(b, value);
        if (i < 0) return undefined;
      }
      const next = nextMember(b, i);
      if (next < 0) {
        if (b[skipWhitespace(b, i)] !== CLOSE_BRACE) return undefined;
        break;
      }
      i = next;
    }
  }
  if (!name || !resourceVersion) return undefined;
  return namespace ? { name, namespace, resourceVersion } : { name, resourceVersion };
}

/**
 * Reads `metadata.name`, `metadata.namespace` and `metadata.resourceVersion` from the JSON
 * bytes of one object, reading no further than the end of `metadata`. Returns `undefined`
 * when the bytes are not an object or it has no name or resourceVersion.
 */
export function readItemIdentity(b: Buffer): ListItemIdentity | undefined {
  let i = skipWhitespace(b, 0);
  if (b[i] !== OPEN_BRACE) return undefined;
  i = skipWhitespace(b, i + 1);
  while (i >= 0) {
    const value = readKey(b, i);
    if (value < 0) return undefined;
    if (keyIs(b, keyStart, keyEnd, metadataKey)) return readMetadata(b, value);
    i = skipValue(b, value);
    if (i < 0) return undefined;
    i = nextMember(b, i);
  }
  return undefined;
}
