import { describe, expect, it } from 'vitest';
import { parseTakeoverRecord } from './labels.js';

describe('parseTakeoverRecord', () => {
  it('reads the record the sharder writes', () => {
    const record = { tenure: 't-b', view: { a: 't-a', c: 't-c' } };
    expect(parseTakeoverRecord(JSON.stringify(record))).toEqual(record);
    expect(parseTakeoverRecord(JSON.stringify({ tenure: 't-b', view: {} }))).toEqual({
      tenure: 't-b',
      view: {},
    });
  });

  it.each([
    ['no annotation', undefined],
    ['not JSON', '{tenure'],
    ['JSON null', 'null'],
    ['no tenure', JSON.stringify({ view: { a: 't-a' } })],
    ['an empty tenure', JSON.stringify({ tenure: '', view: { a: 't-a' } })],
    ['no view', JSON.stringify({ tenure: 't-b' })],
    ['a view that is a list', JSON.stringify({ tenure: 't-b', view: ['a'] })],
    ['a member without a tenure', JSON.stringify({ tenure: 't-b', view: { a: '' } })],
    ['a tenure that is no string', JSON.stringify({ tenure: 't-b', view: { a: 1 } })],
  ])('is no record for %s', (_, raw) => {
    expect(parseTakeoverRecord(raw)).toBeUndefined();
  });
});
