import { getControllerOf, type HasObjectMeta, type OwnerReference } from '@kubets/apimachinery';
import type { ResourceEventHandler } from '@kubets/cache';
import {
  type DeletedFinalStateUnknown,
  deletedObject,
  isDeletedFinalStateUnknown,
} from '@kubets/cache';
import type { GenericLister } from '@kubets/listers';
import { groupOf } from './api-version.js';
import { cachedObject } from './cached.js';
import type {
  CreateEvent,
  DeleteEvent,
  GenericEvent,
  Predicate,
  UpdateEvent,
} from './predicates.js';
import { type ReconcileRequest, requestFor } from './request.js';

/** Maps a watched object to the requests it should trigger (controller-runtime's `MapFunc`). */
export type MapFunc<O> = (object: O) => readonly ReconcileRequest[];

/** Where an {@link EventHandler} puts the requests an event triggers: a controller's queue. */
export interface RequestQueue {
  /** Queues `request`; a request already waiting is not queued twice. */
  add(request: ReconcileRequest): void;
}

/**
 * Turns the events of a watch into requests (controller-runtime's `handler.EventHandler`).
 * An event's object may be missing (`undefined` or `null`, e.g. from a {@link ChannelSource}
 * fed nothing): a handler then queues what the other object of the event gives, or nothing.
 */
export interface EventHandler<O> {
  /** An object appeared. */
  create(event: CreateEvent<O>, queue: RequestQueue): void;
  /** An object changed (or a resync re-delivered it). */
  update(event: UpdateEvent<O>, queue: RequestQueue): void;
  /** An object was deleted. */
  delete(event: DeleteEvent<O>, queue: RequestQueue): void;
  /** An event from outside the cluster (a {@link ChannelSource}). */
  generic(event: GenericEvent<O>, queue: RequestQueue): void;
}

const isMissing = (object: unknown): object is null | undefined =>
  object === undefined || object === null;

// A request for the object itself; none for an object without a name, which no reconcile
// could read back.
function selfRequest(object: HasObjectMeta | null | undefined): ReconcileRequest | undefined {
  return isMissing(object) || !object.metadata?.name ? undefined : requestFor(object);
}

function addSelf(object: HasObjectMeta | null | undefined, queue: RequestQueue): void {
  const request = selfRequest(object);
  if (request !== undefined) queue.add(request);
}

/**
 * Queues the object's own request (controller-runtime's `EnqueueRequestForObject`, what
 * `for` watches with). An update queues the new object only, or the old one when the new
 * one is missing: both are the same object, so one request is all a change needs.
 */
export const enqueueRequestForObject: EventHandler<HasObjectMeta> = Object.freeze({
  create: (event, queue) => addSelf(event.object, queue),
  update: (event, queue) =>
    addSelf(isMissing(event.objectNew) ? event.objectOld : event.objectNew, queue),
  delete: (event, queue) => addSelf(event.object, queue),
  generic: (event, queue) => addSelf(event.object, queue),
} satisfies EventHandler<HasObjectMeta>);

/**
 * Queues the requests `map` gives for the event's object (controller-runtime's
 * `EnqueueRequestsFromMapFunc`). An update maps the old and the new object and queues each
 * distinct request once. A missing object is not mapped.
 */
export function enqueueRequestsFromMapFunc<O>(map: MapFunc<O>): EventHandler<O> {
  if (typeof map !== 'function') {
    throw new TypeError('enqueueRequestsFromMapFunc(map): map must be a function');
  }
  const addMapped = (queue: RequestQueue, ...objects: (O | null | undefined)[]): void => {
    addDistinct(
      queue,
      objects.flatMap((object) => (isMissing(object) ? [] : map(object))),
    );
  };
  return {
    create: (event, queue) => addMapped(queue, event.object),
    update: (event, queue) => addMapped(queue, event.objectOld, event.objectNew),
    delete: (event, queue) => addMapped(queue, event.object),
    generic: (event, queue) => addMapped(queue, event.object),
  };
}

/** The owner type of {@link enqueueRequestForOwner}: a resource descriptor has these. */
export interface OwnerType {
  /** The owner's API group (`''` for the core group). */
  readonly group: string;
  /** The owner's kind. */
  readonly kind: string;
  /** Whether owners live in a namespace (their requests get the owned object's). */
  readonly namespaced: boolean;
}

/** Options of {@link enqueueRequestForOwner}. */
export interface EnqueueRequestForOwnerOptions {
  /**
   * Follow only the controller reference (`controller: true`, the first one when there are
   * several) instead of every owner reference (controller-runtime's `OnlyControllerOwner`).
   * What `owns` does unless told `matchEveryOwner`.
   */
  readonly onlyControllerOwner?: boolean | undefined;
}

