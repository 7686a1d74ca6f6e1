/**
 * kube-apiserver's 400 for a built-in object whose JSON has a wrong type somewhere (a string
 * where an integer is expected, an object where a list is, ...): its decoder (json-iterator)
 * walks the body in text order against the Go types and stops at the first value it cannot
 * read, naming the path of Go types and fields that led there and the byte it stood at.
 * The types come from `wire-types.generated.ts` (OpenAPI-derived, not hand-written); the
 * messages were probed on kube-apiserver 1.20.
 */

import { iteratorContext } from './go-decode.js';
import { microTimeParseError } from './go-time.js';
import { badRequest } from './status.js';
import type { Target } from './target.js';
import { type WireStruct, wireRoots, wireTypes } from './wire-types.generated.js';

/**
 * A decoding failure: json-iterator's message and the byte offset it reports. A failure of a
 * value that was read to its end (`consumed`: an unmarshaler such as MicroTime's refused it)
 * lets the decoder go on with the next fields, each of which adds its name to the message.
 */
class DecodeFailure extends Error {
  constructor(
    message: string,
    readonly head: number,
    readonly consumed = false,
  ) {
    super(message);
  }
}

/** Go's byte for a character outside digits: json-iterator prints it as an invalid byte. */
const NOT_A_DIGIT = '\ufffd';
const QUANTITY_FORMAT = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const QUANTITY_SUFFIX = /^(|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][-+]?[0-9]+)$/;

/** Reads the raw bytes of a JSON body, tracking the offset json-iterator would stand at. */
class Reader {
  head = 0;
  constructor(readonly buf: Buffer) {}

  skipSpace(): void {
    while (this.head < this.buf.length) {
      const c = this.buf[this.head];
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.head++;
    }
  }

  /** The next non-space character, not consumed. */
  peek(): string {
    this.skipSpace();
    return this.head < this.buf.length ? String.fromCharCode(this.buf[this.head] as number) : '';
  }

  /** Consumes the next character and fails with `${what}${char}` (json-iterator's wording). */
  failAtNext(what: string): never {
    const c = this.peek();
    this.head++;
    throw new DecodeFailure(`${what}${c}`, this.head);
  }

  readString(): void {
    this.head++; // opening quote
    while (this.head < this.buf.length) {
      const c = this.buf[this.head++];
      if (c === 0x5c) this.head++;
      else if (c === 0x22) return;
    }
  }

  /** Skips one JSON value of any type. */
  skipValue(): void {
    const c = this.peek();
    if (c === '"') {
      this.readString();
      return;
    }
    if (c === '{' || c === '[') {
      const close = c === '{' ? 0x7d : 0x5d;
      this.head++;
      this.skipSpace();
      if (this.buf[this.head] === close) {
        this.head++;
        return;
      }
      for (;;) {
        if (c === '{') {
          this.peek();
          this.readString();
          this.peek();
          this.head++; // colon
        }
        this.skipValue();
        this.skipSpace();
        const next = this.buf[this.head++];
        if (next !== 0x2c) return;
      }
    }
    while (
      this.head < this.buf.length &&
      !/[\s,}\]]/.test(String.fromCharCode(this.buf[this.head] as number))
    ) {
      this.head++;
    }
  }

  /** The raw text of the value skipped from `start`. */
  textFrom(start: number): string {
    return this.buf.subarray(start, this.head).toString('utf8');
  }

  /** Reads `null` if it is next (every Go type accepts it). */
  readNull(): boolean {
    if (this.peek() !== 'n') return false;
    this.head += 4;
    return true;
  }
}

function decodeInteger(r: Reader, bits: 32 | 64): void {
  let c = r.peek();
  const name = bits === 32 ? 'readUint32' : 'readUint64';
  const negative = c === '-';
  if (negative) {
    r.head++;
    c = String.fromCharCode(r.buf[r.head] as number);
  }
  if (!/[0-9]/.test(c)) {
    r.head++;
    throw new DecodeFailure(`${name}: unexpected character: ${NOT_A_DIGIT}`, r.head);
  }
  const start = r.head;
  while (r.head < r.buf.length && /[0-9]/.test(String.fromCharCode(r.buf[r.head] as number))) {
    r.head++;
  }
  const digits = r.textFrom(start);
  const max = bits === 32 ? 2n ** 31n : 2n ** 63n;
  const value = BigInt(digits);
  if (value > max || (!negative && value === max)) {
    throw new DecodeFailure(`ReadInt${bits}: overflow: ${digits}`, r.head);
  }
  if (r.buf[r.head] === 0x2e) {
    throw new DecodeFailure('assertInteger: can not decode float as int', r.head);
  }
}

