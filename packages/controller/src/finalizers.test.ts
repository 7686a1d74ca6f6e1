import type { HasObjectMeta } from '@kubets/apimachinery';
import { thrownBy } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { addFinalizer, containsFinalizer, removeFinalizer } from './index.js';

const withFinalizers = (...finalizers: string[]): HasObjectMeta => ({
  metadata: { name: 'deploy', finalizers },
});

describe('finalizers', () => {
  it.each([
    { name: 'adds a missing finalizer', before: [], changed: true, after: ['fin'] },
    { name: 'adds after the others', before: ['a'], changed: true, after: ['a', 'fin'] },
    { name: 'does not add it twice', before: ['fin'], changed: false, after: ['fin'] },
  ])('addFinalizer $name', ({ before, changed, after }) => {
    const obj = withFinalizers(...before);
    expect(addFinalizer(obj, 'fin')).toBe(changed);
    expect(obj.metadata?.finalizers).toEqual(after);
    expect(containsFinalizer(obj, 'fin')).toBe(true);
  });

  it('addFinalizer creates metadata when there is none', () => {
    const obj: HasObjectMeta = {};
    expect(addFinalizer(obj, 'fin')).toBe(true);
    expect(obj.metadata?.finalizers).toEqual(['fin']);
  });

  it.each([
    { name: 'leaves a list without it', before: ['a'], changed: false, after: ['a'] },
    { name: 'removes it', before: ['a', 'fin'], changed: true, after: ['a'] },
    { name: 'removes every copy', before: ['fin', 'a', 'fin'], changed: true, after: ['a'] },
  ])('removeFinalizer $name', ({ before, changed, after }) => {
    const obj = withFinalizers(...before);
    expect(removeFinalizer(obj, 'fin')).toBe(changed);
    expect(obj.metadata?.finalizers).toEqual(after);
    expect(containsFinalizer(obj, 'fin')).toBe(false);
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
