import { getControllerOf, type HasObjectMeta } from '@kubets/apimachinery';
import type { ResourceEventHandler } from '@kubets/cache';
import {
  type DeletedFinalStateUnknown,
  deletedObject,
  isDeletedFinalStateUnknown,
} from '@kubets/cache';
import type { GenericLister } from '@kubets/listers';
import { groupOf } from './api-version.js';
import { cachedObject } from './cached.js';
import type { Predicate } from './predicates.js';
import { type Request, requestFor } from './request.js';

/** Maps a watched object to the requests it should trigger (controller-runtime's `MapFunc`). */
export type MapFunc<O> = (object: O) => readonly Request[];

/**
 * The informer handler of one watch: applies the predicates to each event, maps the
 * object (on updates the old and the new one) to requests and hands them to `enqueue`.
 */
export function enqueueingHandler<O>(
  enqueue: (request: Request) => void,
  map: MapFunc<O>,
  predicates: readonly Predicate<O>[],
): ResourceEventHandler<O> {
  const enqueueAll = (...objects: O[]): void => {
    for (const object of objects) for (const request of map(object)) enqueue(request);
  };
  return {
    onAdd: (object) => {
      if (predicates.every((p) => p.create({ object }))) enqueueAll(object);
    },
    onUpdate: (objectOld, objectNew) => {
      if (predicates.every((p) => p.update({ objectOld, objectNew }))) {
        enqueueAll(objectOld, objectNew);
      }
    },
    onDelete: (obj: O | DeletedFinalStateUnknown<O>) => {
      const object = deletedObject(obj);
      if (object === undefined) return;
      const deleteStateUnknown = isDeletedFinalStateUnknown(obj);
      if (predicates.every((p) => p.delete({ object, deleteStateUnknown }))) enqueueAll(object);
    },
  };
}

/** The object's own request (controller-runtime's `EnqueueRequestForObject`). */
export const mapToSelf: MapFunc<HasObjectMeta> = (object) =>
  object.metadata?.name ? [requestFor(object)] : [];

/**
 * Maps an owned object to its controller when that controller is of `owner`'s group and
 * kind (controller-runtime's `EnqueueRequestForOwner` with `OnlyControllerOwner`). The
 * version is ignored: every version of a group is the same object.
 */
export function mapToControllerOwner(owner: {
  readonly group: string;
  readonly kind: string;
  readonly namespaced: boolean;
}): MapFunc<HasObjectMeta> {
  return (object) => {
    const ref = getControllerOf(object);
    if (ref === undefined || ref.kind !== owner.kind || groupOf(ref.apiVersion) !== owner.group) {
      return [];
    }
    return [
      { namespace: owner.namespaced ? (object.metadata?.namespace ?? '') : '', name: ref.name },
    ];
  };
}

/**
 * Maps an owned object to its controller owner when that owner is in `primaryLister`'s
 * cache with the uid of the reference and the group is `group`: the owner mapping of a
 * primary resource known only by group/version/resource, whose kind is not known up front.
 * An owner not (or no longer) in the cache maps to nothing; its own events reconcile it.
 */
export function mapToCachedControllerOwner(
  group: string,
  primaryLister: GenericLister<HasObjectMeta>,
): MapFunc<HasObjectMeta> {
  return (object) => {
    const ref = getControllerOf(object);
    if (ref === undefined || groupOf(ref.apiVersion) !== group) return [];
    const namespace = object.metadata?.namespace ?? '';
    // A namespaced owner shares the object's namespace; a cluster-scoped one has none.
    const owner =
      cachedObject(primaryLister, { namespace, name: ref.name }) ??
      (namespace ? cachedObject(primaryLister, { namespace: '', name: ref.name }) : undefined);
    return owner?.metadata?.uid === ref.uid ? [requestFor(owner)] : [];
  };
}
