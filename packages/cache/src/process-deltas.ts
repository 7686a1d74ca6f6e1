import type { Delta, Deltas, DeltaType } from './delta-fifo.js';
import type { ResourceEventHandler } from './handler.js';
import { CacheIndexer, type Store } from './store.js';

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
 * - `Deleted`: the object is removed and `onDelete(obj)` is called (`obj` may be a tombstone).
 *
 * Every store change happens before the handler hears of it. A relist hands back the cached
 * object itself when it did not change (`reusingCachedItems`): it is not stored again, which
 * would only recompute its index entries.
 *
 * Synchronous, so a process loop draining the DeltaFIFO with `tryPop` costs no promise per
 * key. Only when a handler returns a promise does the result become a promise: the next
 * delta waits for it, as the handler contract promises. Handler errors propagate; wrap the
 * handler to report them.
 *
 * `key` is the key the FIFO filed the deltas under; given with a {@link CacheIndexer}, the
 * store is accessed by it rather than by computing every object's key again.
 */
export function processDeltas<T>(
  handler: DeltaHandler<T>,
  clientState: Store<T>,
  deltas: Deltas<T>,
  isInInitialList = false,
  key?: string,
): void | Promise<void> {
  for (let i = 0; i < deltas.length; i++) {
    const handled = processDelta(handler, clientState, deltas[i]!, isInInitialList, key);
    if (isPromiseLike(handled)) {
      return processRest(handled, handler, clientState, deltas, i + 1, isInInitialList, key);
    }
  }
  return undefined;
}

/** The slow path of {@link processDeltas}, once a handler returned a promise. */
async function processRest<T>(
  handled: PromiseLike<unknown>,
  handler: DeltaHandler<T>,
  clientState: Store<T>,
  deltas: Deltas<T>,
  from: number,
  isInInitialList: boolean,
  key: string | undefined,
): Promise<void> {
  await handled;
  for (let i = from; i < deltas.length; i++) {
    const next = processDelta(handler, clientState, deltas[i]!, isInInitialList, key);
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
    if (byKey !== undefined) byKey.deleteByKey(key as string);
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
