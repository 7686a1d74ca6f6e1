import { storeKey } from './object-entry.js';
import { meta } from './object-meta.js';
import { isObject, type JsonObject } from './patch.js';
import type { VersionedStore } from './versioned-store.js';
import { deleteObject } from './write-delete.js';

/**
 * The namespace controller of kube-controller-manager, which envtest lacks (opt-in on the
 * in-memory server): once a namespace is Terminating, deletes everything in it (pods with no
 * grace period), and when nothing is left (objects with finalizers keep it waiting), clears
 * its `kubernetes` finalizer, which removes it. Runs synchronously after each write that
 * touches a terminating namespace, so tests need no waiting for it.
 */
export function syncNamespace(store: VersionedStore, namespace: string): void {
  const namespaces = store.existingStore('', 'namespaces');
  const prev = namespaces?.get(storeKey('', namespace));
  if (!namespaces || !prev || meta(prev.obj).deletionTimestamp === undefined) return;
  let remaining = 0;
  for (const resource of store.stores()) {
    const { definition } = resource;
    if (!definition.namespaced) continue;
    const target = { definition, version: definition.versions[0] ?? 'v1', namespace };
    for (const entry of [...resource.entries(namespace)]) {
      if (meta(entry.obj).deletionTimestamp === undefined) {
        const { deleted } = deleteObject(store, target, entry.name, { gracePeriodSeconds: 0 });
        if (deleted) continue;
      }
      remaining++;
    }
  }
  if (remaining > 0) return;
  const finalized: JsonObject = {
    ...prev.obj,
    spec: { ...(isObject(prev.obj.spec) ? prev.obj.spec : {}), finalizers: [] },
  };
  const nsTarget = { definition: namespaces.definition, version: 'v1', namespace: undefined };
  store.commit(nsTarget, prev, finalized, { manager: 'kube-controller-manager' });
}
