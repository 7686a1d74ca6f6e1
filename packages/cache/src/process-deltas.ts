import type { Delta, DeltaType } from './delta.js';
import type { DeletedFinalStateUnknown } from './keys.js';
import { deletedFinalStateUnknown } from './keys.js';
import type { CacheIndexer } from './store.js';
import type { FIFODelta, ReplacedAllInfo } from './the-real-fifo.js';

/**
 * What {@link processDeltas} notifies, synchronously (a shared informer's fan-out to its
 * handlers' buffers): a `ResourceEventHandler` that returns nothing, whose `onUpdate` also
 * learns the type of the delta, because a shared informer hands a resync (`Sync`, or a
 * relist that found the object unchanged) only to the handlers due for one.
 */
export interface DeltaHandler<T> {
  /** An object appeared; `isInInitialList` is true for the objects of the first list. */
  onAdd?(obj: T, isInInitialList: boolean): void;
  /** An object changed; `deltaType` is what caused the update. */
  onUpdate?(oldObj: T, newObj: T, deltaType?: DeltaType): void;
  /** An object was deleted, or is missing from a relist (then `obj` is a tombstone). */
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void;
}

/**
 * Applies one key's deltas to `clientState` and notifies `handler`, oldest delta first
 * (client-go `processDeltas`, the one place an informer turns deltas into a cache and
 * notifications):
 *
 * - `Sync`, `Replaced`, `Added`, `Updated`: if the store holds an object under the key, it is
 *   replaced and `onUpdate(old, new)` is called; otherwise the object is added and
 *   `onAdd(obj, isInInitialList)` is called;
 * - `Deleted`: the object is removed and `onDelete(obj)` is called (`obj` may be a tombstone);
 * - `ReplacedAll` (a whole relist from a {@link RealFIFO}): the store is brought to the list
 *   first; then `onDelete` is called with a tombstone for every object missing from it, and
 *   `onUpdate`/`onAdd` for every listed object, in list order;
 * - `SyncAll` (a whole resync): `onUpdate(obj, obj)` for every stored object;
 * - `Bookmark`: the store's `bookmark` (when it has one) learns the resourceVersion; no
 *   notification.
 *
 * Every store change happens before the handler hears of it. A relist hands back the cached
 * object itself when it did not change (`reusingCachedItems`): it is not stored again, which
 * would only recompute its index entries.
 *
 * Synchronous, so a process loop draining the FIFO with `tryPop` costs no promise per
 * delta. Handler errors propagate; wrap the handler to report them.
 *
 * `key` is the key the FIFO filed the deltas under: the indexer is accessed by it rather than
 * by computing every object's key again (computed when not given); likewise the `keys` a
 * `ReplacedAll` carries.
 */
export function processDeltas<T>(
  handler: DeltaHandler<T>,
  clientState: CacheIndexer<T>,
  deltas: readonly FIFODelta<T>[],
  isInInitialList = false,
  key?: string,
): void {
  for (const delta of deltas) {
    if (delta.type === 'ReplacedAll') {
      processReplacedAll(handler, clientState, delta.object, isInInitialList);
    } else if (delta.type === 'Bookmark') {
      clientState.bookmark(delta.object.resourceVersion);
    } else if (delta.type === 'SyncAll') {
      for (const obj of clientState.list()) handler.onUpdate?.(obj, obj, 'Sync');
    } else {
      processDelta(handler, clientState, delta, isInInitialList, key);
    }
  }
}

/**
 * Applies a batch of deltas of distinct keys (client-go `processDeltasInBatch`);
 * `keys[i]` is the key of `deltas[i]`. The indexer takes the whole batch (its transaction,
 * by the keys the FIFO computed: every write first), and only then are the handlers
 * notified, in order: a handler sees the indexer with the whole batch applied.
 */
