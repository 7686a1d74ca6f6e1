import { type HasObjectMeta, objectMetaFor } from '@kubets/apimachinery';

/**
 * Computes the cache key of an object (client-go `cache.KeyFunc`). Stores, indexers and
 * the DeltaFIFO use it to tell objects apart; the default is {@link metaNamespaceKeyFunc}.
 *
 * @throws when the object cannot be keyed (for example, it has no metadata).
 */
export type KeyFunc = (obj: unknown) => string;

const tombstoneBrand: unique symbol = Symbol.for('kubets.cache.DeletedFinalStateUnknown');

/**
 * The tombstone of an object whose deletion was missed (client-go
 * `cache.DeletedFinalStateUnknown`): the reflector relisted and the object was gone, so its
 * final state is unknown. `obj` is the last state the cache knew, possibly stale, or
 * `undefined` when there was none. `onDelete` handlers receive either the object or one of
 * these; use {@link isDeletedFinalStateUnknown} to tell them apart.
 */
export interface DeletedFinalStateUnknown<T> {
  /** The object's key (`namespace/name` or `name`). */
  readonly key: string;
  /** The last known state of the object. */
  readonly obj: T | undefined;
  /**
   * Brand that lets {@link isDeletedFinalStateUnknown} recognise tombstones.
   * @internal
   */
  readonly [tombstoneBrand]: true;
}

/** Creates a {@link DeletedFinalStateUnknown} tombstone for `key` with the last known `obj`. */
export function deletedFinalStateUnknown<T>(
  key: string,
  obj: T | undefined,
): DeletedFinalStateUnknown<T> {
  return { key, obj, [tombstoneBrand]: true };
}

/**
 * True when `value` is a {@link DeletedFinalStateUnknown} tombstone. Checks a brand, not
 * `instanceof`, so tombstones from another copy of this package are recognized too.
 */
export function isDeletedFinalStateUnknown<T = unknown>(
  value: unknown,
): value is DeletedFinalStateUnknown<T> {
  return typeof value === 'object' && value !== null && tombstoneBrand in value;
}

/**
 * The key of a Kubernetes object: `namespace/name`, or `name` for cluster-scoped objects
 * (client-go `cache.MetaNamespaceKeyFunc`). A string is taken as an already computed key
 * (client-go's `ExplicitKey`) and returned unchanged.
 *
 * @throws {TypeError} when `obj` is neither a string nor an object with metadata.
 */
export function metaNamespaceKeyFunc(obj: unknown): string {
  if (typeof obj === 'string') return obj;
  const meta = objectMetaFor(obj);
  const name = meta.name ?? '';
  const namespace = meta.namespace;
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * Like {@link metaNamespaceKeyFunc}, but a {@link DeletedFinalStateUnknown} tombstone yields
 * the key it carries (client-go `cache.DeletionHandlingMetaNamespaceKeyFunc`). Use this for
 * objects received by `onDelete` handlers.
 */
export function deletionHandlingMetaNamespaceKeyFunc(obj: unknown): string {
  if (isDeletedFinalStateUnknown(obj)) return obj.key;
  return metaNamespaceKeyFunc(obj);
}

/**
 * The key of an object with metadata, without the checks of {@link metaNamespaceKeyFunc}:
 * for hot paths that already know they hold an object.
 */
export function objectKey(obj: HasObjectMeta): string {
  const meta = obj.metadata;
  const name = meta?.name ?? '';
  const namespace = meta?.namespace;
  return namespace ? `${namespace}/${name}` : name;
}

/** A key split into its parts; `namespace` is `''` for cluster-scoped objects. */
export interface NamespacedName {
  /** The namespace; `''` for cluster-scoped objects. */
  namespace: string;
  /** The object's name. */
  name: string;
}

/**
 * Splits a key made by {@link metaNamespaceKeyFunc} into namespace and name (client-go
 * `cache.SplitMetaNamespaceKey`).
 *
 * @throws {TypeError} for keys with more than one `/`, or with an empty name or namespace
 *   around the `/`.
 */
export function splitMetaNamespaceKey(key: string): NamespacedName {
  const slash = key.indexOf('/');
  if (slash === -1) {
    return { namespace: '', name: key };
  }
  const namespace = key.slice(0, slash);
  const name = key.slice(slash + 1);
  if (name.includes('/') || namespace === '' || name === '') {
    throw new TypeError(`unexpected key format: ${JSON.stringify(key)}`);
  }
  return { namespace, name };
}
