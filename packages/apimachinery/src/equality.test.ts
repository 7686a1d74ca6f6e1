import { describe, expect, it } from 'vitest';
import { jsonEqual } from './equality.js';

describe('jsonEqual', () => {
  it('ignores the order of keys, at every level', () => {
    const written = { observedGeneration: 2, conditions: [{ type: 'Ready', status: 'True' }] };
    const read = { conditions: [{ status: 'True', type: 'Ready' }], observedGeneration: 2 };
    expect(JSON.stringify(written)).not.toBe(JSON.stringify(read));
    expect(jsonEqual(written, read)).toBe(true);
  });

  it('treats a field set to undefined as absent, as JSON does', () => {
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(jsonEqual({ a: undefined }, { b: undefined })).toBe(true);
  });

  it('tells apart what JSON tells apart', () => {
    expect(jsonEqual({ a: 1 }, { a: 2 })).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(jsonEqual({ a: 1 }, { b: 1 })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
    expect(jsonEqual({ a: [] }, { a: {} })).toBe(false);
    expect(jsonEqual('1', 1)).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual(undefined, null)).toBe(false);
  });
});