/** json's name of a value's type, as `json: cannot unmarshal <type> into ...` puts it. */
function jsonTypeName(text: string): string {
  const c = text.charAt(0);
  if (c === '{') return 'object';
  if (c === '[') return 'array';
  if (c === 't' || c === 'f') return 'bool';
  if (c === '"') return 'string';
  return `number ${text}`;
}

function decodeIntOrString(r: Reader): void {
  const start = r.head;
  r.skipValue();
  const text = r.textFrom(start);
  if (text.startsWith('"') || /^-?[0-9]+$/.test(text)) return;
  throw new DecodeFailure(
    `unmarshalerDecoder: json: cannot unmarshal ${jsonTypeName(text)} into Go value of type int32`,
    r.head,
  );
}

function decodeQuantity(r: Reader): void {
  const start = r.head;
  r.skipValue();
  const text = r
    .textFrom(start)
    .replace(/^"(.*)"$/, '$1')
    .trim();
  const match = QUANTITY_FORMAT.exec(text);
  let problem: string | undefined;
  if (!match) {
    problem = `quantities must match the regular expression '${QUANTITY_FORMAT.source}'`;
  } else if (!QUANTITY_SUFFIX.test(match[2] as string)) {
    problem = "unable to parse quantity's suffix";
  } else if (!/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$/.test(match[1] as string)) {
    problem = 'unable to parse numeric part of quantity';
  }
  if (problem) throw new DecodeFailure(`unmarshalerDecoder: ${problem}`, r.head);
}

/** metav1.MicroTime's `UnmarshalJSON`: a JSON string in Go's RFC3339Micro layout, exactly. */
function decodeMicroTime(r: Reader): void {
  const start = r.head;
  r.skipValue();
  const text = r.textFrom(start);
  let problem: string | undefined;
  if (!text.startsWith('"')) {
    const type = jsonTypeName(text).replace(/^number .*/, 'number');
    problem = `json: cannot unmarshal ${type} into Go value of type string`;
  } else {
    problem = microTimeParseError(JSON.parse(text) as string);
  }
  if (problem) throw new DecodeFailure(`unmarshalerDecoder: ${problem}`, r.head, true);
}

/** Go's name of a wire type, as json-iterator prefixes a slice's errors with it. */
function goName(type: string): string {
  if (type.startsWith('[]')) return `[]${goName(type.slice(2))}`;
  if (type.startsWith('map[string]')) return `map[string]${goName(type.slice(11))}`;
  if (type === 'bytes') return '[]uint8';
  return wireTypes[type]?.go ?? type;
}

/** Decodes one value of `type` from `r`, throwing a {@link DecodeFailure} at a wrong type. */
function decode(r: Reader, type: string, root = false): void {
  if (r.readNull()) return;
  if (type.startsWith('[]')) {
    const element = type.slice(2);
    try {
      if (r.peek() !== '[') r.failAtNext('decode slice: expect [ or n, but found ');
      r.head++;
      if (r.peek() === ']') {
        r.head++;
        return;
      }
      for (;;) {
        decode(r, element);
        if (r.peek() !== ',') break;
        r.head++;
      }
      r.head++;
    } catch (error) {
      if (error instanceof DecodeFailure) {
        throw new DecodeFailure(`${goName(type)}: ${error.message}`, error.head);
      }
      throw error;
    }
    return;
  }
  if (type.startsWith('map[string]')) {
    if (r.peek() !== '{') r.failAtNext('ReadMapCB: expect { or n, but found ');
    decodeObject(r, () => type.slice(11));
    return;
  }
  switch (type) {
    case 'string':
    case 'bytes':
      if (r.peek() !== '"') r.failAtNext('ReadString: expects " or n, but found ');
      r.readString();
      return;
    case 'bool': {
      const c = r.peek();
      if (c !== 't' && c !== 'f') r.failAtNext('ReadBool: expect t or f, but found ');
      r.skipValue();
      return;
    }
    case 'int32':
      decodeInteger(r, 32);
      return;
    case 'int64':
      decodeInteger(r, 64);
      return;
    case 'intstr':
      decodeIntOrString(r);
      return;
    case 'quantity':
      decodeQuantity(r);
      return;
    case 'microtime':
      decodeMicroTime(r);
      return;
  }
  const struct = wireTypes[type];
  if (!struct) {
    r.skipValue();
    return;
  }
  if (r.peek() !== '{') r.failAtNext('readObjectStart: expect { or n, but found ');
  decodeStruct(r, struct, root);
}

