import { type Entry, makeEntry } from './object-entry.js';
import { meta, namespaceHasFinalizers, normalise, timestamp } from './object-meta.js';
import { isObject, type JsonObject } from './patch.js';
import { ApiError, failure } from './status.js';
import type { Target } from './target.js';
import { isNamespaces, type VersionedStore } from './versioned-store.js';

/** The DeleteOptions a DELETE honours. */
export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
  /** `Foreground` adds the `foregroundDeletion` finalizer, `Orphan` the `orphan` one. */
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan' | undefined;
  /** Pods only: seconds before a pod on a node goes; 0 deletes at once. */
  gracePeriodSeconds?: number | undefined;
}

/** DELETE one object. Returns the object and whether it is gone (false: finalizers pending). */
export function deleteObject(
  store: VersionedStore,
  target: Target,
  name: string,
  options: DeleteOptions,
): { entry: Entry; deleted: boolean } {
  const { definition } = target;
  const prev = store.get(target, name);
  checkPreconditions(target, name, prev, options.preconditions);
  const writeOptions = { manager: '', dryRun: options.dryRun === true };
  if (isNamespaces(definition)) {
    return deleteNamespace(store, target, prev, options.dryRun === true);
  }
  const md = meta(prev.obj);
  const finalizers = (Array.isArray(md.finalizers) ? md.finalizers : []).filter(
    (f): f is string => typeof f === 'string',
  );
  const grace = gracePeriod(target, prev.obj, options.gracePeriodSeconds);
  if (md.deletionTimestamp !== undefined) {
    // Already being deleted: only a shorter grace period changes anything.
    const current =
      typeof md.deletionGracePeriodSeconds === 'number' ? md.deletionGracePeriodSeconds : 0;
    if (grace === undefined || grace >= current) return { entry: prev, deleted: false };
    const next = deleting(prev.obj, grace, finalizers);
    if (grace === 0 && finalizers.length === 0)
      return removeWith(store, target, prev, next, writeOptions);
    return { entry: store.commit(target, prev, next, writeOptions), deleted: false };
  }
  const added =
    options.propagationPolicy === 'Foreground'
      ? 'foregroundDeletion'
      : options.propagationPolicy === 'Orphan'
        ? 'orphan'
        : undefined;
  const pending = added && !finalizers.includes(added) ? [...finalizers, added] : finalizers;
  if (pending.length > 0 || (grace ?? 0) > 0) {
    const next = deleting(prev.obj, grace ?? 0, pending);
    return { entry: store.commit(target, prev, next, writeOptions), deleted: false };
  }
  // Pods (the graceful kind) show their last state with a deletionTimestamp, others as they were.
  return removeWith(
    store,
    target,
    prev,
    grace === undefined ? prev.obj : deleting(prev.obj, 0, []),
    writeOptions,
  );
}

/**
 * A pod's grace period: the request's, else its `terminationGracePeriodSeconds` (default 30);
 * 0 for a pod on no node or that has finished. Undefined for resources deleted at once.
 */
function gracePeriod(
  target: Target,
  obj: JsonObject,
  requested: number | undefined,
): number | undefined {
  const { definition } = target;
  if (definition.group !== '' || definition.resource !== 'pods') return undefined;
  const spec = isObject(obj.spec) ? obj.spec : {};
  const status = isObject(obj.status) ? obj.status : {};
  if (typeof spec.nodeName !== 'string' || spec.nodeName === '') return 0;
  if (status.phase === 'Failed' || status.phase === 'Succeeded') return 0;
  if (requested !== undefined) return Math.max(0, requested);
  return typeof spec.terminationGracePeriodSeconds === 'number'
    ? spec.terminationGracePeriodSeconds
    : 30;
}

/** `obj` marked for deletion in `grace` seconds with these finalizers. */
function deleting(obj: JsonObject, grace: number, finalizers: string[]): JsonObject {
  const md: JsonObject = { ...meta(obj) };
  md.deletionTimestamp = timestamp(new Date(Date.now() + grace * 1000));
  md.deletionGracePeriodSeconds = grace;
  if (finalizers.length > 0) md.finalizers = finalizers;
  return { ...obj, metadata: md };
}

function removeWith(
  store: VersionedStore,
  target: Target,
  prev: Entry,
  last: JsonObject,
  options: { dryRun: boolean },
): { entry: Entry; deleted: boolean } {
  if (options.dryRun) return { entry: prev, deleted: true };
  return { entry: store.remove(target, prev, last), deleted: true };
}

/**
 * A namespace goes `Terminating` with a deletionTimestamp and stays until its `spec.finalizers`
 * (`kubernetes`) are gone: the namespace controller's work (see namespace-controller.ts).
 */
function deleteNamespace(
  store: VersionedStore,
  target: Target,
  prev: Entry,
  dryRun: boolean,
): { entry: Entry; deleted: boolean } {
  if (meta(prev.obj).deletionTimestamp !== undefined) return { entry: prev, deleted: false };
  const next: JsonObject = {
    ...prev.obj,
    metadata: { ...meta(prev.obj), deletionTimestamp: timestamp() },
    status: { ...(isObject(prev.obj.status) ? prev.obj.status : {}), phase: 'Terminating' },
  };
  if (!namespaceHasFinalizers(next)) {
    if (dryRun) return { entry: prev, deleted: true };
    store.remove(target, prev, next);
    return { entry: makeEntry(normalise(next), '', prev.name, prev.rv), deleted: true };
  }
  return { entry: store.commit(target, prev, next, { manager: '', dryRun }), deleted: false };
}

function checkPreconditions(
  target: Target,
  name: string,
  prev: Entry,
  pre: DeleteOptions['preconditions'],
): void {
  const { definition } = target;
  const md = meta(prev.obj);
  const preconditionFailed = (message: string): ApiError =>
    new ApiError(
      failure(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${definition.kind} "${name}": ${message}`,
        {
          name,
          ...(definition.custom ? { group: definition.group } : {}),
          kind: definition.kind,
        },
      ),
    );
  if (pre?.uid !== undefined && pre.uid !== md.uid) {
    throw preconditionFailed(
      `the UID in the precondition (${pre.uid}) does not match the UID in record (${String(md.uid)}). The object might have been deleted and then recreated`,
    );
  }
  if (pre?.resourceVersion !== undefined && pre.resourceVersion !== md.resourceVersion) {
    throw preconditionFailed(
      `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${String(md.resourceVersion)}). The object might have been modified`,
    );
  }
}
