/** Protobuf wire-format writing, field by field: enough for the messages the server sends. */

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

/** A `double` field (64-bit, little-endian). */
export function doubleField(number: number, value: number): Buffer {
  const body = Buffer.alloc(8);
  body.writeDoubleLE(value);
  return Buffer.concat([varint((number << 3) | 1), body]);
}

/** An embedded message made of `parts`. */
export function messageField(number: number, ...parts: Buffer[]): Buffer {
  return bytesField(number, Buffer.concat(parts));
}
