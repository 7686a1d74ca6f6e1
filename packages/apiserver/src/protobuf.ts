import { isObject, type JsonObject, type JsonValue } from './patch.js';
import { type ProtoMessage, type ProtoType, protobufKinds } from './protobuf-types.js';
import { bytesField, messageField, varintField } from './protobuf-write.js';
import { ApiError, failure } from './status.js';

/** The four bytes that open every Kubernetes protobuf body: `k8s` and a zero. */
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Go's zero `time.Time` in Unix seconds, which Kubernetes writes for an unset timestamp. */
const GO_ZERO_TIME_SECONDS = -62135596800;

interface WireField {
  number: number;
  wireType: number;
  varint?: bigint;
  bytes?: Buffer;
}

/** Splits a message into its fields (varints, length-delimited and fixed-size values). */
function readFields(buf: Buffer, context: string): WireField[] {
  const fields: WireField[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (at >= buf.length) throw malformed(`${context}: truncated varint`);
      const byte = buf[at++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw malformed(`${context}: varint too long`);
    }
  };
  while (at < buf.length) {
    const key = Number(varint());
    const number = key >>> 3;
    const wireType = key & 7;
    if (wireType === 0) fields.push({ number, wireType, varint: varint() });
    else if (wireType === 2) {
      const length = Number(varint());
      if (at + length > buf.length) throw malformed(`${context}: truncated field ${number}`);
      fields.push({ number, wireType, bytes: buf.subarray(at, at + length) });
      at += length;
    } else if (wireType === 1 || wireType === 5) {
      const size = wireType === 1 ? 8 : 4;
      if (at + size > buf.length) throw malformed(`${context}: truncated field ${number}`);
      fields.push({ number, wireType, bytes: buf.subarray(at, at + size) });
      at += size;
    } else throw malformed(`${context}: unsupported wire type ${wireType} in field ${number}`);
  }
  return fields;
}

function malformed(message: string): ApiError {
  return new ApiError(failure(400, 'BadRequest', `invalid protobuf body: ${message}`));
}

/** Go's int32/int64 in a varint: two's complement over 64 bits. */
function signed(value: bigint): number {
  return Number(BigInt.asIntN(64, value));
}

function text(field: WireField): string {
  return (field.bytes ?? Buffer.alloc(0)).toString('utf8');
}

/** `{key, value}` entries of a map field. */
function mapEntry(field: WireField, valueType: 'string' | 'bytes' | 'quantity'): [string, string] {
  let key = '';
  let value = '';
  for (const part of readFields(field.bytes ?? Buffer.alloc(0), 'map entry')) {
    if (part.number === 1) key = text(part);
    else if (part.number === 2) {
      if (valueType === 'string') value = text(part);
      else if (valueType === 'bytes') value = (part.bytes ?? Buffer.alloc(0)).toString('base64');
      else value = quantity(part);
    }
  }
  return [key, value];
}

function quantity(field: WireField): string {
  const parts = readFields(field.bytes ?? Buffer.alloc(0), 'Quantity');
  return parts.find((p) => p.number === 1)
    ? text(parts.find((p) => p.number === 1) as WireField)
    : '0';
}

