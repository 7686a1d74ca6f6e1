import { describe, expect, it } from 'vitest';
import { openApiV2Protobuf } from './openapi-protobuf.js';

/** `bytes` as hex, with `'text'` runs written as their UTF-8 bytes. */
const hex = (...parts: (string | number)[]): string =>
  parts
    .map((p) =>
      typeof p === 'number' ? p.toString(16).padStart(2, '0') : Buffer.from(p).toString('hex'),
    )
    .join('');

describe('openApiV2Protobuf', () => {
  it('writes swagger, info and each definition as gnostic’s openapi.v2 messages', () => {
    const bytes = openApiV2Protobuf({
      swagger: '2.0',
      info: { title: 'K', version: 'v1' },
      definitions: { A: { type: 'string', required: ['x'] } },
    });
    expect(bytes.toString('hex')).toBe(
      hex(
        ...[0x0a, 3, '2.0'], // swagger = 1
        ...[0x12, 7, 0x0a, 1, 'K', 0x12, 2, 'v1'], // info = 2 {title = 1, version = 2}
        // definitions = 9 {additional_properties = 1 {name = 1, value = 2 Schema}}
        ...[0x4a, 22, 0x0a, 20, 0x0a, 1, 'A', 0x12, 15],
        ...[0xb2, 0x01, 8, 0x0a, 6, 'string'], // type = 22 {value = 1}
        ...[0x9a, 0x01, 1, 'x'], // required = 19
      ),
    );
  });

  it('writes references, properties, items, maps, numbers and extensions of a schema', () => {
    // Everything before the schema's own fields, as written for an empty schema.
    const before = openApiV2Protobuf({ definitions: { S: {} } }).length;
    const schema = (s: object): string =>
      openApiV2Protobuf({ definitions: { S: s as never } })
        .subarray(before)
        .toString('hex');
    expect(schema({ $ref: '#/d/B' })).toBe(hex(0x0a, 5, '#/d/B'));
    expect(schema({ description: 'd' })).toBe(hex(0x22, 1, 'd'));
    expect(schema({ maximum: 1 })).toBe(hex(0x39, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f));
    expect(schema({ maxLength: 300 })).toBe(hex(0x58, 0xac, 0x02));
    expect(schema({ properties: { p: { format: 'f' } } })).toBe(
      hex(0xca, 0x01, 10, 0x0a, 8, 0x0a, 1, 'p', 0x12, 3, 0x12, 1, 'f'),
    );
    expect(schema({ items: { format: 'f' } })).toBe(hex(0xba, 0x01, 5, 0x0a, 3, 0x12, 1, 'f'));
    expect(schema({ additionalProperties: { format: 'f' } })).toBe(
      hex(0xaa, 0x01, 5, 0x0a, 3, 0x12, 1, 'f'),
    );
    expect(schema({ additionalProperties: true })).toBe(hex(0xaa, 0x01, 2, 0x10, 1));
    expect(schema({ 'x-k': [{ a: 1 }] })).toBe(
      hex(0xfa, 0x01, 18, 0x0a, 3, 'x-k', 0x12, 11, 0x12, 9, '[{"a":1}]'),
    );
    expect(schema({ nullable: true, oneOf: [] })).toBe('');
  });
});
