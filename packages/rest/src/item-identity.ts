// Reads an object's identity (metadata.name, metadata.namespace, metadata.resourceVersion)
// straight from its JSON bytes, without parsing the object. A relisting cache uses it to
// recognise objects it already holds and skip parsing them, so a wrong identity would hand a
// caller the wrong object: whatever the scanner cannot read exactly as JSON.parse would, it
// refuses (`undefined`), and the item is parsed.

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
  utf8Text,
} from './json-bytes.js';

/**
 * Which object, at which version: read from `metadata` before the object is parsed. The list
 * decoder hands its `reuseItem` hint an identity that also has {@link ListItemIdentity.key}
 * and {@link ListItemIdentity.isIdentityOf}, read from the item's bytes as they are needed;
 * that identity is only valid during the call (the decoder reuses it for the next item).
 */
export interface ListItemIdentity {
  /** The object's `metadata.name`. */
  readonly name: string;
  /** Absent for cluster-scoped objects. */
  readonly namespace?: string | undefined;
  /** The object's `metadata.resourceVersion`: equal versions mean an unchanged object. */
  readonly resourceVersion: string;
  /**
   * `namespace/name`, or `name` for a cluster-scoped object: the key `metaNamespaceKeyFunc`
   * of `@kubets/cache` gives the object, made without decoding name and namespace apart.
   */
  readonly key?: string | undefined;
  /**
   * Whether `obj`'s `metadata` has this name, namespace and resourceVersion (an empty
   * namespace is none), compared with the item's bytes without decoding them.
   */
  isIdentityOf?(obj: unknown): boolean;
}

// The scanner's state: module variables rather than result objects, since this runs for
// every item of a relist and should allocate nothing but the identity it returns.
/** Where the scan stops: the end of the item's bytes. */
let limit = 0;
/** Whether the string last passed over by `stringEnd` held a backslash escape. */
let escaped = false;
/** Where the key of the member last read by `readKey` starts and ends. */
let keyStart = 0;
let keyEnd = 0;
/** Just after the object whose closing brace `nextMember` found last. */
let memberEnd = 0;

/** The byte at `i`, or -1 past the end of the item. */
function at(b: Buffer, i: number): number {
  return i < limit ? (b[i] as number) : -1;
}

function skipWhitespace(b: Buffer, i: number): number {
  while (i < limit && isWhitespace(b[i] as number)) i++;
  return i;
}

/** `i` is just after an opening quote; returns the index of the closing quote, or -1. */
function stringEnd(b: Buffer, i: number): number {
  escaped = false;
  for (; i < limit; i++) {
    const c = b[i] as number;
    if (c === BACKSLASH) {
      escaped = true;
      i++;
    } else if (c === QUOTE) {
      return i;
    }
  }
  return -1;
}