/** An RFC 3339 timestamp from `{seconds, nanos}`; undefined for Go's zero time (sent empty). */
function timestamp(field: WireField): string | undefined {
  const parts = readFields(field.bytes ?? Buffer.alloc(0), 'Time');
  let seconds = 0;
  for (const part of parts) {
    if (part.number === 1) seconds = signed(part.varint ?? 0n);
  }
  if (parts.length === 0 || seconds === GO_ZERO_TIME_SECONDS) return undefined;
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function fieldsV1(field: WireField): JsonValue {
  const raw = readFields(field.bytes ?? Buffer.alloc(0), 'FieldsV1').find((p) => p.number === 1);
  try {
    return JSON.parse(raw ? text(raw) : '{}') as JsonValue;
  } catch {
    throw malformed('FieldsV1: not JSON');
  }
}

function intOrString(field: WireField): JsonValue {
  let type = 0;
  let intVal = 0;
  let strVal = '';
  for (const part of readFields(field.bytes ?? Buffer.alloc(0), 'IntOrString')) {
    if (part.number === 1) type = signed(part.varint ?? 0n);
    else if (part.number === 2) intVal = signed(part.varint ?? 0n);
    else if (part.number === 3) strVal = text(part);
  }
  return type === 1 ? strVal : intVal;
}

function isZero(value: JsonValue | undefined): boolean {
  return value === undefined || value === '' || value === 0 || value === false;
}

/**
 * Decodes a message into the JSON kube-apiserver would serve for it: Go's zero values of
 * non-pointer fields are left out as `omitempty` leaves them out; unknown fields are refused
 * (415) rather than dropped.
 */
export function decodeMessage(buf: Buffer, message: ProtoMessage): JsonObject {
  const out: JsonObject = {};
  for (const field of readFields(buf, message.name)) {
    const spec = message.fields[field.number];
    if (!spec) {
      throw new ApiError(
        failure(
          415,
          'UnsupportedMediaType',
          `the in-memory API server cannot decode field ${field.number} of ${message.name} from protobuf; send this object as application/json`,
        ),
      );
    }
    const type = spec.type;
    let value: JsonValue | undefined;
    if (typeof type === 'object' && 'map' in type) {
      const [key, entryValue] = mapEntry(field, type.map);
      const map = (out[spec.json] ?? {}) as JsonObject;
      map[key] = entryValue;
      out[spec.json] = map;
      continue;
    }
    if (typeof type === 'object')
      value = decodeMessage(field.bytes ?? Buffer.alloc(0), type.message);
    else if (type === 'string') value = text(field);
    else if (type === 'bytes') value = (field.bytes ?? Buffer.alloc(0)).toString('base64');
    else if (type === 'bool') value = (field.varint ?? 0n) !== 0n;
    else if (type === 'int') value = signed(field.varint ?? 0n);
    else if (type === 'time') value = timestamp(field);
    else if (type === 'quantity') value = quantity(field);
    else if (type === 'fieldsV1') value = fieldsV1(field);
    else value = intOrString(field);
    if (spec.repeated) {
      const list = (out[spec.json] ?? []) as JsonValue[];
      if (value !== undefined) list.push(value);
      out[spec.json] = list;
    } else if (typeof type === 'object' || spec.pointer || !isZero(value)) {
      if (value !== undefined) out[spec.json] = value;
    }
  }
  return out;
}

/**
 * Decodes a `application/vnd.kubernetes.protobuf` request body (the `k8s\0` envelope around a
 * `runtime.Unknown`) for a resource of `kind` into the object's JSON. The built-in kinds
 * kubectl's typed `create` commands send are understood; custom resources get the 400 that
 * kube-apiserver 1.20 answers (it has no protobuf form for them); other built-in kinds are
 * refused with 415, naming JSON as the way to send them.
 */
export function decodeProtobufObject(
  body: Buffer,
  target: { kind: string; custom: boolean },
): JsonObject {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new ApiError(
      failure(
        400,
        'BadRequest',
        `the object provided is unrecognized (must be of type ${target.kind}): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (${body.subarray(0, MAGIC.length).toString('hex')})`,
      ),
    );
  }
  let apiVersion = '';
  let kind = '';
  let raw: Buffer = Buffer.alloc(0);
  for (const field of readFields(body.subarray(MAGIC.length), 'Unknown')) {
    if (field.number === 1) {
      for (const part of readFields(field.bytes ?? Buffer.alloc(0), 'TypeMeta')) {
        if (part.number === 1) apiVersion = text(part);
        else if (part.number === 2) kind = text(part);
      }
    } else if (field.number === 2) raw = field.bytes ?? Buffer.alloc(0);
  }
  const version = apiVersion.slice(apiVersion.lastIndexOf('/') + 1);
  if (target.custom) {
    throw new ApiError(
      failure(
        400,
        'BadRequest',
        `${kind} in version "${version}" cannot be handled as a ${target.kind}: Object 'Kind' is missing in 'object has no kind field '`,
      ),
    );
  }
  const message = protobufKinds[`${apiVersion}/${kind}`];
  if (!message) {
    throw new ApiError(
      failure(
        415,
        'UnsupportedMediaType',
        `the in-memory API server decodes protobuf only for ${Object.keys(protobufKinds).join(', ')} (got ${apiVersion} ${kind}); send this object as application/json`,
      ),
    );
  }
  return { apiVersion, kind, ...decodeMessage(raw, message) };
}

