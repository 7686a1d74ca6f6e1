import type { InformerNameAndResource } from './identity.js';
import { type InformerMetricsProvider, newStoreResourceVersionMetric } from './informer-metrics.js';
import type { DeletedFinalStateUnknown, KeyFunc } from './keys.js';
import { deletionHandlingMetaNamespaceKeyFunc } from './keys.js';
import {
  type Indexers,
  ThreadSafeStore,
  type ThreadSafeStoreTransaction,
  type TransactionType,
} from './thread-safe-store.js';

/** Options of a store or indexer ({@link newStore}, {@link newIndexer}). */
export interface StoreOptions<T> {
  /**
   * Called with every object put in the store (`add`, `update`, `replace`, transactions),
   * whose result is stored instead (client-go `WithTransformer`).
   */
  transformer?: ((obj: T) => T) | undefined;
  /**
   * The informer this store belongs to, for the `informer_store_resource_version` metric
   * (client-go `WithStoreMetrics`); metrics are recorded only for a reserved identity.
   */
  identifier?: InformerNameAndResource | undefined;
  /** Where that metric goes. Default: the provider set by `setInformerMetricsProvider`. */
  informerMetricsProvider?: InformerMetricsProvider | undefined;
}

/** One write of a {@link CacheIndexer.transaction} (client-go `cache.Transaction`). */
export interface Transaction<T> {
  /** What to do with `object`. */
  readonly type: TransactionType;
  /** The object to add, update or delete. */
  readonly object: T;
}

/** The transactions a {@link CacheIndexer.transaction} could not apply (client-go `TransactionError`). */
export class TransactionError extends Error {
  /** Indices (into the transactions given) of those that were applied. */
  readonly successfulIndices: readonly number[];
  /** How many transactions were given. */
  readonly totalTransactions: number;
  /** Why the others failed: the key function's errors, in order. */
  readonly errors: readonly unknown[];

  constructor(successfulIndices: number[], totalTransactions: number, errors: unknown[]) {
    super(
      `failed to execute (${totalTransactions - successfulIndices.length}/${totalTransactions}) transactions: ` +
        errors.map((e) => (e instanceof Error ? e.message : String(e))).join('; '),
    );
    this.name = 'TransactionError';
    this.successfulIndices = successfulIndices;
    this.totalTransactions = totalTransactions;
    this.errors = errors;
  }
}

/**
 * A keyed collection of objects (client-go `cache.Store`). Informers keep their cache in
 * one; the reflector writes into one (a FIFO or a plain store).
 */
export interface Store<T> {
  /** Inserts the object, or replaces the one with the same key. */
  add(obj: T): void;
  /** Replaces the object with the same key, or inserts it. */
  update(obj: T): void;
  /** Removes the object with the same key as `obj` (which may be a tombstone). */
  delete(obj: T | DeletedFinalStateUnknown<T>): void;
  /** All objects. */
  list(): T[];
  /** All keys. */
  listKeys(): string[];
  /** The stored object with the same key as `obj`, or `undefined`. */
  get(obj: T | DeletedFinalStateUnknown<T>): T | undefined;
  /** The stored object under `key`, or `undefined`. */
  getByKey(key: string): T | undefined;
  /** Replaces the whole content with `list`, listed at `resourceVersion`. */
  replace(list: T[], resourceVersion: string): void;
  /** Re-delivers the content where that means something (a DeltaFIFO); a no-op otherwise. */
  resync(): void;
  /**
   * The resourceVersion the store is at (client-go `LastStoreSyncResourceVersion`). Optional:
   * the stores of this package have it.
   */
  lastStoreSyncResourceVersion?(): string;
  /**
   * The store has seen everything up to `resourceVersion` (client-go `Bookmark`), from a
   * `Bookmark` delta. Optional: the stores of this package have it.
   */
  bookmark?(resourceVersion: string): void;
}

/**
 * A store that applies several writes in one call (client-go `TransactionStore`), such as
 * {@link CacheIndexer}.
 */
export interface TransactionStore<T> extends Store<T> {
  /**
   * Applies the writes in order; returns what could not be applied (`undefined` when all
   * were).
   */
  transaction(...txns: Transaction<T>[]): TransactionError | undefined;
}

/** True when `store` has a `transaction` method (a {@link TransactionStore}). */
export function isTransactionStore<T>(store: Store<T>): store is TransactionStore<T> {
  return typeof (store as Partial<TransactionStore<T>>).transaction === 'function';
}

/**
 * A {@link Store} with named secondary indexes (client-go `cache.Indexer`).
 *
 * Every method taking an index name throws {@link IndexNotFoundError} when no index
 * function is registered under that name.
 */
export interface Indexer<T> extends Store<T> {
  /** Objects that share an indexed value with `obj` under `indexName`. */
  index(indexName: string, obj: T): T[];
  /** Keys of the objects indexed under `indexedValue` by `indexName`. */
  indexKeys(indexName: string, indexedValue: string): string[];
  /** Every value `indexName` currently holds objects for. */
  listIndexFuncValues(indexName: string): string[];
  /** Objects indexed under `indexedValue` by `indexName`. */
  byIndex(indexName: string, indexedValue: string): T[];
  /** The registered index functions. */
  getIndexers(): Indexers<T>;
  /** Adds index functions; objects already stored are indexed at once. */
  addIndexers(newIndexers: Indexers<T>): void;
}

