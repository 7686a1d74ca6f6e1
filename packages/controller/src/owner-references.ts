import type { HasObjectMeta, ObjectMeta, OwnerReference } from '@kubets/apimachinery';
import { groupOf } from './api-version.js';

/** An object that can own others: it must say what it is (`apiVersion`, `kind`). */
export interface OwnerObject extends HasObjectMeta {
  /** `group/version` of the owner, e.g. `apps/v1`. */
  apiVersion?: string | undefined;
  /** The owner's kind, e.g. `Deployment`. */
  kind?: string | undefined;
}

/** Options of {@link setOwnerReference} and {@link setControllerReference}. */
export interface OwnerReferenceOptions {
  /**
   * Sets `blockOwnerDeletion` on the reference: a foreground deletion of the owner waits for
   * this object. Default true for controller references, unset for plain owner references
   * (as controller-runtime).
   */
  blockOwnerDeletion?: boolean | undefined;
}

/**
 * Thrown by {@link setControllerReference} when the object already has a controller other
 * than the owner (controller-runtime's `AlreadyOwnedError`): an object has at most one
 * controller, and taking it over silently would make two controllers fight.
 */
export class AlreadyOwnedError extends Error {
  /** The object that is already controlled. */
  readonly object: HasObjectMeta;
  /** Its current controller reference. */
  readonly owner: OwnerReference;

  constructor(object: HasObjectMeta, owner: OwnerReference) {
    const meta = object.metadata;
    super(
      `object ${meta?.namespace ? `${meta.namespace}/` : ''}${meta?.name ?? ''} is already owned by another ${owner.kind} controller ${owner.name}`,
    );
    this.name = 'AlreadyOwnedError';
    this.object = object;
    this.owner = owner;
  }
}

/** Whether `err` is an {@link AlreadyOwnedError}. */
export function isAlreadyOwnedError(err: unknown): err is AlreadyOwnedError {
  return err instanceof Error && err.name === 'AlreadyOwnedError' && 'owner' in err;
}

/**
 * Adds (or updates) a controller reference to `owner` on `object` (controller-runtime's
 * `SetControllerReference`): `controller: true` and, by default, `blockOwnerDeletion: true`.
 * The garbage collector then deletes `object` with its owner, and `owns()` watches map it
 * back to the owner. Only changes `object` in memory; write it to persist the reference.
 *
 * @throws {AlreadyOwnedError} when another object is already its controller.
 * @throws {TypeError} when the owner lacks `apiVersion`, `kind`, `name` or `uid`, or is
 *   namespaced while `object` is cluster-scoped or in another namespace.
 */
export function setControllerReference(
  owner: OwnerObject,
  object: HasObjectMeta,
  { blockOwnerDeletion = true }: OwnerReferenceOptions = {},
): void {
  upsertReference(owner, object, (ref, current) => {
    ref.controller = true;
    ref.blockOwnerDeletion = blockOwnerDeletion;
    const existing = current.find((r) => r.controller === true);
    if (existing !== undefined && !sameOwner(existing, ref)) {
      throw new AlreadyOwnedError(object, existing);
    }
  });
}

/**
 * Adds (or updates) a plain owner reference to `owner` on `object` (controller-runtime's
 * `SetOwnerReference`): the garbage collector deletes `object` once all its owners are gone.
 * An existing reference to the same owner keeps its `controller` flag.
 *
 * @throws {TypeError} as {@link setControllerReference}.
 */
export function setOwnerReference(
  owner: OwnerObject,
  object: HasObjectMeta,
  options: OwnerReferenceOptions = {},
): void {
  upsertReference(owner, object, (ref, current) => {
    if (options.blockOwnerDeletion !== undefined)
      ref.blockOwnerDeletion = options.blockOwnerDeletion;
    const existing = current.find((r) => sameOwner(r, ref));
    if (existing?.controller !== undefined) ref.controller = existing.controller;
  });
}

/**
 * Removes the reference to `owner` from `object`; returns whether there was one
 * (controller-runtime's `RemoveOwnerReference`, which returns an error instead).
 *
 * @throws {TypeError} as {@link setControllerReference}, for an owner that is not one.
 */
export function removeOwnerReference(owner: OwnerObject, object: HasObjectMeta): boolean {
  const target = referenceTo(owner, object);
  return removeReference(object, (r) => sameOwner(r, target));
}