/**
 * Queues the requests of the object's owners of `owner`'s group and kind (any version: every
 * version of a group is the same object), controller-runtime's `EnqueueRequestForOwner`:
 * every such owner, or only the controller with `onlyControllerOwner`. An update queues the
 * owners of the old and the new object, each once. An owner reference whose `apiVersion`
 * does not parse ends the object's mapping (as in controller-runtime).
 *
 * @throws {TypeError} for an owner type without a kind or a boolean `namespaced`.
 */
export function enqueueRequestForOwner(
  owner: OwnerType,
  { onlyControllerOwner = false }: EnqueueRequestForOwnerOptions = {},
): EventHandler<HasObjectMeta> {
  if (
    typeof owner?.kind !== 'string' ||
    owner.kind === '' ||
    typeof owner.group !== 'string' ||
    typeof owner.namespaced !== 'boolean'
  ) {
    throw new TypeError(
      `enqueueRequestForOwner(owner): owner must name a group, a kind and whether it is namespaced (a resource descriptor does), got ${JSON.stringify(owner)}`,
    );
  }
  return enqueueRequestsFromMapFunc((object: HasObjectMeta) => {
    const refs = onlyControllerOwner
      ? [getControllerOf(object)].filter((r): r is OwnerReference => r !== undefined)
      : (object.metadata?.ownerReferences ?? []);
    const requests: ReconcileRequest[] = [];
    for (const ref of refs) {
      const group = groupOfReference(ref.apiVersion);
      if (group === undefined) return requests;
      if (ref.kind !== owner.kind || group !== owner.group) continue;
      requests.push({
        namespace: owner.namespaced ? (object.metadata?.namespace ?? '') : '',
        name: ref.name,
      });
    }
    return requests;
  });
}

/**
 * A handler from the functions given; an event without one is dropped (controller-runtime's
 * `handler.Funcs`).
 */
export function handlerFuncs<O>(funcs: Partial<EventHandler<O>>): EventHandler<O> {
  for (const kind of ['create', 'update', 'delete', 'generic'] as const) {
    if (funcs?.[kind] !== undefined && typeof funcs[kind] !== 'function') {
      throw new TypeError(
        `handlerFuncs(...): ${kind} must be a function, got ${typeof funcs[kind]}`,
      );
    }
  }
  const drop = (): void => {};
  return {
    create: funcs.create ?? drop,
    update: funcs.update ?? drop,
    delete: funcs.delete ?? drop,
    generic: funcs.generic ?? drop,
  };
}

/**
 * @internal Whether `value` is an {@link EventHandler}: an object with the four functions.
 */
export function isEventHandler(value: unknown): value is EventHandler<unknown> {
  const h = value as Partial<EventHandler<unknown>> | null | undefined;
  return (['create', 'update', 'delete', 'generic'] as const).every(
    (k) => typeof h?.[k] === 'function',
  );
}

/**
 * The informer handler of one watch: applies the predicates to each event and hands those
 * every predicate passes to `handler`, which queues their requests on `queue`.
 */
export function informerEventHandler<O>(
  handler: EventHandler<O>,
  predicates: readonly Predicate<O>[],
  queue: RequestQueue,
): ResourceEventHandler<O> {
  return {
    onAdd: (object, isInInitialList) => {
      const event = { object, isInInitialList };
      if (predicates.every((p) => p.create(event))) handler.create(event, queue);
    },
    onUpdate: (objectOld, objectNew) => {
      const event = { objectOld, objectNew };
      if (predicates.every((p) => p.update(event))) handler.update(event, queue);
    },
    onDelete: (obj: O | DeletedFinalStateUnknown<O>) => {
      const object = deletedObject(obj);
      if (object === undefined) return;
      const event = { object, deleteStateUnknown: isDeletedFinalStateUnknown(obj) };
      if (predicates.every((p) => p.delete(event))) handler.delete(event, queue);
    },
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

// The group of an owner reference's apiVersion as controller-runtime reads it: `v1` and ``
// are the core group, `apps/v1` is `apps`; undefined for more than one `/`.
function groupOfReference(apiVersion: string | undefined): string | undefined {
  const parts = (apiVersion ?? '').split('/');
  if (parts.length > 2) return undefined;
  return parts.length === 2 ? parts[0] : '';
}

function addDistinct(queue: RequestQueue, requests: readonly ReconcileRequest[]): void {
  const seen = new Set<string>();
  for (const request of requests) {
    // Namespaces and names cannot hold a NUL, so the pair is unambiguous.
    const key = `${request.namespace}\u0000${request.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    queue.add(request);
  }
}