export function processDeltaBatch<T>(
  handler: DeltaHandler<T>,
  indexer: CacheIndexer<T>,
  deltas: readonly Delta<T>[],
  isInInitialList: boolean,
  keys: readonly string[],
): void {
  // The writes cannot fail (no key to compute), so they go to the indexer directly,
  // without a transaction record per delta.
  const olds = new Array<T | undefined>(deltas.length);
  for (let i = 0; i < deltas.length; i++) {
    const delta = deltas[i]!;
    const key = keys[i]!;
    if (delta.type === 'Deleted') {
      indexer.deleteByKey(key, delta.object);
      continue;
    }
    const old = indexer.getByKey(key);
    olds[i] = old;
    if (old !== delta.object) indexer.setByKey(key, delta.object as T);
  }
  for (let i = 0; i < deltas.length; i++) notify(handler, deltas[i]!, olds[i], isInInitialList);
}

/** Notifies `handler` of one delta already applied to the store, over `old`. */
export function notify<T>(
  handler: DeltaHandler<T>,
  delta: Delta<T>,
  old: T | undefined,
  isInInitialList: boolean,
): void {
  if (delta.type === 'Deleted') {
    handler.onDelete?.(delta.object);
    return;
  }
  const obj = delta.object as T;
  if (old === undefined) handler.onAdd?.(obj, isInInitialList);
  else handler.onUpdate?.(old, obj, delta.type);
}

/**
 * Reconciles the store with a whole relist (client-go `processReplacedAllInfo`), then
 * notifies: deletions first, then every listed object in list order.
 */
function processReplacedAll<T>(
  handler: DeltaHandler<T>,
  clientState: CacheIndexer<T>,
  info: ReplacedAllInfo<T>,
  isInInitialList: boolean,
): void {
  const objects = info.objects;
  const olds = new Array<T | undefined>(objects.length);
  // The store reflects the list before any handler hears of it.
  for (const tombstone of replaceInIndexer(clientState, info, olds)) handler.onDelete?.(tombstone);
  for (let i = 0; i < objects.length; i++) {
    const old = olds[i];
    const obj = objects[i]!;
    if (old === undefined) handler.onAdd?.(obj, isInInitialList);
    else handler.onUpdate?.(old, obj, 'Replaced');
  }
}

/**
 * Brings an indexer to a relist in place: objects missing from the list are removed and
 * returned as tombstones, changed ones stored; `olds` receives what each listed key held.
 * Unchanged objects (the very cached object, handed back by the relist) are not stored
 * again, and the indexes are never rebuilt as a whole.
 */
function replaceInIndexer<T>(
  indexer: CacheIndexer<T>,
  info: ReplacedAllInfo<T>,
  olds: (T | undefined)[],
): DeletedFinalStateUnknown<T>[] {
  const objects = info.objects;
  const keyFunc = indexer.keyFunc;
  const keys = info.keys ?? objects.map((obj) => keyFunc(obj));
  const listed = new Set(keys);
  const deletions: DeletedFinalStateUnknown<T>[] = [];
  // Indexed loops: this runs over the whole cache, and an iterator's results are garbage.
  const cachedKeys = indexer.listKeys();
  for (let i = 0; i < cachedKeys.length; i++) {
    const key = cachedKeys[i]!;
    if (!listed.has(key)) deletions.push(deletedFinalStateUnknown<T>(key, indexer.getByKey(key)));
  }
  for (let i = 0; i < objects.length; i++) olds[i] = indexer.getByKey(keys[i]!);
  for (let i = 0; i < deletions.length; i++) indexer.deleteByKey(deletions[i]!.key);
  for (let i = 0; i < objects.length; i++) {
    if (olds[i] !== objects[i]) indexer.setByKey(keys[i]!, objects[i]!);
  }
  // At the list's resourceVersion, as after a `replace`.
  indexer.bookmark(info.resourceVersion);
  return deletions;
}

function processDelta<T>(
  handler: DeltaHandler<T>,
  indexer: CacheIndexer<T>,
  delta: Delta<T>,
  isInInitialList: boolean,
  filedUnder: string | undefined,
): void {
  const key = filedUnder ?? indexer.keyFunc(delta.object);
  let old: T | undefined;
  if (delta.type === 'Deleted') {
    indexer.deleteByKey(key, delta.object);
  } else {
    old = indexer.getByKey(key);
    if (old !== delta.object) indexer.setByKey(key, delta.object as T);
  }
  notify(handler, delta, old, isInInitialList);
}
