import type { HasObjectMeta } from '@kubets/apimachinery';
import { thrownBy } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { addFinalizer, containsFinalizer, removeFinalizer } from './index.js';

const withFinalizers = (...finalizers: string[]): HasObjectMeta => ({
  metadata: { name: 'deploy', finalizers },
});

describe('finalizers', () => {
  it.each([
    { op: 'add', name: 'adds a missing finalizer', before: [], changed: true, after: ['fin'] },
    { op: 'add', name: 'adds after the others', before: ['a'], changed: true, after: ['a', 'fin'] },
    { op: 'add', name: 'does not add it twice', before: ['fin'], changed: false, after: ['fin'] },
    { op: 'remove', name: 'leaves a list without it', before: ['a'], changed: false, after: ['a'] },
    { op: 'remove', name: 'removes it', before: ['a', 'fin'], changed: true, after: ['a'] },
    {
      op: 'remove',
      name: 'removes every copy',
      before: ['fin', 'a', 'fin'],
      changed: true,
      after: ['a'],
    },
  ])('$op: $name', ({ op, before, changed, after }) => {
    const obj = withFinalizers(...before);
    const apply = op === 'add' ? addFinalizer : removeFinalizer;
    expect(apply(obj, 'fin')).toBe(changed);
    expect(obj.metadata?.finalizers).toEqual(after);
    expect(containsFinalizer(obj, 'fin')).toBe(op === 'add');
  });

  it('addFinalizer creates metadata when there is none', () => {
    const obj: HasObjectMeta = {};
    expect(addFinalizer(obj, 'fin')).toBe(true);
    expect(obj.metadata?.finalizers).toEqual(['fin']);
  });

  it('removeFinalizer on an object without finalizers changes nothing', () => {
    const obj: HasObjectMeta = {};
    expect(removeFinalizer(obj, 'fin')).toBe(false);
    expect(obj).toEqual({});
  });

  it('refuses an empty finalizer name', () => {
    expect(String(thrownBy(() => addFinalizer({}, '')))).toContain(
      'finalizer must be a non-empty string, got ""',
    );
  });
});
