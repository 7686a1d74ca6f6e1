import { getResourceVersion, type HasObjectMeta } from '@kubets/apimachinery';
import type { ResourceEventHandler } from '@kubets/cache';

/**
 * The priority of the requests that come from nothing having changed: the objects of an
 * informer's initial list and resyncs (controller-runtime's `handler.LowPriority`). Real
 * changes are queued at the default priority, 0, so they are not stuck behind a large list.
 */
export const LOW_PRIORITY = -100;

/**
 * An informer event handler that queues at {@link LOW_PRIORITY} what did not change: adds
 * from the initial list and updates whose resourceVersion is the same on both sides (a
 * resync); everything else at the default priority (controller-runtime's
 * `handler.WithLowPriorityWhenUnchanged`). `handlerAt(priority)` builds the handler that
 * enqueues at `priority` (`undefined`: the default); it is called twice, up front.
 * On a controller whose queue is not a priority queue the priority is ignored.
 */
export function withLowPriorityWhenUnchanged<O extends HasObjectMeta>(
  handlerAt: (priority: number | undefined) => ResourceEventHandler<O>,
): ResourceEventHandler<O> {
  const changed = handlerAt(undefined);
  const unchanged = handlerAt(LOW_PRIORITY);
  return {
    onAdd: (obj, isInInitialList) =>
      (isInInitialList ? unchanged : changed).onAdd?.(obj, isInInitialList),
    onUpdate: (oldObj, newObj) =>
      (getResourceVersion(oldObj) === getResourceVersion(newObj) ? unchanged : changed).onUpdate?.(
        oldObj,
        newObj,
      ),
    onDelete: (obj) => changed.onDelete?.(obj),
  };
}
