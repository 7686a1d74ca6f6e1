import type { DeletedFinalStateUnknown, KeyFunc } from './keys.js';
import { deletionHandlingMetaNamespaceKeyFunc } from './keys.js';
import { type Indexers, ThreadSafeStore } from './thread-safe-store.js';

/**
 * A keyed collection of objects (client-go `cache.Store`). Informers keep their cache in
 * one; the reflector writes into one (a {@link DeltaFIFO} or a plain store).
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
export class CacheIndexer<T> implements Indexer<T> {
  readonly #store: ThreadSafeStore<T>;
  readonly #keyFunc: KeyFunc;

  constructor(keyFunc: KeyFunc = deletionHandlingMetaNamespaceKeyFunc, indexers: Indexers<T> = {}) {
    this.#keyFunc = keyFunc;
    this.#store = new ThreadSafeStore(indexers);
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
    this.#store.add(this.#keyFunc(obj), obj);
  }

  update(obj: T): void {
    this.#store.update(this.#keyFunc(obj), obj);
  }

  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.#store.delete(this.#keyFunc(obj));
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

  /** Removes the object under an already computed `key`. */
  deleteByKey(key: string): void {
    this.#store.delete(key);
  }

  replace(list: T[], _resourceVersion: string): void {
    const items = new Map<string, T>();
    for (const obj of list) items.set(this.#keyFunc(obj), obj);
    this.#store.replace(items);
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
export function newStore<T>(keyFunc: KeyFunc = deletionHandlingMetaNamespaceKeyFunc): Store<T> {
  return new CacheIndexer<T>(keyFunc);
}

/** A store with the given named indexes (client-go `cache.NewIndexer`). */
export function newIndexer<T>(
  keyFunc: KeyFunc = deletionHandlingMetaNamespaceKeyFunc,
  indexers: Indexers<T> = {},
): Indexer<T> {
  return new CacheIndexer<T>(keyFunc, indexers);
}
