import { describe, expect, it } from 'vitest';
import { createMergePatch } from './merge-patch.js';

describe('createMergePatch', () => {
  it.each([
    {
      name: 'nothing changed',
      before: { a: 1, b: { c: [1] } },
      after: { a: 1, b: { c: [1] } },
      patch: {},
    },
    { name: 'a changed scalar', before: { a: 1 }, after: { a: 2 }, patch: { a: 2 } },
    {
      name: 'a new nested field',
      before: { m: { x: 1 } },
      after: { m: { x: 1, y: 2 } },
      patch: { m: { y: 2 } },
    },
    {
      name: 'a removed field',
      before: { m: { x: 1, y: 2 } },
      after: { m: { x: 1 } },
      patch: { m: { y: null } },
    },
    {
      name: 'an undefined field counts as removed',
      before: { a: 1 },
      after: { a: undefined },
      patch: { a: null },
    },
    {
      name: 'an array is replaced whole',
      before: { l: [1, 2] },
      after: { l: [1, 3] },
      patch: { l: [1, 3] },
    },
    {
      name: 'an object replaced by a scalar',
      before: { m: { x: 1 } },
      after: { m: 'flat' },
      patch: { m: 'flat' },
    },
  ])('$name', ({ before, after, patch }) => {
    expect(createMergePatch(before, after)).toEqual(patch);
  });
});
