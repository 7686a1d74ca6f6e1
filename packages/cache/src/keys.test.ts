import { describe, expect, it } from 'vitest';
import {
  deletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
  isDeletedFinalStateUnknown,
  metaNamespaceKeyFunc,
  objectKey,
  splitMetaNamespaceKey,
} from './keys.js';

describe('metaNamespaceKeyFunc', () => {
  it('keys namespaced objects as ns/name and cluster-scoped ones as name', () => {
    expect(metaNamespaceKeyFunc({ metadata: { namespace: 'default', name: 'a' } })).toBe(
      'default/a',
    );
    expect(metaNamespaceKeyFunc({ metadata: { name: 'node-1' } })).toBe('node-1');
    expect(metaNamespaceKeyFunc({ metadata: { namespace: '', name: 'node-1' } })).toBe('node-1');
    expect(objectKey({ metadata: { namespace: 'x', name: 'y' } })).toBe('x/y');
  });

  it('returns strings unchanged (explicit keys)', () => {
    expect(metaNamespaceKeyFunc('ns/already-a-key')).toBe('ns/already-a-key');
  });

  it('throws for values without metadata', () => {
    expect(() => metaNamespaceKeyFunc({ kind: 'Pod' })).toThrow(TypeError);
    expect(() => metaNamespaceKeyFunc(null)).toThrow(TypeError);
    expect(() => metaNamespaceKeyFunc(deletedFinalStateUnknown('a/b', undefined))).toThrow();
  });
});

describe('DeletedFinalStateUnknown', () => {
  it('is recognized by brand, also for a structurally identical object', () => {
    const t = deletedFinalStateUnknown('default/a', { metadata: { name: 'a' } });
    expect(isDeletedFinalStateUnknown(t)).toBe(true);
    expect(isDeletedFinalStateUnknown({ ...t })).toBe(true);
    expect(isDeletedFinalStateUnknown({ key: 'default/a', obj: undefined })).toBe(false);
    expect(isDeletedFinalStateUnknown(undefined)).toBe(false);
  });

  it('deletionHandlingMetaNamespaceKeyFunc uses the tombstone key', () => {
    const t = deletedFinalStateUnknown('default/a', undefined);
    expect(deletionHandlingMetaNamespaceKeyFunc(t)).toBe('default/a');
    expect(deletionHandlingMetaNamespaceKeyFunc({ metadata: { namespace: 'n', name: 'b' } })).toBe(
      'n/b',
    );
  });
});

describe('splitMetaNamespaceKey', () => {
  it('splits ns/name and name', () => {
    expect(splitMetaNamespaceKey('default/a')).toEqual({ namespace: 'default', name: 'a' });
    expect(splitMetaNamespaceKey('node-1')).toEqual({ namespace: '', name: 'node-1' });
  });

  it('rejects malformed keys', () => {
    expect(() => splitMetaNamespaceKey('a/b/c')).toThrow(/unexpected key format/);
    expect(() => splitMetaNamespaceKey('/b')).toThrow(TypeError);
    expect(() => splitMetaNamespaceKey('a/')).toThrow(TypeError);
  });
});