/**
 * The {@link Indexer} implementation: a {@link ThreadSafeStore} keyed by a {@link KeyFunc}.
 * Objects are stored by reference, never copied.
 */
export class CacheIndexer<T> implements Indexer<T>, TransactionStore<T> {
  readonly #store: ThreadSafeStore<T>;
  readonly #keyFunc: KeyFunc;
  readonly #transformer: ((obj: T) => T) | undefined;

  constructor(
    keyFunc: KeyFunc = deletionHandlingMetaNamespaceKeyFunc,
    indexers: Indexers<T> = {},
    options: StoreOptions<T> = {},
  ) {
    this.#keyFunc = keyFunc;
    this.#transformer = options.transformer;
    this.#store = new ThreadSafeStore(indexers, {
      resourceVersionMetric: newStoreResourceVersionMetric(
        options.identifier,
        options.informerMetricsProvider,
      ),
    });
  }

  /** The key function this store uses. */
  get keyFunc(): KeyFunc {
    return this.#keyFunc;
  }

  /** Number of stored objects. */
  get size(): number {
    return this.#store.size;
  }

  add(obj: T): void {
    const key = this.#keyFunc(obj);
    this.#store.add(key, this.#transformer === undefined ? obj : this.#transformer(obj));
  }

  update(obj: T): void {
    const key = this.#keyFunc(obj);
    this.#store.update(key, this.#transformer === undefined ? obj : this.#transformer(obj));
  }

  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.#store.deleteWithObject(this.#keyFunc(obj), obj);
  }

  /**
   * Applies the writes in order (client-go `Transaction`). Those whose key cannot be computed
   * are skipped and reported in the returned {@link TransactionError}; `undefined` when all
   * were applied.
   */
  transaction(...txns: Transaction<T>[]): TransactionError | undefined {
    const keyed: ThreadSafeStoreTransaction<T>[] = [];
    const successfulIndices: number[] = [];
    const errors: unknown[] = [];
    txns.forEach((txn, i) => {
      let key: string;
      try {
        key = this.#keyFunc(txn.object);
      } catch (err) {
        errors.push(err);
        return;
      }
      successfulIndices.push(i);
      const object =
        txn.type === 'Delete' || this.#transformer === undefined
          ? txn.object
          : this.#transformer(txn.object);
      keyed.push({ type: txn.type, object, key });
    });
    this.#store.transaction(keyed);
    if (errors.length === 0) return undefined;
    return new TransactionError(successfulIndices, txns.length, errors);
  }

  /** The resourceVersion the store is at (see {@link ThreadSafeStore.lastStoreSyncResourceVersion}). */
  lastStoreSyncResourceVersion(): string {
    return this.#store.lastStoreSyncResourceVersion();
  }

  /** The store has seen everything up to `resourceVersion` (a watch BOOKMARK). */
  bookmark(resourceVersion: string): void {
    this.#store.bookmark(resourceVersion);
  }

  list(): T[] {
    return this.#store.list();
  }

  listKeys(): string[] {
    return this.#store.listKeys();
  }

  get(obj: T | DeletedFinalStateUnknown<T>): T | undefined {
    return this.#store.get(this.#keyFunc(obj));
  }

  getByKey(key: string): T | undefined {
    return this.#store.get(key);
  }

  /** Stores `obj` under an already computed `key` (skips the key function). */
  setByKey(key: string, obj: T): void {
    this.#store.update(key, obj);
  }

  /**
   * Removes the object under an already computed `key`. Given `obj`, its last known state,
   * the store takes its resourceVersion, as {@link CacheIndexer.delete} does.
   */
  deleteByKey(key: string, obj?: unknown): void {
    if (obj === undefined) this.#store.delete(key);
    else this.#store.deleteWithObject(key, obj);
  }

  replace(list: T[], resourceVersion: string): void {
    const items = new Map<string, T>();
    const transform = this.#transformer;
    for (const obj of list) {
      items.set(this.#keyFunc(obj), transform === undefined ? obj : transform(obj));
    }
    this.#store.replace(items, resourceVersion);
  }

  resync(): void {
    this.#store.resync();
  }

  index(indexName: string, obj: T): T[] {
    return this.#store.index(indexName, obj);
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    return this.#store.indexKeys(indexName, indexedValue);
  }

  listIndexFuncValues(indexName: string): string[] {
    return this.#store.listIndexFuncValues(indexName);
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    return this.#store.byIndex(indexName, indexedValue);
  }

  getIndexers(): Indexers<T> {
    return this.#store.getIndexers();
  }

  addIndexers(newIndexers: Indexers<T>): void {
    this.#store.addIndexers(newIndexers);
  }
}

/**
 * A store without indexes (client-go `cache.NewStore`). The default key function handles
 * tombstones, so `delete` accepts what an `onDelete` handler receives.
 */
export function newStore<T>(
  keyFunc: KeyFunc = deletionHandlingMetaNamespaceKeyFunc,
  options: StoreOptions<T> = {},
): Store<T> {
  return new CacheIndexer<T>(keyFunc, {}, options);
}

/** A store with the given named indexes (client-go `cache.NewIndexer`). */
export function newIndexer<T>(
  keyFunc: KeyFunc = deletionHandlingMetaNamespaceKeyFunc,
  indexers: Indexers<T> = {},
  options: StoreOptions<T> = {},
): Indexer<T> {
  return new CacheIndexer<T>(keyFunc, indexers, options);
}