/**
 * Removes the controller reference to `owner` from `object`; returns whether there was one
 * (controller-runtime's `RemoveControllerReference`, which returns an error instead). A
 * plain owner reference to `owner` stays: only the controller reference is removed.
 *
 * @throws {TypeError} as {@link setControllerReference}, for an owner that is not one.
 */
export function removeControllerReference(owner: OwnerObject, object: HasObjectMeta): boolean {
  const target = referenceTo(owner, object);
  return removeReference(object, (r) => r.controller === true && sameOwner(r, target));
}

/** Whether `object` has an owner reference to `owner` (compared by group, kind and name). */
export function hasOwnerReference(owner: OwnerObject, object: HasObjectMeta): boolean {
  const target = referenceTo(owner, object);
  return object.metadata?.ownerReferences?.some((r) => sameOwner(r, target)) ?? false;
}

/**
 * Whether `object` has a controller reference (`controller: true`), to any owner
 * (controller-runtime's `HasControllerReference`).
 */
export function hasControllerReference(object: HasObjectMeta): boolean {
  return object?.metadata?.ownerReferences?.some((r) => r.controller === true) ?? false;
}

function removeReference(
  object: HasObjectMeta,
  matches: (ref: OwnerReference) => boolean,
): boolean {
  const refs = object.metadata?.ownerReferences;
  if (refs === undefined) return false;
  const kept = refs.filter((r) => !matches(r));
  if (kept.length === refs.length) return false;
  (object.metadata as ObjectMeta).ownerReferences = kept;
  return true;
}

function referenceTo(owner: OwnerObject, object: HasObjectMeta): OwnerReference {
  if (typeof owner !== 'object' || owner === null) {
    throw new TypeError(
      `the owner must be an object with apiVersion, kind, metadata.name and metadata.uid, got ${owner === null ? 'null' : typeof owner}`,
    );
  }
  const { apiVersion, kind } = owner;
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  const missing = [
    !apiVersion && 'apiVersion',
    !kind && 'kind',
    !name && 'metadata.name',
    !uid && 'metadata.uid',
  ].filter(Boolean);
  if (missing.length > 0) {
    throw new TypeError(
      `owner ${name ?? '(unnamed)'} has no ${missing.join(', ')}: pass the object as read from the API server or an informer's cache (the items of a list the API server returns have no apiVersion and kind: setListItemTypeMeta(list) of @kubets/apimachinery sets them)`,
    );
  }
  validateOwnerScope(owner, object);
  return {
    apiVersion: apiVersion as string,
    kind: kind as string,
    name: name as string,
    uid: uid as string,
  };
}

// The garbage collector only follows references within one namespace, or from any object to
// a cluster-scoped owner; anything else would be deleted at once.
function validateOwnerScope(owner: HasObjectMeta, object: HasObjectMeta): void {
  const ownerNamespace = owner.metadata?.namespace ?? '';
  if (ownerNamespace === '') return;
  const objectNamespace = object.metadata?.namespace ?? '';
  if (objectNamespace === '') {
    throw new TypeError(
      `cluster-scoped resource must not have a namespace-scoped owner, owner's namespace ${ownerNamespace}`,
    );
  }
  if (objectNamespace !== ownerNamespace) {
    throw new TypeError(
      `cross-namespace owner references are disallowed, owner's namespace ${ownerNamespace}, obj's namespace ${objectNamespace}`,
    );
  }
}

// Versions of a group are the same object, so a reference is matched by group, kind and name.
function sameOwner(a: OwnerReference, b: OwnerReference): boolean {
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

// Builds the reference to `owner` (checked), lets `settle` complete it against the object's
// current references, then puts it in place of any reference to the same owner.
function upsertReference(
  owner: OwnerObject,
  object: HasObjectMeta,
  settle: (ref: OwnerReference, current: readonly OwnerReference[]) => void,
): void {
  const ref = referenceTo(owner, object);
  settle(ref, object.metadata?.ownerReferences ?? []);
  object.metadata ??= {};
  const refs = object.metadata.ownerReferences ?? [];
  const at = refs.findIndex((r) => sameOwner(r, ref));
  if (at === -1) refs.push(ref);
  else refs[at] = ref;
  object.metadata.ownerReferences = refs;
}
