import { type HasObjectMeta, isNotFound, jsonEqual } from '@kubets/apimachinery';
import { PatchType } from '@kubets/rest';
import { createMergePatch } from './merge-patch.js';

/**
 * What {@link createOrUpdate} and {@link createOrPatch} did (controller-runtime's
 * `OperationResult`): `updatedStatus` when both the object and its status were patched,
 * `updatedStatusOnly` when only the status was.
 */
export type OperationResult =
  | 'unchanged'
  | 'created'
  | 'updated'
  | 'updatedStatus'
  | 'updatedStatusOnly';

/**
 * The client calls {@link createOrUpdate} makes: a typed client of the object's resource in
 * its namespace, such as `clientset.coreV1().configMaps(ns)` or `clientset.resource(d, ns)`.
 */
export interface GetCreateUpdateClient<T> {
  /** Reads the object. */
  get(name: string): Promise<T>;
  /** Creates the object. */
  create(obj: T): Promise<T>;
  /** Replaces the object. */
  update(obj: T): Promise<T>;
}

/** The client calls {@link createOrPatch} makes; `patchStatus` only when the status changes. */
export interface GetCreatePatchClient<T> {
  /** Reads the object. */
  get(name: string): Promise<T>;
  /** Creates the object. */
  create(obj: T): Promise<T>;
  /** Patches the object. */
  patch(name: string, patchType: PatchType, body: object): Promise<T>;
  /** Patches the status subresource. */
  patchStatus?(name: string, patchType: PatchType, body: object): Promise<T>;
}

/**
 * Brings `obj` to the state `mutate` sets (controller-runtime's `CreateOrUpdate`): reads the
 * object named by `obj.metadata.name` into `obj`, runs `mutate(obj)`, then creates it when
 * it did not exist, updates it when `mutate` changed something, or leaves it alone. `obj`
 * ends up holding what the server returned. `mutate` must set the desired state on what it
 * is given (the live object), not rebuild it, and must not change its name or namespace.
 *
 * @throws {TypeError} when `obj` has no name or `mutate` changed its name or namespace.
 */
export function createOrUpdate<T extends HasObjectMeta>(
  client: GetCreateUpdateClient<T>,
  obj: T,
  mutate: (obj: T) => void | Promise<void>,
): Promise<OperationResult> {
  return mutateLive(client, obj, mutate, async (before) => {
    if (jsonEqual(before, obj)) return 'unchanged';
    replaceContents(obj, await client.update(obj));
    return 'updated';
  });
}

/**
 * As {@link createOrUpdate}, but writes changes as JSON merge patches (controller-runtime's
 * `CreateOrPatch`): one of the object without its status, one of the status subresource
 * when the status changed (through `client.patchStatus`). Patches only send the fields
 * `mutate` changed, so they do not conflict with writers of other fields.
 *
 * @throws {TypeError} as {@link createOrUpdate}, and when the status changed but the client
 *   has no `patchStatus`.
 */
export function createOrPatch<T extends HasObjectMeta>(
  client: GetCreatePatchClient<T>,
  obj: T,
  mutate: (obj: T) => void | Promise<void>,
): Promise<OperationResult> {
  return mutateLive(client, obj, mutate, async (mutated, key) => {
    const { status: beforeStatus, ...before } = mutated as T & { status?: unknown };
    const { status: afterStatus, ...after } = obj as T & { status?: unknown };
    let result: OperationResult = 'unchanged';
    const patch = createMergePatch(before, after);
    if (Object.keys(patch).length > 0) {
      const patched = await client.patch(key.name, PatchType.MergePatch, patch);
      replaceContents(obj, {
        ...patched,
        ...(afterStatus === undefined ? {} : { status: afterStatus }),
      });
      result = 'updated';
    }
    if (!jsonEqual(beforeStatus, afterStatus)) {
      if (client.patchStatus === undefined) {
        throw new TypeError(
          `the status of ${describeKey(key)} changed but the client has no patchStatus: pass a client of a resource with a status subresource`,
        );
      }
      const statusPatch = createMergePatch(
        { status: beforeStatus ?? {} },
        { status: afterStatus ?? {} },
      );
      replaceContents(obj, await client.patchStatus(key.name, PatchType.MergePatch, statusPatch));
      result = result === 'updated' ? 'updatedStatus' : 'updatedStatusOnly';
    }
    return result;
  });
}

interface Key {
  namespace: string;
  name: string;
}

function keyOf(obj: HasObjectMeta): Key {
  const name = obj.metadata?.name;
  if (!name) {
    throw new TypeError('createOrUpdate needs metadata.name: it reads the object by name first');
  }
  return { namespace: obj.metadata?.namespace ?? '', name };
}

function describeKey(key: Key): string {
  return key.namespace ? `${key.namespace}/${key.name}` : key.name;
}

// The part both share: reads the live object into `obj`, or creates it from `mutate`'s
// result when there is none ('created'); otherwise runs `mutate` on it and lets `write`
// compare it with the copy taken before and write what changed.
async function mutateLive<T extends HasObjectMeta>(
  client: { get(name: string): Promise<T>; create(obj: T): Promise<T> },
  obj: T,
  mutate: (obj: T) => void | Promise<void>,
  write: (before: T, key: Key) => Promise<OperationResult>,
): Promise<OperationResult> {
  const key = keyOf(obj);
  try {
    replaceContents(obj, await client.get(key.name));
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await mutateChecked(obj, key, mutate);
    replaceContents(obj, await client.create(obj));
    return 'created';
  }
  const before = structuredClone(obj);
  await mutateChecked(obj, key, mutate);
  return write(before, key);
}

async function mutateChecked<T extends HasObjectMeta>(
  obj: T,
  key: Key,
  mutate: (obj: T) => void | Promise<void>,
): Promise<void> {
  await mutate(obj);
  const after = { namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' };
  // A cluster-scoped object read back has no namespace; that is not a change.
  if (after.name !== key.name || (after.namespace !== key.namespace && after.namespace !== '')) {
    throw new TypeError(
      `mutate must not change the object's name or namespace: ${describeKey(key)} became ${describeKey(after)}`,
    );
  }
}

// Callers keep using the object they passed in, as with controller-runtime's pointer.
function replaceContents<T extends object>(target: T, source: T): void {
  for (const key of Object.keys(target)) delete (target as Record<string, unknown>)[key];
  Object.assign(target, source);
}
