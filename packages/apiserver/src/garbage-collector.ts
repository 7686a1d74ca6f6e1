import type { Entry } from './object-entry.js';
import { meta } from './object-meta.js';
import { isObject, type JsonObject } from './patch.js';
import type { ResourceStore } from './resource-store.js';
import type { Target } from './target.js';
import type { VersionedStore } from './versioned-store.js';
import { deleteObject } from './write-delete.js';

/** The GC's field manager, as kube-controller-manager's garbage collector writes. */
const MANAGER = 'kube-controller-manager';
const FOREGROUND = 'foregroundDeletion';
const ORPHAN = 'orphan';
/** Passes before giving up on reaching a fixed point (each pass changes something). */
const MAX_PASSES = 1000;

interface Located {
  readonly entry: Entry;
  readonly target: Target;
}

function targetOf(store: ResourceStore, entry: Entry): Target {
  const { definition } = store;
  return {
    definition,
    version: definition.versions[0] ?? 'v1',
    namespace: definition.namespaced ? entry.namespace : undefined,
  };
}

const ownerRefs = (obj: JsonObject): JsonObject[] => {
  const refs = meta(obj).ownerReferences;
  return Array.isArray(refs) ? refs.filter(isObject) : [];
};

const finalizersOf = (obj: JsonObject): string[] => {
  const finalizers = meta(obj).finalizers;
  return Array.isArray(finalizers) ? finalizers.filter((f) => typeof f === 'string') : [];
};

/** Every stored object, by uid, and every object that has owner references. */
function index(store: VersionedStore): { byUid: Map<string, Located>; owned: Located[] } {
  const byUid = new Map<string, Located>();
  const owned: Located[] = [];
  for (const resource of store.stores()) {
    for (const entry of resource.entries(undefined)) {
      const located = { entry, target: targetOf(resource, entry) };
      const uid = meta(entry.obj).uid;
      if (typeof uid === 'string') byUid.set(uid, located);
      if (ownerRefs(entry.obj).length > 0) owned.push(located);
    }
  }
  return { byUid, owned };
}

function commitMeta(store: VersionedStore, { entry, target }: Located, md: JsonObject): void {
  store.commit(target, entry, { ...entry.obj, metadata: md }, { manager: MANAGER });
}

/** Removes `finalizer` from an object being deleted (which goes when none is left). */
function dropFinalizer(store: VersionedStore, located: Located, finalizer: string): void {
  const md = { ...meta(located.entry.obj) };
  md.finalizers = finalizersOf(located.entry.obj).filter((f) => f !== finalizer);
  commitMeta(store, located, md);
}

/** One pass; true when it changed something (so another pass may find more to do). */
function collectOnce(store: VersionedStore): boolean {
  const { byUid, owned } = index(store);
  const dependentsOf = (uid: string): Array<{ dependent: Located; ref: JsonObject }> =>
    owned.flatMap((dependent) =>
      ownerRefs(dependent.entry.obj)
        .filter((ref) => ref.uid === uid)
        .map((ref) => ({ dependent, ref })),
    );
  for (const owner of byUid.values()) {
    const md = meta(owner.entry.obj);
    if (md.deletionTimestamp === undefined) continue;
    const finalizers = finalizersOf(owner.entry.obj);
    const uid = String(md.uid);
    if (finalizers.includes(ORPHAN)) {
      // Orphan: the dependents lose their reference to this owner, then the finalizer goes.
      for (const { dependent } of dependentsOf(uid)) {
        const dmd = { ...meta(dependent.entry.obj) };
        const rest = ownerRefs(dependent.entry.obj).filter((ref) => ref.uid !== uid);
        if (rest.length > 0) dmd.ownerReferences = rest;
        else delete dmd.ownerReferences;
        commitMeta(store, dependent, dmd);
      }
      dropFinalizer(store, owner, ORPHAN);
      return true;
    }
    if (finalizers.includes(FOREGROUND)) {
      // Foreground: the dependents are deleted; the owner waits for the blocking ones.
      const dependents = dependentsOf(uid);
      let changed = false;
      for (const { dependent } of dependents) {
        if (meta(dependent.entry.obj).deletionTimestamp !== undefined) continue;
        deleteObject(store, dependent.target, dependent.entry.name, {
          propagationPolicy: 'Foreground',
          gracePeriodSeconds: 0,
        });
        changed = true;
      }
      if (changed) return true;
      if (dependents.some(({ ref }) => ref.blockOwnerDeletion === true)) continue;
      dropFinalizer(store, owner, FOREGROUND);
      return true;
    }
  }
  // Background: an object whose owners are all gone is deleted; dangling references to
  // some gone owners are removed while others remain.
  for (const dependent of owned) {
    const dmd = meta(dependent.entry.obj);
    const refs = ownerRefs(dependent.entry.obj);
    const live = refs.filter((ref) => typeof ref.uid === 'string' && byUid.has(ref.uid));
    if (live.length === refs.length) continue;
    if (live.length > 0) {
      commitMeta(store, dependent, { ...dmd, ownerReferences: live });
      return true;
    }
    if (dmd.deletionTimestamp !== undefined) continue;
    deleteObject(store, dependent.target, dependent.entry.name, {
      propagationPolicy: 'Background',
      gracePeriodSeconds: 0,
    });
    return true;
  }
  return false;
}

/**
 * The garbage collector of kube-controller-manager, which envtest lacks (opt-in on the
 * in-memory server): deletes objects whose owners (`ownerReferences`, matched by uid) are all
 * gone and drops references to gone owners; for an owner deleted with `Foreground`, deletes its
 * dependents and removes `foregroundDeletion` once no dependent with `blockOwnerDeletion` is
 * left; for `Orphan`, removes the owner from its dependents' references, then `orphan`. Runs
 * synchronously after each write until nothing is left to do, so tests need no waiting.
 */
export function collectGarbage(store: VersionedStore): void {
  for (let pass = 0; pass < MAX_PASSES && collectOnce(store); pass++);
}
