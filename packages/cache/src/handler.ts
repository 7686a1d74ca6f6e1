import type { DeletedFinalStateUnknown } from './keys.js';
import { isDeletedFinalStateUnknown } from './keys.js';

/** Which notification a handler failed on. */
export type HandlerEvent = 'add' | 'update' | 'delete';

/**
 * Callbacks for an informer's notifications (client-go `ResourceEventHandler` /
 * `ResourceEventHandlerFuncs`); every method is optional. A handler may return a promise:
 * its next notification waits for it, so each handler sees its notifications in order.
 * Errors (thrown or rejected) are reported and never stop the informer.
 *
 * Objects are the cache's own: do not modify them.
 */
export interface ResourceEventHandler<T> {
  /**
   * An object appeared. `isInInitialList` is true for the objects of the first list (and
   * for the store contents replayed to a handler added later).
   */
  onAdd?(obj: T, isInInitialList: boolean): void | Promise<void>;
  /**
   * An object changed, or a periodic resync re-delivered it (then `oldObj` and `newObj`
   * have the same resourceVersion).
   */
  onUpdate?(oldObj: T, newObj: T): void | Promise<void>;
  /**
   * An object was deleted. When the deletion was missed (noticed by a relist) this is a
   * {@link DeletedFinalStateUnknown} tombstone holding the last known state.
   */
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void | Promise<void>;
}

/**
 * A handler that sees only objects passing `filter` (client-go
 * `FilteringResourceEventHandler`): an update into the filter becomes an add, an update out
 * of it a delete.
 */
export function filteringResourceEventHandler<T>(
  filter: (obj: T | DeletedFinalStateUnknown<T>) => boolean,
  handler: ResourceEventHandler<T>,
): ResourceEventHandler<T> {
  return {
    onAdd: (obj, isInInitialList) =>
      filter(obj) ? handler.onAdd?.(obj, isInInitialList) : undefined,
    onUpdate: (oldObj, newObj) => {
      const newer = filter(newObj);
      const older = filter(oldObj);
      if (newer && older) return handler.onUpdate?.(oldObj, newObj);
      if (newer) return handler.onAdd?.(newObj, false);
      if (older) return handler.onDelete?.(oldObj);
      return undefined;
    },
    onDelete: (obj) => (filter(obj) ? handler.onDelete?.(obj) : undefined),
  };
}

/**
 * The object inside a delete notification: the object itself, or a tombstone's last known
 * state (`undefined` when the tombstone has none).
 */
export function deletedObject<T>(obj: T | DeletedFinalStateUnknown<T>): T | undefined {
  return isDeletedFinalStateUnknown<T>(obj) ? obj.obj : obj;
}

/** True for a promise or any other thenable: what a handler may return. */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
