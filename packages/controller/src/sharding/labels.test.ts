import { describe, expect, it } from 'vitest';
import { parseTakeoverRecord, parseTakeoversDone } from './labels.js';

describe('parseTakeoverRecord', () => {
  it('reads the record the sharder writes', () => {
    const record = { tenure: 't-b', view: { a: 't-a', c: 't-c' }, virtualNodes: 500 };
    expect(parseTakeoverRecord(JSON.stringify(record))).toEqual(record);
    expect(
      parseTakeoverRecord(JSON.stringify({ tenure: 't-b', view: {}, virtualNodes: 1 })),
    ).toEqual({ tenure: 't-b', view: {}, virtualNodes: 1 });
  });

  it.each([
    ['no annotation', undefined],
    ['not JSON', '{tenure'],
    ['JSON null', 'null'],
    ['no tenure', JSON.stringify({ view: { a: 't-a' }, virtualNodes: 100 })],
    // Written by a version that did not name its ring: which one is not known.
    ['no ring size', JSON.stringify({ tenure: 't-b', view: { a: 't-a' } })],
    ['a ring size of 0', JSON.stringify({ tenure: 't-b', view: { a: 't-a' }, virtualNodes: 0 })],
    ['a fractional ring size', JSON.stringify({ tenure: 't-b', view: {}, virtualNodes: 1.5 })],
    // Every survivor would build it: 2 members at a billion points each.
    [
      'a ring too large to build',
      JSON.stringify({ tenure: 't-b', view: { a: 't-a', c: 't-c' }, virtualNodes: 1e9 }),
    ],
    ['an empty tenure', JSON.stringify({ tenure: '', view: { a: 't-a' }, virtualNodes: 100 })],
    ['no view', JSON.stringify({ tenure: 't-b', virtualNodes: 100 })],
    ['a view that is a list', JSON.stringify({ tenure: 't-b', view: ['a'], virtualNodes: 100 })],
    [
      'a member without a tenure',
      JSON.stringify({ tenure: 't-b', view: { a: '' }, virtualNodes: 100 }),
    ],
    [
      'a tenure that is no string',
      JSON.stringify({ tenure: 't-b', view: { a: 1 }, virtualNodes: 100 }),
    ],
  ])('is no record for %s', (_, raw) => {
    expect(parseTakeoverRecord(raw)).toBeUndefined();
  });
});

describe('parseTakeoversDone', () => {
  it('reads the tenures a survivor is done with', () => {
    expect([...parseTakeoversDone('t-b,t-c')]).toEqual(['t-b', 't-c']);
    expect([...parseTakeoversDone(undefined)]).toEqual([]);
    expect([...parseTakeoversDone(',t-b,')]).toEqual(['t-b']);
  });
});
