import { type Entry, makeEntry } from './object-entry.js';
import { meta, normalise, timestamp } from './object-meta.js';
import type { JsonObject } from './patch.js';
import { ApiError, failure } from './status.js';
import type { Target } from './target.js';
import type { VersionedStore } from './versioned-store.js';

/** DELETE one object. Returns the object and whether it is gone (false: finalizers pending). */
export function deleteObject(
  store: VersionedStore,
  target: Target,
  name: string,
  options: { preconditions?: { uid?: string; resourceVersion?: string }; dryRun?: boolean },
): { entry: Entry; deleted: boolean } {
  const { definition } = target;
  const prev = store.get(target, name);
  const md = meta(prev.obj);
  const pre = options.preconditions;
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
  const finalizers = Array.isArray(md.finalizers) ? md.finalizers : [];
  const isNamespace = definition.group === '' && definition.resource === 'namespaces';
  if (finalizers.length > 0 && !isNamespace) {
    if (md.deletionTimestamp !== undefined) return { entry: prev, deleted: false };
    const next: JsonObject = { ...prev.obj, metadata: { ...meta(prev.obj) } };
    const nextMd = meta(next);
    nextMd.deletionTimestamp = timestamp();
    nextMd.deletionGracePeriodSeconds = 0;
    const entry = store.commit(target, prev, next, {
      manager: '',
      dryRun: options.dryRun === true,
    });
    return { entry, deleted: false };
  }
  if (options.dryRun) return { entry: prev, deleted: true };
  if (isNamespace) {
    const last: JsonObject = { ...prev.obj, metadata: { ...meta(prev.obj) } };
    meta(last).deletionTimestamp = timestamp();
    last.status = { phase: 'Terminating' };
    store.remove(target, prev, last);
    return { entry: makeEntry(normalise(last), '', name, prev.rv), deleted: true };
  }
  store.remove(target, prev, prev.obj);
  return { entry: prev, deleted: true };
}
