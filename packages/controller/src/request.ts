import type { HasObjectMeta } from '@kubets/apimachinery';
import { splitMetaNamespaceKey } from '@kubets/cache';

/**
 * What a reconciler is asked to reconcile: one object, by namespace and name (`''` for a
 * cluster-scoped object). Not the object itself: the reconciler reads its current state,
 * so it always acts on the latest one and several events collapse into one request.
 */
export interface ReconcileRequest {
  /** The namespace; `''` for cluster-scoped objects. */
  readonly namespace: string;
  /** The object's name. */
  readonly name: string;
}

/** The queue key of a request: `namespace/name`, or `name` for a cluster-scoped object. */
export function requestKey(request: ReconcileRequest): string {
  return request.namespace ? `${request.namespace}/${request.name}` : request.name;
}

/**
 * The request of a queue key made by {@link requestKey}.
 *
 * @throws {TypeError} for a malformed key.
 */
export function requestFromKey(key: string): ReconcileRequest {
  return splitMetaNamespaceKey(key);
}

/**
 * The request for `object` itself (controller-runtime's `EnqueueRequestForObject`).
 *
 * @throws {TypeError} when the object has no name.
 */
export function requestFor(object: HasObjectMeta): ReconcileRequest {
  const name = object.metadata?.name;
  if (!name) throw new TypeError('cannot make a request for an object without metadata.name');
  return { namespace: object.metadata?.namespace ?? '', name };
}
