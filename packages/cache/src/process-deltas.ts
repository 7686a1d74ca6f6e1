import type { Delta, DeltaType } from './delta-fifo.js';
import type { ResourceEventHandler } from './handler.js';
import type { DeletedFinalStateUnknown } from './keys.js';
import { deletedFinalStateUnknown } from './keys.js';
import {
  CacheIndexer,
  isTransactionStore,
  type Store,
  type Transaction,
  type TransactionStore,
} from './store.js';
import type { FIFODelta, ReplacedAllInfo } from './the-real-fifo.js';

/**
 * What {@link processDeltas} notifies: a {@link ResourceEventHandler} whose `onUpdate` may
 * also learn the type of the delta, because a shared informer hands a resync (`Sync`, or a
 * relist that found the object unchanged) only to the handlers due for one.
 */
export interface DeltaHandler<T> extends ResourceEventHandler<T> {
  /** As {@link ResourceEventHandler.onUpdate}; `deltaType` is what caused the update. */
  onUpdate?(oldObj: T, newObj: T, deltaType?: DeltaType): void | Promise<void>;
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
 * delta. Only when a handler returns a promise does the result become a promise: the next
 * notification waits for it, as the handler contract promises. Handler errors propagate;
 * wrap the handler to report them.
 *
 * `key` is the key the FIFO filed the deltas under; given with a {@link CacheIndexer}, the
 * store is accessed by it rather than by computing every object's key again.
 */
export function processDeltas<T>(
  handler: DeltaHandler<T>,
  clientState: Store<T>,
  deltas: readonly FIFODelta<T>[],
  isInInitialList = false,
  key?: string,
): void | Promise<void> {
  for (let i = 0; i < deltas.length; i++) {
    const delta = deltas[i]!;
    let handled: unknown;
    if (delta.type === 'ReplacedAll') {
      handled = processReplacedAll(handler, clientState, delta.object, isInInitialList);
    } else if (delta.type === 'Bookmark') {
      clientState.bookmark?.(delta.object.resourceVersion);
      continue;
    } else if (delta.type === 'SyncAll') {
      const objs = clientState.list();
      handled = runEach(objs.length, (j) => handler.onUpdate?.(objs[j]!, objs[j]!, 'Sync'));
    } else {
      handled = processDelta(handler, clientState, delta, isInInitialList, key);
    }
    if (isPromiseLike(handled)) {
      return processRest(handled, handler, clientState, deltas, i + 1, isInInitialList, key);
    }
  }
  return undefined;
}

/**
 * Applies a batch of deltas of distinct keys (client-go `processDeltasInBatch`);
 * `keys[i]` is the key of `deltas[i]`.
 *
 * A store that takes transactions ({@link TransactionStore}, such as every store of this
 * package) gets the whole batch as one transaction, and only then are the handlers notified,
 * in order: a handler sees the store with the whole batch applied. When some writes of the
 * transaction fail, only those that succeeded are notified, then the result rejects (or
 * throws) with an error naming the {@link TransactionError}. A store without transactions
 * gets each delta applied and notified in turn, as {@link processDeltas} would one by one.
 */
export function processDeltaBatch<T>(
  handler: DeltaHandler<T>,
  clientState: Store<T>,
  deltas: readonly Delta<T>[],
  isInInitialList: boolean,
  keys: readonly string[],
): void | Promise<void> {
  if (!(clientState instanceof CacheIndexer)) {
    if (isTransactionStore(clientState)) {
      return processTransaction(handler, clientState, deltas, isInInitialList);
    }
    return runEach(deltas.length, (i) =>
      processDelta(handler, clientState, deltas[i]!, isInInitialList, keys[i]),
    );
  }
  // The indexer's transaction, by the keys the FIFO computed: every write first, then every
  // notification. The writes cannot fail (no key to compute), so they go to the indexer
  // directly, without a transaction record per delta.
  const indexer = clientState;
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
  return runEach(deltas.length, (i) => notify(handler, deltas[i]!, olds[i], isInInitialList));
}

/** {@link processDeltaBatch} through any {@link TransactionStore}'s `transaction`. */
function processTransaction<T>(
  handler: DeltaHandler<T>,
  store: TransactionStore<T>,
  deltas: readonly Delta<T>[],
  isInInitialList: boolean,
): void | Promise<void> {
  const olds = new Array<T | undefined>(deltas.length);
  const txns = deltas.map((delta, i): Transaction<T> => {
    if (delta.type === 'Deleted') return { type: 'Delete', object: delta.object as T };
    const old = store.get(delta.object);
    olds[i] = old;
    return { type: old === undefined ? 'Add' : 'Update', object: delta.object as T };
  });
  const failed = store.transaction(...txns);
  if (failed === undefined) {
    return runEach(deltas.length, (i) => notify(handler, deltas[i]!, olds[i], isInInitialList));
  }
  const applied = failed.successfulIndices.filter((i) => i < deltas.length);
  const batchError = () =>
    new Error(`not all items in the batch successfully processed: ${failed.message}`, {
      cause: failed,
    });
  const notified = runEach(applied.length, (j) =>
    notify(handler, deltas[applied[j]!]!, olds[applied[j]!], isInInitialList),
  );
  if (notified === undefined) throw batchError();
  return notified.then(() => {
    throw batchError();
  });
}

/** Notifies `handler` of one delta already applied to the store, over `old`. */
function notify<T>(
  handler: DeltaHandler<T>,
  delta: Delta<T>,
  old: T | undefined,
  isInInitialList: boolean,
): unknown {
  if (delta.type === 'Deleted') return handler.onDelete?.(delta.object);
  const obj = delta.object as T;
  return old === undefined
    ? handler.onAdd?.(obj, isInInitialList)
    : handler.onUpdate?.(old, obj, delta.type);
}

/** The slow path of {@link processDeltas}, once a handler returned a promise. */
async function processRest<T>(
  handled: PromiseLike<unknown>,
  handler: DeltaHandler<T>,
  clientState: Store<T>,
  deltas: readonly FIFODelta<T>[],
  from: number,
  isInInitialList: boolean,
  key: string | undefined,
): Promise<void> {
  await handled;
  const rest = deltas.slice(from);
  if (rest.length > 0) await processDeltas(handler, clientState, rest, isInInitialList, key);
}

/**
 * Reconciles the store with a whole relist (client-go `processReplacedAllInfo`), then
 * notifies: deletions first, then every listed object in list order.
 */
function processReplacedAll<T>(
  handler: DeltaHandler<T>,
  clientState: Store<T>,
  info: ReplacedAllInfo<T>,
  isInInitialList: boolean,
): unknown {
  const objects = info.objects;
  const olds = new Array<T | undefined>(objects.length);
  // The store reflects the list before any handler hears of it.
  const deletions =
    clientState instanceof CacheIndexer
      ? replaceInIndexer(clientState, info, olds)
      : replaceInStore(clientState, info, olds);
  const deleted = deletions.length;
  return runEach(deleted + objects.length, (i) => {
    if (i < deleted) return handler.onDelete?.(deletions[i]!);
    const old = olds[i - deleted];
    const obj = objects[i - deleted]!;
    return old === undefined
      ? handler.onAdd?.(obj, isInInitialList)
      : handler.onUpdate?.(old, obj, 'Replaced');
  });
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
  const keys = objects.map((obj) => keyFunc(obj));
  const listed = new Set(keys);
  const deletions: DeletedFinalStateUnknown<T>[] = [];
  for (const key of indexer.listKeys()) {
    if (!listed.has(key)) deletions.push(deletedFinalStateUnknown<T>(key, indexer.getByKey(key)));
  }
  for (let i = 0; i < objects.length; i++) olds[i] = indexer.getByKey(keys[i]!);
  for (const d of deletions) indexer.deleteByKey(d.key);
  for (let i = 0; i < objects.length; i++) {
    if (olds[i] !== objects[i]) indexer.setByKey(keys[i]!, objects[i]!);
  }
  // At the list's resourceVersion, as after a `replace`.
  indexer.bookmark(info.resourceVersion);
  return deletions;
}

/** {@link replaceInIndexer} for any {@link Store}, through its `replace`. */
function replaceInStore<T>(
  store: Store<T>,
  info: ReplacedAllInfo<T>,
  olds: (T | undefined)[],
): DeletedFinalStateUnknown<T>[] {
  const known = store.listKeys();
  const before = known.map((key) => store.getByKey(key));
  info.objects.forEach((obj, i) => {
    olds[i] = store.get(obj);
  });
  store.replace([...info.objects], info.resourceVersion);
  const deletions: DeletedFinalStateUnknown<T>[] = [];
  known.forEach((key, i) => {
    if (store.getByKey(key) === undefined) deletions.push(deletedFinalStateUnknown(key, before[i]));
  });
  return deletions;
}

/**
 * Calls `notify(0)` … `notify(count - 1)` in turn; once one returns a promise, the rest
 * wait for it, and the result is a promise.
 */
function runEach(count: number, notify: (i: number) => unknown): void | Promise<void> {
  for (let i = 0; i < count; i++) {
    const handled = notify(i);
    if (isPromiseLike(handled)) return runRest(handled, count, notify, i + 1);
  }
  return undefined;
}

async function runRest(
  handled: PromiseLike<unknown>,
  count: number,
  notify: (i: number) => unknown,
  from: number,
): Promise<void> {
  await handled;
  for (let i = from; i < count; i++) {
    const next = notify(i);
    if (isPromiseLike(next)) await next;
  }
}

function processDelta<T>(
  handler: DeltaHandler<T>,
  clientState: Store<T>,
  delta: Delta<T>,
  isInInitialList: boolean,
  key: string | undefined,
): unknown {
  const byKey = key !== undefined && clientState instanceof CacheIndexer ? clientState : undefined;
  if (delta.type === 'Deleted') {
    if (byKey !== undefined) byKey.deleteByKey(key as string, delta.object);
    else clientState.delete(delta.object);
    return handler.onDelete?.(delta.object);
  }
  const obj = delta.object as T;
  const old = byKey !== undefined ? byKey.getByKey(key as string) : clientState.get(obj);
  if (old === undefined) {
    if (byKey !== undefined) byKey.setByKey(key as string, obj);
    else clientState.add(obj);
    return handler.onAdd?.(obj, isInInitialList);
  }
  if (old !== obj) {
    if (byKey !== undefined) byKey.setByKey(key as string, obj);
    else clientState.update(obj);
  }
  return handler.onUpdate?.(old, obj, delta.type);
}

/** True for a promise or any other thenable. */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
