import type { ListItemIdentity } from '@kubets/rest';
import { describe, expect, it } from 'vitest';
import type { TestPod } from '../test/helpers.js';
import { pod } from '../test/helpers.js';
import type { KeyFunc } from './keys.js';
import { deletionHandlingMetaNamespaceKeyFunc } from './keys.js';
import { type ListerWatcher, type ListHints, reusingCachedItems } from './listwatch.js';
import { CacheIndexer } from './store.js';

/** The reuseItem hint `reusingCachedItems` gives a list-watch over `objects`. */
async function reuseHint(
  objects: TestPod[],
  keyFunc?: KeyFunc,
): Promise<(identity: ListItemIdentity) => TestPod | undefined> {
  const cache = new CacheIndexer<TestPod>(keyFunc ?? deletionHandlingMetaNamespaceKeyFunc, {});
  for (const obj of objects) cache.add(obj);
  let hints: ListHints<TestPod> | undefined;
  const inner: ListerWatcher<TestPod> = {
    list: async (_options, _signal, given) => {
      hints = given;
      return { metadata: {}, items: [] };
    },
    watch: async () => (async function* () {})(),
  };
  await reusingCachedItems(inner, cache).list({}, new AbortController().signal);
  const reuse = hints?.reuseItem;
  if (reuse === undefined) throw new Error('no reuseItem hint');
  return (identity) => reuse.call(hints, identity);
}

describe('reusingCachedItems', () => {
  it('hands back the cached object for the same name, namespace and resourceVersion', async () => {
    const cached = pod('a', '5');
    const reuse = await reuseHint([cached]);
    expect(reuse({ name: 'a', namespace: 'default', resourceVersion: '5' })).toBe(cached);
    expect(reuse({ name: 'a', namespace: 'default', resourceVersion: '6' })).toBeUndefined();
    expect(reuse({ name: 'b', namespace: 'default', resourceVersion: '5' })).toBeUndefined();
    expect(reuse({ name: 'a', namespace: 'other', resourceVersion: '5' })).toBeUndefined();
    expect(reuse({ name: 'a', resourceVersion: '5' })).toBeUndefined();
  });

  it('matches a cluster-scoped object, with or without an empty namespace', async () => {
    const node = { metadata: { name: 'n1', resourceVersion: '3' } } as TestPod;
    const reuse = await reuseHint([node]);
    expect(reuse({ name: 'n1', resourceVersion: '3' })).toBe(node);
    expect(reuse({ name: 'n1', namespace: 'default', resourceVersion: '3' })).toBeUndefined();
  });

  // The key only finds a candidate: a key function may map other identities to its key.
  it('checks every part of the identity against the object the key finds', async () => {
    const byName: KeyFunc = (obj) => (obj as TestPod).metadata.name.toLowerCase();
    const cached = pod('a', '5');
    const reuse = await reuseHint([cached], byName);
    expect(reuse({ name: 'a', namespace: 'default', resourceVersion: '5' })).toBe(cached);
    expect(reuse({ name: 'A', namespace: 'default', resourceVersion: '5' })).toBeUndefined();
    expect(reuse({ name: 'a', namespace: 'team', resourceVersion: '5' })).toBeUndefined();
    expect(reuse({ name: 'a', resourceVersion: '5' })).toBeUndefined();
  });

  it('gives no hint while the cache is empty: the first list has nothing to reuse', async () => {
    await expect(reuseHint([])).rejects.toThrow('no reuseItem hint');
  });

  it('decodes the item when the key function needs more than metadata', async () => {
    const byUid: KeyFunc = (obj) => {
      const uid = (obj as { metadata: { uid?: string } }).metadata.uid;
      if (uid === undefined) throw new Error('no uid');
      return uid;
    };
    const cached = { metadata: { name: 'a', uid: 'u1', resourceVersion: '5' } } as TestPod;
    const reuse = await reuseHint([cached], byUid);
    expect(reuse({ name: 'a', resourceVersion: '5' })).toBeUndefined();
  });
});
