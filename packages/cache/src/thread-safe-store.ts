import type { SettableGaugeMetric } from '@kubets/apimachinery';
import { resourceVersionMetricValue } from './reflector-metrics.js';

/**
 * Computes the values an object is indexed under for one named index (client-go
 * `cache.IndexFunc`), e.g. its namespace, its node name, or its owner's UID. An object may
 * have any number of values, including none.
 */
export type IndexFunc<T> = (obj: T) => readonly string[];

/** Named index functions (client-go `cache.Indexers`): index name → function. */
export type Indexers<T> = Record<string, IndexFunc<T>>;

/** The name of the index {@link metaNamespaceIndexFunc} is usually registered under. */
export const namespaceIndex = 'namespace';

/** Indexes an object by `metadata.namespace` (client-go `cache.MetaNamespaceIndexFunc`). */
export function metaNamespaceIndexFunc(obj: {
  metadata?: { namespace?: string } | undefined;
}): string[] {
  return [obj.metadata?.namespace ?? ''];
}

/** Thrown for an index name that has no registered index function. */
export class IndexNotFoundError extends Error {
  /** The unknown index name. */
  readonly indexName: string;

  constructor(indexName: string) {
    super(`index with name ${JSON.stringify(indexName)} does not exist`);
    this.name = 'IndexNotFoundError';
    this.indexName = indexName;
  }
}

const emptyKeys: ReadonlySet<string> = new Set<string>();

/** What a transaction does with its object (client-go `cache.TransactionType`). */
export type TransactionType = 'Add' | 'Update' | 'Delete';

/** One write of a {@link ThreadSafeStore.transaction}, with its key already computed. */
export interface ThreadSafeStoreTransaction<T> {
  /** The write. */
  readonly type: TransactionType;
  /** The object added, updated, or deleted (its last known state). */
  readonly object: T;
  /** The object's key. */
  readonly key: string;
}

/** Options of a {@link ThreadSafeStore}. */
export interface ThreadSafeStoreOptions {
  /**
   * Set to the store's resourceVersion (its last 15 digits) on every change of it (client-go
   * `WithThreadSafeStoreMetrics`); usually from {@link newStoreResourceVersionMetric}.
   */
  resourceVersionMetric?: SettableGaugeMetric | undefined;
}

/**
 * The resourceVersion of `obj` when it has object metadata (client-go `meta.Accessor`
 * succeeding), `undefined` otherwise (a tombstone, a string).
 */
function resourceVersionOf(obj: unknown): string | undefined {
  if (typeof obj !== 'object' || obj === null) return undefined;
  const meta = (obj as { metadata?: unknown }).metadata;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const rv = (meta as { resourceVersion?: unknown }).resourceVersion;
  return typeof rv === 'string' ? rv : '';
}

/** index name → indexed value → keys of the objects with that value. */
type Index = Map<string, Set<string>>;

/**
 * A key → object map with named secondary indexes (client-go `cache.ThreadSafeStore`).
 * JavaScript runs one task at a time, so no locks are needed; the name is kept for
 * familiarity. Objects are stored as given (never copied): treat them as read-only.
 *
 * Every write costs O(number of indexes), independent of the store's size.
 */
export class ThreadSafeStore<T> {
  #items = new Map<string, T>();
  #indexers: Map<string, IndexFunc<T>>;
  #indices = new Map<string, Index>();
  #resourceVersion = '';
  readonly #rvMetric: SettableGaugeMetric | undefined;

