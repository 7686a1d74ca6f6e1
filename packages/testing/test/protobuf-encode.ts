/**
 * A tiny protobuf writer for tests: enough to build the bodies typed Go clients send
 * (`k8s\0` + runtime.Unknown around a message), field by field.
 */

function varint(value: number | bigint): Buffer {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return Buffer.from(out);
}

/** A length-delimited field: a string, bytes or an embedded message. */
export function bytesField(number: number, value: string | Buffer): Buffer {
  const body = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.concat([varint((number << 3) | 2), varint(body.length), body]);
}

/** A varint field: an integer or a bool. */
export function varintField(number: number, value: number | boolean): Buffer {
  return Buffer.concat([
    varint(number << 3),
    varint(typeof value === 'boolean' ? Number(value) : value),
  ]);
}

/** An embedded message made of `parts`. */
export function messageField(number: number, ...parts: Buffer[]): Buffer {
  return bytesField(number, Buffer.concat(parts));
}

/** One entry of a `map<string, string>` (or bytes) field. */
export function mapEntry(number: number, key: string, value: string | Buffer): Buffer {
  return messageField(number, bytesField(1, key), bytesField(2, value));
}

/** The whole body: the `k8s\0` prefix and a runtime.Unknown holding `raw` as `apiVersion`/`kind`. */
export function protobufBody(apiVersion: string, kind: string, ...raw: Buffer[]): Buffer {
  return Buffer.concat([
    Buffer.from('k8s\u0000', 'latin1'),
    messageField(1, bytesField(1, apiVersion), bytesField(2, kind)),
    bytesField(2, Buffer.concat(raw)),
  ]);
}
