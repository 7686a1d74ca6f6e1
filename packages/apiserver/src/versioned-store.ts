import {
  canonicalCoreEvent,
  coreEventFromEventsApi,
  isCoreEvents,
  isEventsApi,
} from './event-versions.js';
import { goSortedKeys } from './go-decode.js';
import { type Entry, makeEntry, storeKey } from './object-entry.js';
import { meta, namespaceHasFinalizers, objectName } from './object-meta.js';
import { isObject, type JsonObject } from './patch.js';
import { ResourceStore } from './resource-store.js';
import {
  definitionFromCrd,
  type ResourceDefinition,
  ResourceRegistry,
  resourceKey,
} from './resources.js';
import { notFound } from './status.js';
import { keyNamespace, type Target, type WriteOptions } from './target.js';
import { inGoOrder } from './wire-order.js';

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
  readonly #revisionHistory: number;
  readonly hooks: StorageHooks = {};
  /** The global resourceVersion: the revision of the last write. */
  rv = 0;
  /**
   * The global compaction point, as etcd's: exact lists and continue tokens at an older
   * revision get 410. Moves with {@link VersionedStore.compact} and as writes push revisions
   * out of the `revisionHistory` window.
   */
  compactedRv = 0;
  /** The compaction point {@link VersionedStore.compact} set (watches from before it get etcd's 410). */
  requestedCompaction = 0;
  readonly #revisionWaiters = new Set<RevisionWaiter>();

  constructor(options: { historySize: number; revisionHistory?: number | undefined }) {
    this.#historySize = options.historySize;
    this.#revisionHistory = options.revisionHistory ?? Number.POSITIVE_INFINITY;
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
    const key = storageKey(definition);
    let store = this.#stores.get(key);
    if (!store) {
      store = new ResourceStore(definition, this.#historySize, floor, () => this.compactedRv);
      this.#stores.set(key, store);
    }
    return store;
  }

  /** The store of a served resource. */
  storeOf(definition: ResourceDefinition): ResourceStore {
    return this.#ensureStore(definition, this.rv);
  }

  /**
   * The resourceVersion a read served by kube-apiserver 1.20's watch cache answers (a LIST at
   * `resourceVersion=0`, a GET or LIST at another version): the resource's own
   * {@link ResourceStore.cacheRv}. Events have no watch cache in 1.20, so those reads go to
   * etcd and answer the global revision.
   */
  watchCacheRv(definition: ResourceDefinition): number {
    if (isEventsApi(definition) || isCoreEvents(definition)) return this.rv;
    return this.storeOf(definition).cacheRv;
  }

  /** The store of `group`/`resource` if it exists; never creates one. */
  existingStore(group: string, resource: string): ResourceStore | undefined {
    return this.#stores.get(storageKey({ group, resource }));
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
    this.compactedRv = this.rv;
    this.requestedCompaction = this.rv;
    for (const store of this.#stores.values()) store.compact(this.rv);
    this.#revisionChanged();
  }

  /**
   * Resolves true once the global resourceVersion reaches `rv`, false when `timer` fires first
   * (the caller's clock: kube-apiserver's watch cache waits 3 s).
   */
  waitForRevision(
    rv: number,
    timer: (onTimeout: () => void) => { cancel(): void },
  ): Promise<boolean> {
    if (this.rv >= rv) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const waiter: RevisionWaiter = {
        rv,
        reached: () => {
          handle.cancel();
          resolve(true);
        },
      };
      const handle = timer(() => {
        this.#revisionWaiters.delete(waiter);
        resolve(false);
      });
      this.#revisionWaiters.add(waiter);
    });
  }

  /** Moves to the next revision, compacting what falls out of the revision window. */
  #nextRevision(): number {
    this.rv++;
    if (this.rv - this.#revisionHistory > this.compactedRv)
      this.compactedRv = this.rv - this.#revisionHistory;
    return this.rv;
  }

  #revisionChanged(): void {
    for (const waiter of [...this.#revisionWaiters]) {
      if (this.rv < waiter.rv) continue;
      this.#revisionWaiters.delete(waiter);
      waiter.reached();
    }
  }

  /** GET one object. */
  get(target: Target, name: string): Entry {
    const { definition } = target;
    const entry = this.storeOf(definition).get(storeKey(keyNamespace(target), name));
    if (!entry) throw notFound(definition.resource, name, definition.group);
    return entry;
  }

  /** Stores `next` (prepared) over `prev`: resourceVersion, event, CRD side effects. */
  commit(target: Target, prev: Entry | undefined, input: JsonObject, options: WriteOptions): Entry {
    const { definition } = target;
    const store = this.storeOf(definition);
    const next = isEventsApi(definition)
      ? coreEventFromEventsApi(input)
      : isCoreEvents(definition)
        ? canonicalCoreEvent(input)
        : input;
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
    const rv = options.dryRun ? (prev?.rv ?? 0) : this.#nextRevision();
    // A dry-run create is never stored, so it answers without a resourceVersion.
    if (options.dryRun && !prev) delete md.resourceVersion;
    else md.resourceVersion = String(rv);
    dropEmptyMetadata(md);
    const normalised = storedForm(definition, next);
    const entry = makeEntry(normalised, keyNamespace(target), objectName(normalised), rv);
    if (options.dryRun) return entry;
    store.put(entry, prev ? 'MODIFIED' : 'ADDED', prev);
    if (isCrdResource(definition)) this.#crdChanged(prev?.obj, normalised);
    this.#revisionChanged();
    return entry;
  }

  /** Deletes `prev` for good, `last` being its final state; returns the tombstone. */
  remove(target: Target, prev: Entry, last: JsonObject): Entry {
    const store = this.storeOf(target.definition);
    const rv = this.#nextRevision();
    const obj = storedForm(target.definition, {
      ...last,
      metadata: { ...meta(last), resourceVersion: String(rv) },
    });
    const tombstone = makeEntry(obj, prev.namespace, prev.name, rv);
    store.remove(prev, tombstone);
    this.#revisionChanged();
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

/** ObjectMeta's lists and maps that Go leaves out when empty (a patch may empty them). */
const OMITTED_WHEN_EMPTY = ['labels', 'annotations', 'finalizers', 'ownerReferences'];

function dropEmptyMetadata(md: JsonObject): void {
  for (const key of OMITTED_WHEN_EMPTY) {
    const value = md[key];
    if (
      Array.isArray(value) ? value.length === 0 : isObject(value) && Object.keys(value).length === 0
    )
      delete md[key];
  }
}

/** Where a resource's objects are kept: events.k8s.io's Events are core Events. */
function storageKey(definition: Pick<ResourceDefinition, 'group' | 'resource'>): string {
  if (isEventsApi(definition)) return resourceKey('', 'events');
  return resourceKey(definition.group, definition.resource);
}

/** A read waiting for the global resourceVersion to reach `rv`. */
interface RevisionWaiter {
  readonly rv: number;
  reached(): void;
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

/**
 * An object as kube-apiserver encodes it: a built-in one in its Go struct's field order, a custom
 * resource (decoded into a map) with its keys sorted at every level, metadata included.
 */
function storedForm(definition: ResourceDefinition, obj: JsonObject): JsonObject {
  return definition.custom ? goSortedKeys(obj) : inGoOrder(obj);
}