  constructor(indexers: Indexers<T> = {}, options: ThreadSafeStoreOptions = {}) {
    this.#indexers = new Map(Object.entries(indexers));
    for (const name of this.#indexers.keys()) this.#indices.set(name, new Map());
    this.#rvMetric = options.resourceVersionMetric;
  }

  /** Inserts or replaces the object under `key`. */
  add(key: string, obj: T): void {
    this.update(key, obj);
  }

  /**
   * Inserts or replaces the object under `key`, keeping the indexes current. An object with
   * metadata sets the store's resourceVersion to its own.
   */
  update(key: string, obj: T): void {
    this.#put(key, obj);
    this.#setResourceVersion(resourceVersionOf(obj));
  }

  /** Removes the object under `key`, if any. */
  delete(key: string): void {
    this.#remove(key);
  }

  /**
   * Removes the object under `key`, if any; `obj` is its last known state, whose
   * resourceVersion (when it has metadata) becomes the store's (client-go `DeleteWithObject`).
   */
  deleteWithObject(key: string, obj: unknown): void {
    this.#remove(key);
    this.#setResourceVersion(resourceVersionOf(obj));
  }

  /**
   * Applies `txns` in order (client-go `Transaction`); the store's resourceVersion becomes
   * the last object's, when it has metadata.
   */
  transaction(txns: readonly ThreadSafeStoreTransaction<T>[]): void {
    if (txns.length === 0) return;
    for (const txn of txns) {
      if (txn.type === 'Delete') this.#remove(txn.key);
      else this.#put(txn.key, txn.object);
    }
    this.#setResourceVersion(resourceVersionOf(txns[txns.length - 1]!.object));
  }

  /**
   * The resourceVersion the store is at (client-go `LastStoreSyncResourceVersion`): that of
   * the last object written with metadata, of the last {@link ThreadSafeStore.replace} or of
   * the last {@link ThreadSafeStore.bookmark}; `''` at first.
   */
  lastStoreSyncResourceVersion(): string {
    return this.#resourceVersion;
  }

  /** The store has seen everything up to `resourceVersion` (a watch BOOKMARK). */
  bookmark(resourceVersion: string): void {
    this.#setResourceVersion(resourceVersion);
  }

  #put(key: string, obj: T): void {
    const old = this.#items.get(key);
    this.#items.set(key, obj);
    if (this.#indexers.size > 0) this.#updateIndices(old, obj, key);
  }

  #remove(key: string): void {
    const old = this.#items.get(key);
    if (old === undefined && !this.#items.has(key)) return;
    if (this.#indexers.size > 0) this.#updateIndices(old, undefined, key);
    this.#items.delete(key);
  }

  #setResourceVersion(rv: string | undefined): void {
    if (rv === undefined) return;
    this.#resourceVersion = rv;
    if (this.#rvMetric === undefined) return;
    const value = resourceVersionMetricValue(rv);
    if (value !== undefined) this.#rvMetric.set(value);
  }

  /** The object under `key`, or `undefined`. */
  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  /** True when an object is stored under `key`. */
  has(key: string): boolean {
    return this.#items.has(key);
  }

  /** Number of stored objects. */
  get size(): number {
    return this.#items.size;
  }

  /** All stored objects, in insertion order. */
  list(): T[] {
    return Array.from(this.#items.values());
  }

  /** All keys, in insertion order. */
  listKeys(): string[] {
    return Array.from(this.#items.keys());
  }

  /** Iterates keys without copying them into an array. */
  keys(): IterableIterator<string> {
    return this.#items.keys();
  }

  /**
   * Replaces the whole content with `items` (key → object), listed at `resourceVersion`
   * (which becomes the store's), and rebuilds the indexes.
   */
  replace(items: Map<string, T>, resourceVersion = ''): void {
    this.#items = items;
    this.#setResourceVersion(resourceVersion);
    for (const name of this.#indexers.keys()) this.#indices.set(name, new Map());
    if (this.#indexers.size === 0) return;
    for (const [key, obj] of items) this.#updateIndices(undefined, obj, key);
  }

  /**
   * Objects that share at least one indexed value with `obj` under the index `indexName`
   * (client-go `Index`).
   *
   * @throws {IndexNotFoundError} for an unknown index name.
   */
  index(indexName: string, obj: T): T[] {
    const fn = this.#indexFunc(indexName);
    const index = this.#indices.get(indexName)!;
    const values = fn(obj);
    if (values.length === 1) return this.#objects(index.get(values[0]!) ?? emptyKeys);
    const keys = new Set<string>();
    for (const value of values) {
      const set = index.get(value);
      if (set) for (const key of set) keys.add(key);
    }
    return this.#objects(keys);
  }

  /**
   * Keys of the objects whose index function `indexName` yields `indexedValue` (client-go
   * `IndexKeys`).
   *
   * @throws {IndexNotFoundError} for an unknown index name.
   */
  indexKeys(indexName: string, indexedValue: string): string[] {
    this.#indexFunc(indexName);
    const set = this.#indices.get(indexName)!.get(indexedValue);
    return set ? Array.from(set) : [];
  }

  /**
   * Every value the index `indexName` currently holds objects for (client-go
   * `ListIndexFuncValues`).
   *
   * @throws {IndexNotFoundError} for an unknown index name.
   */
  listIndexFuncValues(indexName: string): string[] {
    this.#indexFunc(indexName);
    return Array.from(this.#indices.get(indexName)!.keys());
  }

  /**
   * Objects whose index function `indexName` yields `indexedValue` (client-go `ByIndex`):
   * O(number of matches).
   *
   * @throws {IndexNotFoundError} for an unknown index name.
   */
  byIndex(indexName: string, indexedValue: string): T[] {
    this.#indexFunc(indexName);
    const set = this.#indices.get(indexName)!.get(indexedValue);
    return set ? this.#objects(set) : [];
  }

  /** The registered index functions. */
  getIndexers(): Indexers<T> {
    return Object.fromEntries(this.#indexers);
  }

  /**
   * Registers more index functions and indexes the objects already stored under them.
   *
   * @throws {Error} when a name is already registered (nothing is added then).
   */
  addIndexers(newIndexers: Indexers<T>): void {
    const entries = Object.entries(newIndexers);
    for (const [name] of entries) {
      if (this.#indexers.has(name)) {
        throw new Error(`indexer conflict: index ${JSON.stringify(name)} is already registered`);
      }
    }
    for (const [name, fn] of entries) {
      this.#indexers.set(name, fn);
      const index: Index = new Map();
      this.#indices.set(name, index);
      for (const [key, obj] of this.#items) {
        for (const value of fn(obj)) addToIndex(index, value, key);
      }
    }
  }

  /** Nothing to do for a plain store; present for client-go parity. */
  resync(): void {}

  #indexFunc(indexName: string): IndexFunc<T> {
    const fn = this.#indexers.get(indexName);
    if (fn === undefined) throw new IndexNotFoundError(indexName);
    return fn;
  }

  #objects(keys: Iterable<string>): T[] {
    const out: T[] = [];
    for (const key of keys) {
      const obj = this.#items.get(key);
      if (obj !== undefined) out.push(obj);
    }
    return out;
  }

  #updateIndices(oldObj: T | undefined, newObj: T | undefined, key: string): void {
    for (const [name, fn] of this.#indexers) {
      const index = this.#indices.get(name)!;
      const oldValues = oldObj === undefined ? noValues : fn(oldObj);
      const newValues = newObj === undefined ? noValues : fn(newObj);
      // The common case: one value, unchanged (e.g. the namespace of an updated object).
      if (oldValues.length === 1 && newValues.length === 1 && oldValues[0] === newValues[0]) {
        continue;
      }
      for (const value of oldValues) {
        if (!newValues.includes(value)) removeFromIndex(index, value, key);
      }
      for (const value of newValues) {
        if (!oldValues.includes(value)) addToIndex(index, value, key);
      }
    }
  }
}

const noValues: readonly string[] = Object.freeze([]);

function addToIndex(index: Index, value: string, key: string): void {
  let set = index.get(value);
  if (set === undefined) {
    set = new Set();
    index.set(value, set);
  }
  set.add(key);
}

function removeFromIndex(index: Index, value: string, key: string): void {
  const set = index.get(value);
  if (set === undefined) return;
  set.delete(key);
  // Drop empty sets so that high-cardinality values (UIDs, names) do not leak.
  if (set.size === 0) index.delete(value);
}
