import type { ObjectMeta } from '@kubets/apimachinery';
import type { ObjectReference } from 'kubernetes-types/core/v1.js';

/**
 * What an event can be recorded about: any Kubernetes object in wire format that carries
 * `apiVersion`, `kind` and `metadata` (a Pod, a ConfigMap, a custom resource, ...), or an
 * `ObjectReference` pointing at one.
 */
export type RecordableObject =
  | {
      /** `group/version` of the object, e.g. `apps/v1`. */
      apiVersion?: string;
      /** The object's kind, e.g. `Deployment`. */
      kind?: string;
      /** The object's metadata; name, namespace, UID and resourceVersion go into the reference. */
      metadata?: ObjectMeta | undefined;
    }
  | ObjectReference;

const objectReferenceErrorBrand = Symbol.for('kubets.record.ObjectReferenceError');

/** Thrown by {@link getReference} when no reference can be built (no `kind` or `apiVersion`). */
export class ObjectReferenceError extends Error {
  /**
   * Brand that lets {@link isObjectReferenceError} recognise errors from another copy of this
   * package.
   * @internal
   */
  readonly [objectReferenceErrorBrand] = true;

  constructor(message: string) {
    super(message);
    this.name = 'ObjectReferenceError';
  }
}

/** True for an {@link ObjectReferenceError}, also one created by another copy of this package. */
export function isObjectReferenceError(err: unknown): err is ObjectReferenceError {
  return typeof err === 'object' && err !== null && objectReferenceErrorBrand in err;
}

function isObjectReference(obj: RecordableObject): obj is ObjectReference {
  return !('metadata' in obj && obj.metadata !== undefined) && ('name' in obj || 'uid' in obj);
}

/**
 * The `ObjectReference` for `obj`, as client-go's `ref.GetReference`: `apiVersion`, `kind`,
 * `namespace`, `name`, `uid` and `resourceVersion` from the object; an `ObjectReference`
 * is returned as a copy.
 *
 * @throws {ObjectReferenceError} when `kind` or `apiVersion` is missing. client-go would look the
 *   kind up in its scheme; TypeScript objects carry no type at run time, so set `kind` and
 *   `apiVersion` on objects that came without them (list items often do).
 */
export function getReference(obj: RecordableObject): ObjectReference {
  if (obj === null || typeof obj !== 'object') {
    throw new ObjectReferenceError(`cannot reference ${String(obj)}: not an object`);
  }
  if (isObjectReference(obj)) {
    if (!obj.kind) throw new ObjectReferenceError('cannot use an ObjectReference without a kind');
    return { ...obj };
  }
  const meta: ObjectMeta = obj.metadata ?? {};
  const what = meta.name
    ? `${meta.namespace ? `${meta.namespace}/` : ''}${meta.name}`
    : 'an unnamed object';
  if (!obj.kind) {
    throw new ObjectReferenceError(
      `cannot build an ObjectReference to ${what}: the object has no kind (set kind and apiVersion)`,
    );
  }
  if (!obj.apiVersion) {
    throw new ObjectReferenceError(
      `cannot build an ObjectReference to ${obj.kind} ${what}: the object has no apiVersion`,
    );
  }
  const ref: ObjectReference = { apiVersion: obj.apiVersion, kind: obj.kind };
  if (meta.namespace) ref.namespace = meta.namespace;
  if (meta.name) ref.name = meta.name;
  if (meta.uid) ref.uid = meta.uid;
  if (meta.resourceVersion) ref.resourceVersion = meta.resourceVersion;
  return ref;
}