/** A value the protobuf form cannot carry (a field the schema does not list). */
class Unencodable extends Error {}

function encodeValue(number: number, type: ProtoType, value: JsonValue): Buffer {
  if (typeof type === 'object' && 'message' in type) {
    if (!isObject(value)) throw new Unencodable(`field ${number}`);
    return messageField(number, encodeMessage(value, type.message));
  }
  switch (type) {
    case 'string':
      return bytesField(number, String(value));
    case 'bytes':
      return bytesField(number, Buffer.from(String(value), 'base64'));
    case 'bool':
      return varintField(number, value === true);
    case 'int':
      return varintField(number, Number(value));
    case 'time': {
      const millis = Date.parse(String(value));
      if (Number.isNaN(millis)) throw new Unencodable(`time ${String(value)}`);
      return messageField(number, varintField(1, Math.floor(millis / 1000)));
    }
    case 'quantity':
      return messageField(number, bytesField(1, String(value)));
    case 'intOrString':
      return typeof value === 'string'
        ? messageField(number, varintField(1, 1), bytesField(3, value))
        : messageField(number, varintField(1, 0), varintField(2, Number(value)));
    case 'fieldsV1':
      return messageField(number, bytesField(1, JSON.stringify(value)));
    default:
      throw new Unencodable(`field ${number}`);
  }
}

/** The protobuf form of `obj` as `message`; throws {@link Unencodable} for an unlisted field. */
function encodeMessage(obj: JsonObject, message: ProtoMessage): Buffer {
  const numbers = new Map(Object.entries(message.fields).map(([n, f]) => [f.json, Number(n)]));
  for (const key of Object.keys(obj)) {
    if (!numbers.has(key) && obj[key] !== null) throw new Unencodable(`${message.name}.${key}`);
  }
  const parts: Buffer[] = [];
  for (const [n, spec] of Object.entries(message.fields).sort(
    ([a], [b]) => Number(a) - Number(b),
  )) {
    const value = obj[spec.json];
    if (value === undefined || value === null) continue;
    const number = Number(n);
    const type = spec.type;
    if (typeof type === 'object' && 'map' in type) {
      if (!isObject(value)) throw new Unencodable(spec.json);
      // Go writes map entries by sorted key.
      for (const key of Object.keys(value).sort()) {
        const entry = value[key];
        const valuePart =
          type.map === 'quantity'
            ? messageField(2, bytesField(1, String(entry)))
            : bytesField(
                2,
                type.map === 'bytes' ? Buffer.from(String(entry), 'base64') : String(entry),
              );
        parts.push(messageField(number, bytesField(1, key), valuePart));
      }
    } else if (spec.repeated) {
      if (!Array.isArray(value)) throw new Unencodable(spec.json);
      for (const item of value) parts.push(encodeValue(number, type, item));
    } else parts.push(encodeValue(number, type, value));
  }
  return Buffer.concat(parts);
}

/**
 * An object as kube-apiserver's protobuf serializer writes it (`k8s\0`, then a runtime.Unknown
 * with its apiVersion, kind and message), or undefined when the server cannot write its kind, or
 * a field of it, in protobuf (the caller answers JSON instead).
 */
export function encodeProtobufObject(obj: JsonObject): Buffer | undefined {
  const apiVersion = String(obj.apiVersion ?? '');
  const kind = String(obj.kind ?? '');
  const message = protobufKinds[`${apiVersion}/${kind}`];
  if (!message) return undefined;
  const { apiVersion: _apiVersion, kind: _kind, ...fields } = obj;
  try {
    const raw = encodeMessage(fields, message);
    return Buffer.concat([
      MAGIC,
      messageField(1, bytesField(1, apiVersion), bytesField(2, kind)),
      bytesField(2, raw),
      bytesField(3, ''),
      bytesField(4, ''),
    ]);
  } catch (error) {
    if (error instanceof Unencodable) return undefined;
    throw error;
  }
}
