import { collectGarbage } from './garbage-collector.js';
import { type ListQuery, type ListResult, listObjects } from './list.js';
import { syncNamespace } from './namespace-controller.js';
import type { Entry } from './object-entry.js';
import type { JsonObject, JsonValue } from './patch.js';
import { renderObject } from './render.js';
import type { ResourceStore } from './resource-store.js';
import { apiVersionOf, type ResourceDefinition, type ResourceRegistry } from './resources.js';
import { parseSelection, type Selection } from './selectors.js';
import type { ApiError } from './status.js';
import type { PatchOptions, Target, TypedPatch, WriteOptions } from './target.js';
import { isNamespaces, type StorageHooks, VersionedStore } from './versioned-store.js';
import { bindPod } from './write-binding.js';
import { conflictFor } from './write-checks.js';
import { createObject } from './write-create.js';
import { type DeleteOptions, deleteObject } from './write-delete.js';
import { applyPatchToValue, patchObject } from './write-patch.js';
import { createsOnUpdate, updateObject } from './write-update.js';

/**
 * The object storage and REST semantics of the in-memory API server: what the HTTP side
 * calls. The state lives in a {@link VersionedStore}; each verb's rules live in the `write-*`
 * and `list` modules, so this class is the one place that names them all.
 */
export class ApiStorage {
  readonly #store: VersionedStore;
  readonly #namespaceController: boolean;
  readonly #garbageCollector: boolean;

  constructor(options: {
    historySize: number;
    revisionHistory?: number | undefined;
    namespaceController?: boolean | undefined;
    garbageCollector?: boolean | undefined;
  }) {
    this.#store = new VersionedStore(options);
    this.#namespaceController = options.namespaceController === true;
    this.#garbageCollector = options.garbageCollector === true;
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      this.create(
        this.#target('', 'v1', 'namespaces', undefined),
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
        { manager: 'kube-apiserver' },
      );
    }
  }

  /** The served resources, built-in and from CRDs. */
  get registry(): ResourceRegistry {
    return this.#store.registry;
  }

  /** See {@link StorageHooks}. */
  get hooks(): StorageHooks {
    return this.#store.hooks;
  }

  /** The global resourceVersion: the revision of the last write. */
  get rv(): number {
    return this.#store.rv;
  }

  /** See {@link VersionedStore.watchCacheRv}. */
  watchCacheRv(definition: ResourceDefinition): number {
    return this.#store.watchCacheRv(definition);
  }

  #target(group: string, version: string, resource: string, namespace: string | undefined): Target {
    const definition = this.registry.lookup(group, version, resource);
    if (!definition) throw new Error(`unknown resource ${group}/${version}/${resource}`);
    return { definition, version, namespace };
  }

  /** The store of a served resource. */
  storeOf(definition: ResourceDefinition): ResourceStore {
    return this.#store.storeOf(definition);
  }

  /** Every resource store. */
  stores(): ResourceStore[] {
    return this.#store.stores();
  }

  /** See {@link VersionedStore.requestedCompaction}. */
  get requestedCompaction(): number {
    return this.#store.requestedCompaction;
  }

  /** See {@link VersionedStore.waitForRevision}. */
  waitForRevision(
    rv: number,
    timer: (onTimeout: () => void) => { cancel(): void },
  ): Promise<boolean> {
    return this.#store.waitForRevision(rv, timer);
  }

  /** See {@link VersionedStore.compact}. */
  compact(): void {
    this.#store.compact();
  }

  /** Renders an entry at the apiVersion of the request (custom resources may differ). */
  render(entry: Entry, target: Target): string {
    return renderObject(entry, apiVersionOf(target.definition.group, target.version), 'full');
  }

  /** GET one object. */
  get(target: Target, name: string): Entry {
    return this.#store.get(target, name);
  }

  /** POST: creates an object. */
  create(target: Target, body: JsonObject, options: WriteOptions): Entry {
    const entry = createObject(this.#store, target, body, options);
    if (this.#garbageCollector && !options.dryRun) collectGarbage(this.#store);
    return entry;
  }

  /** PUT: replaces an object (or its status). */
  update(target: Target, name: string, body: JsonObject, options: WriteOptions): Entry {
    const entry = updateObject(this.#store, target, name, body, options);
    this.#afterWrite(target, name);
    return entry;
  }

  /** Whether a PUT of `name` would create it (Events allow create on update). */
  createsOnUpdate(target: Target, name: string): boolean {
    return createsOnUpdate(this.#store, target, name);
  }

  /** PATCH (json, merge, strategic or apply). Apply creates the object when it is missing. */
  patch(target: Target, name: string, typed: TypedPatch, options: PatchOptions): Entry {
    const entry = patchObject(this.#store, target, name, typed, options);
    this.#afterWrite(target, name);
    return entry;
  }

  /** With the controllers on: lets the garbage collector and the namespace controller act on a write in (or to) a terminating namespace. */
  #afterWrite(target: Target, name: string): void {
    if (this.#garbageCollector) collectGarbage(this.#store);
    if (!this.#namespaceController) return;
    syncNamespace(this.#store, isNamespaces(target.definition) ? name : (target.namespace ?? ''));
  }

  /** Applies a json, merge or strategic patch (apply is treated as merge) to a value. */
  applyPatchToValue(
    base: JsonObject,
    typed: TypedPatch,
    definition: ResourceDefinition,
  ): JsonValue {
    return applyPatchToValue(base, typed, definition);
  }

  /** POST `pods/<name>/binding`: puts the pod on the Binding's node. */
  bind(target: Target, name: string, binding: JsonObject, dryRun: boolean): Entry {
    return bindPod(this.#store, target, name, binding, dryRun);
  }

  /** The 409 Conflict of a stale resourceVersion on `name`. */
  conflictFor(target: Target, name: string): ApiError {
    return conflictFor(target, name);
  }

  /** DELETE one object. Returns the object and whether it is gone (false: finalizers pending). */
  delete(target: Target, name: string, options: DeleteOptions): { entry: Entry; deleted: boolean } {
    const result = deleteObject(this.#store, target, name, options);
    this.#afterWrite(target, name);
    return result;
  }

  /** Parses and checks the selectors of a list or watch. */
  selection(
    target: Target,
    query: { labelSelector?: string | undefined; fieldSelector?: string | undefined },
  ): Selection {
    return parseSelection(target, query);
  }

  /** LIST with selectors, paging and resourceVersion semantics of kube-apiserver 1.20. */
  list(target: Target, query: ListQuery): ListResult {
    return listObjects(this.#store, target, query);
  }

  /** Deletes every object a list with these selectors returns; answers the deleted objects. */
  deleteCollection(target: Target, query: ListQuery, dryRun: boolean): Entry[] {
    const { items } = this.list(target, {
      labelSelector: query.labelSelector,
      fieldSelector: query.fieldSelector,
    });
    const out: Entry[] = [];
    for (const item of items) {
      const { entry } = this.delete(
        { ...target, namespace: item.namespace || target.namespace },
        item.name,
        { dryRun },
      );
      out.push(entry);
    }
    return out;
  }
}
