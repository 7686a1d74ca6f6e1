import {
  findStatusError,
  type HasObjectMeta,
  isInternalError,
  isInvalid,
  StatusError,
} from '@kubets/apimachinery';
import { PatchType } from '@kubets/rest';
import { containsFinalizer } from './finalizers.js';

/**
 * The client call {@link finalizer} makes: a typed client of the object's resource in its
 * namespace, such as `clientset.coreV1().configMaps(ns)` or `clientset.resource(d, ns)`.
 */
export interface FinalizerClient<T> {
  /** Patches the object (here always a JSON patch, `PatchType.JSONPatch`). */
  patch(name: string, patchType: PatchType, body: object[]): Promise<T>;
}

/** What {@link finalizer} runs, depending on the object's state. */
export interface FinalizerHandlers<T, R> {
  /** Brings the object's world to its desired state; runs while the object is not being deleted. */
  apply(obj: T): R | Promise<R>;
  /**
   * Undoes what `apply` did outside the object (external records, other namespaces); runs
   * once the object is being deleted. The finalizer is removed only after it resolves.
   */
  cleanup(obj: T): R | Promise<R>;
}

/**
 * kube-runtime's finalizer state machine, as one call from a reconciler:
 *
 * - not being deleted, finalizer missing: adds it with a JSON patch, then runs `apply` on
 *   the patched object (kube-runtime waits for the next watch event instead, which a
 *   generation-changed predicate would filter out);
 * - not being deleted, finalizer present: runs `apply`;
 * - being deleted (`deletionTimestamp` set), finalizer present: runs `cleanup`, then removes
 *   the finalizer with a JSON patch;
 * - being deleted without our finalizer: does nothing and resolves `undefined`.
 *
 * The patches carry `test` operations as kube-runtime's do (no full-object update, so they
 * never conflict with writers of other fields): the removal tests that the finalizer is still
 * at its index; the addition tests the current finalizer list, or the resourceVersion when
 * there is none. When the object changed meanwhile the server refuses the patch (a JSON
 * patch whose `test` fails is answered 422 with a bare "the server rejected our request due
 * to an error in our request"): `finalizer` then throws a Conflict `StatusError`
 * (`isConflict(err)` is true, the server's answer is its `cause`) naming the object, so the
 * reconcile is retried on fresh data. Errors of `apply` and `cleanup`
 * propagate unchanged (a `TerminalError` stays terminal); a failed `cleanup` leaves the
 * finalizer in place.
 *
 * @returns what `apply` or `cleanup` returned, e.g. a `Result` for the reconcile loop.
 * @throws {StatusError} a Conflict when the object changed since it was read.
 * @throws {TypeError} when `name` is empty or `obj` has no `metadata.name`.
 */
export async function finalizer<T extends HasObjectMeta, R>(
  client: FinalizerClient<T>,
  obj: T,
  name: string,
  handlers: FinalizerHandlers<T, R>,
): Promise<R | undefined> {
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(`finalizer name must be a non-empty string, got ${JSON.stringify(name)}`);
  }
  const objName = obj.metadata?.name;
  if (!objName) throw new TypeError('finalizer needs an object with metadata.name');

  if (obj.metadata?.deletionTimestamp != null) {
    const index = obj.metadata.finalizers?.indexOf(name) ?? -1;
    // Only other finalizers hold the object: our cleanup already ran, or never had to.
    if (index < 0) return undefined;
    const result = await handlers.cleanup(obj);
    await guardedPatch(client, obj, `remove the finalizer ${name}`, [
      { op: 'test', path: `/metadata/finalizers/${index}`, value: name },
      { op: 'remove', path: `/metadata/finalizers/${index}` },
    ]);
    return result;
  }

  if (containsFinalizer(obj, name)) return handlers.apply(obj);
  const patched = await guardedPatch(client, obj, `add the finalizer ${name}`, addPatch(obj, name));
  return handlers.apply(patched);
}

// Sends a JSON patch guarded by `test` operations; a refusal because the object no longer
// is what was read becomes a Conflict that says so.
async function guardedPatch<T extends HasObjectMeta>(
  client: FinalizerClient<T>,
  obj: T,
  what: string,
  patch: object[],
): Promise<T> {
  try {
    return await client.patch(obj.metadata?.name ?? '', PatchType.JSONPatch, patch);
  } catch (err) {
    if (!isRefusedJsonPatch(err)) throw err;
    const meta = obj.metadata;
    const kind = (obj as { kind?: unknown }).kind;
    const named = `${typeof kind === 'string' && kind ? `${kind} ` : ''}${meta?.namespace ? `${meta.namespace}/` : ''}${meta?.name}`;
    throw new StatusError(
      {
        apiVersion: 'v1',
        kind: 'Status',
        status: 'Failure',
        code: 409,
        reason: 'Conflict',
        message: `Operation cannot be fulfilled on ${named}: the object changed since it was read (at resourceVersion ${meta?.resourceVersion ?? 'unknown'}), so the guarded patch to ${what} was refused; read it again and retry`,
        details: { ...(typeof kind === 'string' && kind ? { kind } : {}), name: meta?.name ?? '' },
      },
      { cause: err },
    );
  }
}

// kube-apiserver answers a JSON patch it cannot apply (a failed `test`, a path that is gone)
// with 422 and a bare generic message, the operation's error only in the causes; other
// servers (and strategic-merge failures) with 500. Validation failures of the patched
// object are 422 too, but name the object and field instead.
const genericPatchRefusal = 'the server rejected our request due to an error in our request';
const failedPatchOperation =
  /testing value .* failed|error in test for path|unable to remove nonexistent|doc is missing path|missing value/i;

function isRefusedJsonPatch(err: unknown): boolean {
  if (!isInvalid(err) && !isInternalError(err)) return false;
  const status = findStatusError(err)?.status;
  const messages = [
    status?.message ?? '',
    ...(status?.details?.causes ?? []).map((c) => c.message ?? ''),
  ];
  return messages.some((m) => m === genericPatchRefusal || failedPatchOperation.test(m));
}

function addPatch(obj: HasObjectMeta, name: string): object[] {
  const finalizers = obj.metadata?.finalizers;
  if (finalizers === undefined || finalizers.length === 0) {
    // JSON patch libraries disagree on `test` of an absent path, so the resourceVersion
    // guards the first finalizer instead.
    const rv = obj.metadata?.resourceVersion;
    return [
      ...(rv ? [{ op: 'test', path: '/metadata/resourceVersion', value: rv }] : []),
      { op: 'add', path: '/metadata/finalizers', value: [name] },
    ];
  }
  return [
    { op: 'test', path: '/metadata/finalizers', value: finalizers },
    { op: 'add', path: '/metadata/finalizers/-', value: name },
  ];
}