/** Returns the index just after the value starting at `i`, or -1 if it does not end. */
function skipValue(b: Buffer, i: number): number {
  const first = at(b, i);
  if (first < 0) return -1;
  if (first === QUOTE) {
    const end = stringEnd(b, i + 1);
    return end < 0 ? -1 : end + 1;
  }
  if (opensContainer(first)) {
    let depth = 0;
    for (; i < limit; i++) {
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
  // A number or literal: it ends at the next delimiter. An empty one is no value.
  const start = i;
  for (; i < limit; i++) {
    const c = b[i] as number;
    if (c === COMMA || closesContainer(c) || isWhitespace(c)) break;
  }
  return i === start ? -1 : i;
}

/** Whether the key `readKey` read last is `key` (ASCII), compared byte by byte. */
function keyIs(b: Buffer, key: string): boolean {
  const n = key.length;
  if (keyEnd - keyStart !== n) return false;
  for (let k = 0; k < n; k++) if (b[keyStart + k] !== key.charCodeAt(k)) return false;
  return true;
}

/**
 * Reads `"key" :` at `i`, recording the key's bounds, and returns where the value starts
 * (after whitespace), or -1. A key with an escape is refused (-1): `"na\u006de"` is `name`
 * to JSON.parse, and comparing its bytes would miss that.
 */
function readKey(b: Buffer, i: number): number {
  if (at(b, i) !== QUOTE) return -1;
  keyStart = i + 1;
  keyEnd = stringEnd(b, keyStart);
  if (keyEnd < 0 || escaped) return -1;
  i = skipWhitespace(b, keyEnd + 1);
  return at(b, i) === COLON ? skipWhitespace(b, i + 1) : -1;
}

/**
 * After a member's value at `i`: the start of the next member, `-2` at the object's closing
 * brace (then `memberEnd` is just after it), or -1 when neither follows.
 */
function nextMember(b: Buffer, i: number): number {
  i = skipWhitespace(b, i);
  const c = at(b, i);
  if (c === COMMA) return skipWhitespace(b, i + 1);
  if (c === CLOSE_BRACE) {
    memberEnd = i + 1;
    return -2;
  }
  return -1;
}

/** The string an escaped value's raw text stands for; `undefined` when JSON.parse refuses it. */
function decodeEscapes(raw: string): string | undefined {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return undefined;
  }
}

/**
 * One identity field of the item read last: where its string's characters are in the item's
 * bytes, and, when it has escapes, what it decodes to.
 */
class FieldRange {
  start = -1;
  end = -1;
  /** The decoded value of a string with escapes (decoded at once, to refuse a bad escape). */
  unescaped: string | undefined;

  reset(): void {
    this.start = -1;
    this.end = -1;
    this.unescaped = undefined;
  }

  get present(): boolean {
    return this.start >= 0;
  }

  get isEmpty(): boolean {
    return this.unescaped === undefined ? this.end === this.start : this.unescaped === '';
  }

  decode(b: Buffer): string {
    return this.unescaped ?? utf8Text(b, this.start, this.end);
  }

  /** Whether `value` is this field's string, compared byte by byte while they are ASCII. */
  equals(b: Buffer, value: unknown): boolean {
    if (typeof value !== 'string') return false;
    if (this.unescaped !== undefined) return value === this.unescaped;
    const { start, end } = this;
    const n = end - start;
    if (value.length === n) {
      for (let k = 0; k < n; k++) {
        const c = b[start + k] as number;
        // Beyond ASCII, bytes and UTF-16 code units differ: compare decoded text instead.
        if (c >= 0x80) return value === this.decode(b);
        if (value.charCodeAt(k) !== c) return false;
      }
      return true;
    }
    // Of other lengths only text with multi-byte characters can be equal.
    for (let k = start; k < end; k++) {
      if ((b[k] as number) >= 0x80) return value === this.decode(b);
    }
    return false;
  }
}

interface IdentityFields {
  readonly name: FieldRange;
  readonly namespace: FieldRange;
  readonly resourceVersion: FieldRange;
}

/**
 * Records where name, namespace and resourceVersion are in the `metadata` object at `i`. As
 * with JSON.parse, a repeated field's last value counts; one that is not a string, or has an
 * escape JSON.parse refuses, is no identity. On success `memberEnd` is just after the object.
 */
function readMetadata(b: Buffer, i: number, fields: IdentityFields): boolean {
  if (at(b, i) !== OPEN_BRACE) return false;
  i = skipWhitespace(b, i + 1);
  if (at(b, i) === CLOSE_BRACE) return false; // `{}`: no name
  for (;;) {
    const value = readKey(b, i);
    if (value < 0) return false;
    const field = keyIs(b, 'name')
      ? fields.name
      : keyIs(b, 'namespace')
        ? fields.namespace
        : keyIs(b, 'resourceVersion')
          ? fields.resourceVersion
          : undefined;
    if (field === undefined) {
      i = skipValue(b, value);
      if (i < 0) return false;
    } else {
      if (at(b, value) !== QUOTE) return false;
      const close = stringEnd(b, value + 1);
      if (close < 0) return false;
      field.start = value + 1;
      field.end = close;
      field.unescaped = undefined;
      if (escaped) {
        field.unescaped = decodeEscapes(utf8Text(b, value + 1, close));
        if (field.unescaped === undefined) return false;
      }
      i = close + 1;
    }
    const next = nextMember(b, i);
    if (next === -2) return true;
    if (next < 0) return false;
    i = next;
  }
}

/**
 * Finds the identity fields of the object in `b` from `start` to `end`; false when it cannot
 * be sure of them (see {@link readItemIdentity}).
 */
function scanItem(b: Buffer, start: number, end: number, fields: IdentityFields): boolean {
  fields.name.reset();
  fields.namespace.reset();
  fields.resourceVersion.reset();
  limit = end;
  let i = skipWhitespace(b, start);
  if (at(b, i) !== OPEN_BRACE) return false;
  i = skipWhitespace(b, i + 1);
  if (at(b, i) === CLOSE_BRACE) return false; // `{}`
  let sawMetadata = false;
  for (;;) {
    const value = readKey(b, i);
    if (value < 0) return false;
    if (keyIs(b, 'metadata')) {
      if (sawMetadata) return false;
      sawMetadata = true;
      if (!readMetadata(b, value, fields)) return false;
      i = memberEnd;
    } else {
      i = skipValue(b, value);
      if (i < 0) return false;
    }
    const next = nextMember(b, i);
    if (next === -2) break;
    if (next < 0) return false;
    i = next;
  }
  if (skipWhitespace(b, memberEnd) !== limit) return false;
  return (
    fields.name.present &&
    !fields.name.isEmpty &&
    fields.resourceVersion.present &&
    !fields.resourceVersion.isEmpty
  );
}

/**
 * Reads list items' identities for the list decoder: {@link read} gives an identity whose
 * fields are decoded from the item's bytes only when asked for, so a cache that looks items
 * up by {@link ListItemIdentity.key} and checks them with
 * {@link ListItemIdentity.isIdentityOf} allocates one string per item. The identity is the
 * same object for every item: it describes the item read last, until {@link release}.
 */
export class ItemIdentityReader implements ListItemIdentity {
  readonly #fields: IdentityFields = {
    name: new FieldRange(),
    namespace: new FieldRange(),
    resourceVersion: new FieldRange(),
  };
  #bytes: Buffer | undefined;
  /** A buffer `key` joins namespace and name in, to make the key one string. */
  #scratch = Buffer.allocUnsafeSlow(128);

  get name(): string {
    return this.#field(this.#fields.name);
  }

  get namespace(): string | undefined {
    const ns = this.#fields.namespace;
    return ns.present && !ns.isEmpty ? this.#field(ns) : undefined;
  }

  get resourceVersion(): string {
    return this.#field(this.#fields.resourceVersion);
  }

  #field(range: FieldRange): string {
    if (this.#bytes === undefined) throw new Error('ItemIdentityReader: no item read');
    return range.decode(this.#bytes);
  }

  /**
   * Reads the identity of the object in `b` from `start` to `end`: this reader, describing
   * it, or `undefined` when it cannot be sure of it (see {@link readItemIdentity}).
   */
  read(b: Buffer, start: number, end: number): ItemIdentityReader | undefined {
    this.#bytes = b;
    if (scanItem(b, start, end, this.#fields)) return this;
    this.#bytes = undefined;
    return undefined;
  }

  /** Lets go of the item's bytes. */
  release(): void {
    this.#bytes = undefined;
  }

  get key(): string {
    const b = this.#bytes;
    if (b === undefined) throw new Error('ItemIdentityReader: no item read');
    const { name, namespace: ns } = this.#fields;
    if (!ns.present || ns.isEmpty) return name.decode(b);
    if (ns.unescaped !== undefined || name.unescaped !== undefined) {
      return `${ns.decode(b)}/${name.decode(b)}`;
    }
    // Both are raw UTF-8 between ASCII quotes: joined with `/`, they decode as the two apart.
    const nsLength = ns.end - ns.start;
    const length = nsLength + 1 + name.end - name.start;
    if (this.#scratch.length < length) this.#scratch = Buffer.allocUnsafeSlow(length * 2);
    const scratch = this.#scratch;
    b.copy(scratch, 0, ns.start, ns.end);
    scratch[nsLength] = SLASH;
    b.copy(scratch, nsLength + 1, name.start, name.end);
    return utf8Text(scratch, 0, length);
  }

  isIdentityOf(obj: unknown): boolean {
    const b = this.#bytes;
    if (b === undefined || typeof obj !== 'object' || obj === null) return false;
    const meta = (obj as { metadata?: unknown }).metadata;
    if (typeof meta !== 'object' || meta === null) return false;
    const { name, namespace, resourceVersion } = meta as Record<string, unknown>;
    const fields = this.#fields;
    if (!fields.name.equals(b, name) || !fields.resourceVersion.equals(b, resourceVersion)) {
      return false;
    }
    const ns = fields.namespace;
    if (!ns.present || ns.isEmpty) return namespace === undefined || namespace === '';
    return ns.equals(b, namespace);
  }
}

const SLASH = 0x2f;

/**
 * Reads `metadata.name`, `metadata.namespace` and `metadata.resourceVersion` from the JSON
 * bytes of one object (`b` from `start` to `end`), as JSON.parse would see them. Returns
 * `undefined` when it cannot be sure: the bytes are not one object, it has no `metadata`
 * object with a non-empty string name and resourceVersion, an identity field is not a string
 * or has an invalid escape, a key of the object or of its `metadata` has an escape, or the
 * object repeats `metadata` (JSON.parse keeps the last). It reads the object's top level to
 * its end and `metadata` in full, and skips every other value without checking its grammar.
 */
export function readItemIdentity(
  b: Buffer,
  start = 0,
  end: number = b.length,
): ListItemIdentity | undefined {
  const reader = new ItemIdentityReader();
  if (reader.read(b, start, end) === undefined) return undefined;
  const { name, namespace, resourceVersion } = reader;
  return namespace === undefined ? { name, resourceVersion } : { name, namespace, resourceVersion };
}
