/**
 * A least-recently-used map bounded at `maxEntries`: `get` and `set` mark an entry as
 * recently used, and adding beyond the bound evicts the least recently used one (as the
 * groupcache LRU client-go's event caches use).
 */
export class LruCache<V> {
  readonly maxEntries: number;
  readonly #entries = new Map<string, V>();

  constructor(maxEntries: number) {
    if (!(Number.isInteger(maxEntries) && maxEntries > 0)) {
      throw new RangeError(`LRU cache size must be a positive integer, got ${maxEntries}`);
    }
    this.maxEntries = maxEntries;
  }

  /** How many entries are held. */
  get size(): number {
    return this.#entries.size;
  }

  /** The value under `key`, marking it recently used; `undefined` when absent. */
  get(key: string): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as V;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Stores `value` under `key` as the most recently used entry, evicting the oldest if full. */
  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }

  /** True when `key` is held (does not mark it used). */
  has(key: string): boolean {
    return this.#entries.has(key);
  }
}
