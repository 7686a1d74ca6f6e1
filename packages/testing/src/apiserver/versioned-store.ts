import { type Entry, makeEntry, storeKey } from './object-entry.js';
import { meta, namespaceHasFinalizers, normalise, objectName } from './object-meta.js';
import type { JsonObject } from './patch.js';
import { ResourceStore } from './resource-store.js';
import {
  definitionFromCrd,
  type ResourceDefinition,
  ResourceRegistry,
  resourceKey,
} from './resources.js';
import { notFound } from './status.js';
import { keyNamespace, type Target, type WriteOptions } from './target.js';

/** Hooks the server installs to hear about registry changes (CRDs) and removed resources. */
export interface StorageHooks {
  /** Called when a resource stops being served: its watches must end. */
  resourceRemoved?(store: ResourceStore): void;
}

/**
 * Every served resource's {@link ResourceStore} and the one global resourceVersion, with the
 * single path every write takes ({@link VersionedStore.commit}, {@link VersionedStore.remove}):
 * that is where revisions are assigned, so it is also where the cascades live that a write
 * implies (a namespace's contents, a CRD's instances and the registry entry it serves).
 */
export class VersionedStore {
  readonly registry: ResourceRegistry;
  readonly #stores = new Map<string, ResourceStore>();
  readonly #historySize: number;
  readonly hooks: StorageHooks = {};
  /** The global resourceVersion: the revision of the last write. */
  rv = 0;

  constructor(options: { historySize: number }) {
    this.#historySize = options.historySize;
    this.registry = new ResourceRegistry();
    for (const definition of this.#allDefinitions()) this.#ensureStore(definition, 0);
  }

  #allDefinitions(): ResourceDefinition[] {
    const out: ResourceDefinition[] = [];
    for (const group of ['', ...this.registry.groups()]) {
      for (const version of this.registry.versionsOf(group)) {
        for (const d of this.registry.resourcesOf(group, version))
          if (!out.includes(d)) out.push(d);
      }
    }
    return out;
  }

  #ensureStore(definition: ResourceDefinition, floor: number): ResourceStore {
    const key = resourceKey(definition.group, definition.resource);
    let store = this.#stores.get(key);
    if (!store) {
      store = new ResourceStore(definition, this.#historySize, floor);
      this.#stores.set(key, store);
    }
    return store;
  }

  /** The store of a served resource. */
  storeOf(definition: ResourceDefinition): ResourceStore {
    return this.#ensureStore(definition, this.rv);
  }

  /** The store of `group`/`resource` if it exists; never creates one. */
  existingStore(group: string, resource: string): ResourceStore | undefined {
    return this.#stores.get(resourceKey(group, resource));
  }

  /** Every resource store. */
  stores(): ResourceStore[] {
    return [...this.#stores.values()];
  }

  /**
   * Forgets the history of every resource and moves the compaction point past the current
   * revision: watches from, continue tokens of and exact lists at any earlier resourceVersion
   * get 410 Gone/Expired.
   */
  compact(): void {
    this.rv++;
    for (const store of this.#stores.values()) store.compact(this.rv);
  }

  /** GET one object. */
  get(target: Target, name: string): Entry {
    const { definition } = target;
    const entry = this.storeOf(definition).get(storeKey(keyNamespace(target), name));
    if (!entry) throw notFound(definition.resource, name, definition.group);
    return entry;
  }

  /** Stores `next` (prepared) over `prev`: resourceVersion, event, CRD side effects. */
  commit(target: Target, prev: Entry | undefined, next: JsonObject, options: WriteOptions): Entry {
    const { definition } = target;
    const store = this.storeOf(definition);
    const md = meta(next);
    // An object being deleted goes away once its last finalizer is removed (a pod in its
    // grace period and a namespace with spec.finalizers stay).
    if (
      prev &&
      md.deletionTimestamp !== undefined &&
      (!Array.isArray(md.finalizers) || md.finalizers.length === 0) &&
      !(typeof md.deletionGracePeriodSeconds === 'number' && md.deletionGracePeriodSeconds > 0) &&
      !(isNamespaces(definition) && namespaceHasFinalizers(next))
    ) {
      if (options.dryRun) return prev;
      return this.remove(target, prev, next);
    }
    const rv = options.dryRun ? (prev?.rv ?? 0) : ++this.rv;
    md.resourceVersion = String(rv);
    const normalised = normalise(next);
    const entry = makeEntry(normalised, keyNamespace(target), objectName(normalised), rv);
    if (options.dryRun) return entry;
    store.put(entry, prev ? 'MODIFIED' : 'ADDED', prev);
    if (isCrdResource(definition)) this.#crdChanged(prev?.obj, normalised);
    return entry;
  }

  /** Deletes `prev` for good, `last` being its final state; returns the tombstone. */
  remove(target: Target, prev: Entry, last: JsonObject): Entry {
    const store = this.storeOf(target.definition);
    const rv = ++this.rv;
    const obj = normalise({ ...last, metadata: { ...meta(last), resourceVersion: String(rv) } });
    const tombstone = makeEntry(obj, prev.namespace, prev.name, rv);
    store.remove(prev, tombstone);
    const { definition } = target;
    if (isCrdResource(definition)) this.#crdChanged(prev.obj, undefined);
    if (isNamespaces(definition)) {
      for (const other of this.#stores.values()) {
        if (!other.definition.namespaced) continue;
        for (const entry of [...other.entries(prev.name)]) {
          this.remove(
            {
              definition: other.definition,
              version: other.definition.versions[0] ?? 'v1',
              namespace: prev.name,
            },
            entry,
            entry.obj,
          );
        }
      }
    }
    return tombstone;
  }

  #crdChanged(before: JsonObject | undefined, after: JsonObject | undefined): void {
    const oldDef = before ? definitionFromCrd(before) : undefined;
    const newDef = after ? definitionFromCrd(after) : undefined;
    if (
      oldDef &&
      (!newDef || oldDef.group !== newDef.group || oldDef.resource !== newDef.resource)
    ) {
      const key = resourceKey(oldDef.group, oldDef.resource);
      const store = this.#stores.get(key);
      if (store) {
        for (const entry of [...store.entries(undefined)]) {
          this.remove(
            {
              definition: store.definition,
              version: oldDef.versions[0] ?? 'v1',
              namespace: entry.namespace || undefined,
            },
            entry,
            entry.obj,
          );
        }
        this.hooks.resourceRemoved?.(store);
        this.#stores.delete(key);
      }
      this.registry.remove(oldDef.group, oldDef.resource);
    }
    if (newDef) {
      if (oldDef) this.registry.remove(oldDef.group, oldDef.resource);
      this.registry.add(newDef);
      const existing = this.#stores.get(resourceKey(newDef.group, newDef.resource));
      if (existing) {
        existing.definition = newDef;
      } else {
        this.#ensureStore(newDef, this.rv);
      }
    }
  }
}

/** Whether `definition` is CustomResourceDefinitions, whose writes change what is served. */
export function isCrdResource(definition: ResourceDefinition): boolean {
  return (
    definition.group === 'apiextensions.k8s.io' &&
    definition.resource === 'customresourcedefinitions'
  );
}

/** Whether `definition` is the core namespaces resource. */
export function isNamespaces(definition: ResourceDefinition): boolean {
  return definition.group === '' && definition.resource === 'namespaces';
}