/**
 * Decodes a struct's members. After a failure of a value read to its end, json-iterator goes
 * on: each later field it reads wraps the message in its Go name (`kind` and `apiVersion` of a
 * top-level object as `TypeMeta: Kind`), until a struct, list or map field, which ends the
 * decoding there (probed on 1.20 with MicroTime fields).
 */
function decodeStruct(r: Reader, struct: WireStruct, root: boolean): void {
  let pending: DecodeFailure | undefined;
  const wrapPending = (prefix: string): void => {
    if (pending) pending = new DecodeFailure(`${prefix}${pending.message}`, pending.head, true);
  };
  decodeObject(r, (key) => {
    const field = struct.fields[key];
    if (pending) {
      const typeMeta = root && (key === 'kind' || key === 'apiVersion');
      if (!field && !typeMeta) return undefined;
      r.skipValue();
      if (typeMeta) wrapPending(`TypeMeta: ${key === 'kind' ? 'Kind' : 'APIVersion'}: `);
      else {
        const [goField, type] = field as [string, string];
        const nested = wireTypes[type];
        if (nested || type.startsWith('[]') || type.startsWith('map[')) {
          const inner = nested ? `${nested.go}.` : '';
          throw new DecodeFailure(
            `${struct.go}.${goField}: ${inner}${pending.message}`,
            pending.head,
          );
        }
        wrapPending(`${goField}: `);
      }
      return null;
    }
    if (!field) return undefined;
    try {
      decode(r, field[1]);
    } catch (error) {
      if (!(error instanceof DecodeFailure)) throw error;
      if (!error.consumed) {
        throw new DecodeFailure(`${struct.go}.${field[0]}: ${error.message}`, error.head);
      }
      pending = new DecodeFailure(`${field[0]}: ${error.message}`, error.head, true);
    }
    return null;
  });
  if (pending) throw new DecodeFailure(`${struct.go}.${pending.message}`, pending.head, true);
}

/**
 * Decodes an object's members: `member(key)` decodes the value and returns null, or returns
 * undefined to skip it, or names the type to decode it as.
 */
function decodeObject(r: Reader, member: (key: string) => string | null | undefined): void {
  r.head++;
  if (r.peek() === '}') {
    r.head++;
    return;
  }
  for (;;) {
    r.peek();
    const keyStart = r.head;
    r.readString();
    const key = JSON.parse(r.textFrom(keyStart)) as string;
    r.peek();
    r.head++; // colon
    const type = member(key);
    if (type === undefined) r.skipValue();
    else if (type !== null) decode(r, type);
    if (r.peek() !== ',') break;
    r.head++;
  }
  r.head++;
}

/**
 * Throws kube-apiserver's 400 when the request text `raw` of a built-in object has a value
 * of the wrong JSON type for its field (custom resources are decoded without types).
 */
export function checkWireTypes(target: Target, raw: string): void {
  const { definition, version } = target;
  if (definition.custom) return;
  const root = wireRoots[`${definition.group}/${version}/${definition.kind}`];
  if (!root) return;
  const reader = new Reader(Buffer.from(raw, 'utf8'));
  try {
    decode(reader, root, true);
  } catch (error) {
    if (!(error instanceof DecodeFailure)) throw error;
    const kind = definition.kind;
    throw badRequest(
      `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${error.message}${iteratorContext(raw, error.head)}`,
    );
  }
}
