import { describe, expect, it } from 'vitest';
import { pod, type TestPod } from '../test/helpers.js';
import { AwaitingHandler } from './awaiting-handler.js';
import { deletedFinalStateUnknown, deletionHandlingMetaNamespaceKeyFunc as keyOf } from './keys.js';
import { processDeltaBatch, processDeltas } from './process-deltas.js';
import { CacheIndexer } from './store.js';

describe('processDeltaBatch on an indexer', () => {
  it('stores the whole batch before the first handler call (one transaction)', () => {
    const store = new CacheIndexer<TestPod>(keyOf);
    store.add(pod('gone', '1'));
    store.add(pod('changed', '1'));
    const seen: string[] = [];
    const keysNow = () => store.listKeys().sort().join(',');
    const deltas = [
      { type: 'Added' as const, object: pod('new', '2') },
      { type: 'Updated' as const, object: pod('changed', '3') },
      { type: 'Deleted' as const, object: pod('gone', '4') },
    ];
    const result = processDeltaBatch(
      {
        onAdd: (obj, initial) =>
          void seen.push(`add ${obj.metadata.name} ${initial} [${keysNow()}]`),
        onUpdate: (old, obj) =>
          void seen.push(
            `update ${obj.metadata.name} ${old.metadata.resourceVersion}->${obj.metadata.resourceVersion} [${keysNow()}]`,
          ),
        onDelete: (obj) =>
          void seen.push(`delete ${(obj as TestPod).metadata.name} [${keysNow()}]`),
      },
      store,
      deltas,
      false,
      deltas.map((d) => keyOf(d.object)),
    );
    expect(result).toBeUndefined();
    const after = '[default/changed,default/new]';
    expect(seen).toEqual([
      `add new false ${after}`,
      `update changed 1->3 ${after}`,
      `delete gone ${after}`,
    ]);
    // The store is at the resourceVersion of the batch's last object.
    expect(store.lastStoreSyncResourceVersion()).toBe('4');
  });

  it("waits for a handler promise before the next notification (newInformer's handler)", async () => {
    const store = new CacheIndexer<TestPod>(keyOf);
    const seen: string[] = [];
    let release!: () => void;
    const deltas = [
      { type: 'Added' as const, object: pod('a', '1') },
      { type: 'Added' as const, object: pod('b', '2') },
    ];
    const handler = new AwaitingHandler<TestPod>(
      {
        onAdd: (obj) => {
          seen.push(obj.metadata.name);
          if (obj.metadata.name === 'a') return new Promise<void>((r) => (release = r));
        },
      },
      (err) => {
        throw err;
      },
    );
    processDeltaBatch(handler, store, deltas, false, ['default/a', 'default/b']);
    expect(seen).toEqual(['a']);
    release();
    await handler.pending;
    expect(seen).toEqual(['a', 'b']);
    expect(handler.pending).toBeUndefined();
  });
});

describe('processDeltas with a Bookmark delta', () => {
  it('hands the resourceVersion to the store and notifies nothing', () => {
    const store = new CacheIndexer<TestPod>(keyOf);
    const seen: string[] = [];
    const handler = {
      onAdd: () => void seen.push('add'),
      onDelete: () => void seen.push('delete'),
    };
    processDeltas(handler, store, [{ type: 'Added', object: pod('a', '5') }]);
    processDeltas(handler, store, [{ type: 'Bookmark', object: { resourceVersion: '9' } }]);
    expect(store.lastStoreSyncResourceVersion()).toBe('9');
    processDeltas(handler, store, [
      { type: 'Deleted', object: deletedFinalStateUnknown('default/a', pod('a', '5')) },
    ]);
    expect(seen).toEqual(['add', 'delete']);
    // A tombstone has no metadata of its own: the store stays at the bookmark.
    expect(store.lastStoreSyncResourceVersion()).toBe('9');
  });
});
