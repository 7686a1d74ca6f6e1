import type { JsonObject } from './patch.js';
import type { ResourceDefinition } from './resources.js';

/** One stored version of an object: the parsed object and its JSON, serialised once. */
export interface Entry {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly obj: JsonObject;
  readonly json: string;
  readonly rv: number;
}

/** A change to one object, as kept in the bounded history and fanned out to watchers. */
export interface StoredEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly rv: number;
  /** The new state; for DELETED the last state, carrying the deletion's resourceVersion. */
  readonly object: Entry;
  /** The state before, for MODIFIED and DELETED. */
  readonly prev: Entry | undefined;
  /** Watch lines built so far, by `type|variant`: each is serialised at most once. */
  lines?: Map<string, string>;
}

/** Receives the events of one resource; implemented by watch streams. */
export interface EventSink {
  /** Only events in this namespace, when set. */
  readonly namespace: string | undefined;
  deliver(event: StoredEvent): void;
}

/** Creates the store key of an object: `namespace/name`, or `name` for cluster-scoped ones. */
export function storeKey(namespace: string, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** Builds an entry, serialising the object once. */
export function makeEntry(obj: JsonObject, namespace: string, name: string, rv: number): Entry {
  return { key: storeKey(namespace, name), namespace, name, obj, json: JSON.stringify(obj), rv };
}

/**
 * The objects of one resource: O(1) get by key, a per-namespace index, sorted key lists cached
 * until the set of keys changes, a bounded event history and the watchers.
 */
export class ResourceStore {
  /** Replaced when a CRD's served versions change. */
  definition: ResourceDefinition;
  readonly objects = new Map<string, Entry>();
  readonly #byNamespace = new Map<string, Map<string, Entry>>();
  #sortedAll: string[] | undefined;
  readonly #sortedByNamespace = new Map<string, string[]>();
  #history: StoredEvent[] = [];
  #head = 0;
  readonly #capacity: number;
  /** Every event with a resourceVersion above this one is still in the history. */
  floor: number;
  readonly #watchersAll = new Set<EventSink>();
  readonly #watchersByNamespace = new Map<string, Set<EventSink>>();

  constructor(definition: ResourceDefinition, capacity: number, floor: number) {
    this.definition = definition;
    this.#capacity = Math.max(1, capacity);
    this.floor = floor;
  }

  get(key: string): Entry | undefined {
    return this.objects.get(key);
  }

  /** Objects of one namespace (or all), unsorted. */
  entries(namespace: string | undefined): Iterable<Entry> {
    if (namespace === undefined) return this.objects.values();
    return this.#byNamespace.get(namespace)?.values() ?? [];
  }

  /** Number of objects in one namespace (or all). */
  count(namespace: string | undefined): number {
    if (namespace === undefined) return this.objects.size;
    return this.#byNamespace.get(namespace)?.size ?? 0;
  }

  /** Keys in etcd order (byte order of `namespace/name`), cached until a create or delete. */
  sortedKeys(namespace: string | undefined): string[] {
    if (namespace === undefined) {
      this.#sortedAll ??= [...this.objects.keys()].sort(compareKeys);
      return this.#sortedAll;
    }
    let keys = this.#sortedByNamespace.get(namespace);
    if (!keys) {
      keys = [...(this.#byNamespace.get(namespace)?.keys() ?? [])].sort(compareKeys);
      this.#sortedByNamespace.set(namespace, keys);
    }
    return keys;
  }

  /** Stores `entry` (create or update) and records and fans out the event. */
  put(entry: Entry, type: 'ADDED' | 'MODIFIED', prev: Entry | undefined): void {
    const isNew = !this.objects.has(entry.key);
    this.objects.set(entry.key, entry);
    let ns = this.#byNamespace.get(entry.namespace);
    if (!ns) {
      ns = new Map();
      this.#byNamespace.set(entry.namespace, ns);
    }
    ns.set(entry.key, entry);
    if (isNew) this.#keysChanged(entry.namespace);
    this.#record({ type, rv: entry.rv, object: entry, prev });
  }

  /** Removes the object at `key`; `tombstone` is its last state with the deletion's version. */
  remove(prev: Entry, tombstone: Entry): void {
    this.objects.delete(prev.key);
    const ns = this.#byNamespace.get(prev.namespace);
    ns?.delete(prev.key);
    if (ns && ns.size === 0) this.#byNamespace.delete(prev.namespace);
    this.#keysChanged(prev.namespace);
    this.#record({ type: 'DELETED', rv: tombstone.rv, object: tombstone, prev });
  }

  #keysChanged(namespace: string): void {
    this.#sortedAll = undefined;
    this.#sortedByNamespace.delete(namespace);
  }

  #record(event: StoredEvent): void {
    this.#history.push(event);
    if (this.#history.length - this.#head > this.#capacity) {
      const evicted = this.#history[this.#head];
      this.#history[this.#head] = undefined as unknown as StoredEvent;
      this.#head++;
      if (evicted) this.floor = evicted.rv;
      if (this.#head > 1024 && this.#head * 2 > this.#history.length) {
        this.#history = this.#history.slice(this.#head);
        this.#head = 0;
      }
    }
    for (const sink of this.#watchersAll) sink.deliver(event);
    const nsWatchers = this.#watchersByNamespace.get(event.object.namespace);
    if (nsWatchers) for (const sink of nsWatchers) sink.deliver(event);
  }

  /** Events with a resourceVersion above `rv`, oldest first. Caller checks `rv >= floor`. */
  eventsSince(rv: number): StoredEvent[] {
    const out: StoredEvent[] = [];
    for (let i = this.#history.length - 1; i >= this.#head; i--) {
      const event = this.#history[i] as StoredEvent;
      if (event.rv <= rv) break;
      out.push(event);
    }
    return out.reverse();
  }

  /** Drops the history: watches and snapshot reads from before `floor` become too old. */
  compact(floor: number): void {
    this.#history = [];
    this.#head = 0;
    this.floor = Math.max(this.floor, floor);
  }

  /**
   * The state at `rv` (which must be ≥ `floor`): for each key changed since, the entry it had
   * then (`null` when it did not exist). Empty when nothing changed.
   */
  changesSince(rv: number): Map<string, Entry | null> {
    const overrides = new Map<string, Entry | null>();
    for (let i = this.#history.length - 1; i >= this.#head; i--) {
      const event = this.#history[i] as StoredEvent;
      if (event.rv <= rv) break;
      overrides.set(event.object.key, event.prev ?? null);
    }
    return overrides;
  }

  addWatcher(sink: EventSink): void {
    if (sink.namespace === undefined) {
      this.#watchersAll.add(sink);
      return;
    }
    let set = this.#watchersByNamespace.get(sink.namespace);
    if (!set) {
      set = new Set();
      this.#watchersByNamespace.set(sink.namespace, set);
    }
    set.add(sink);
  }

  removeWatcher(sink: EventSink): void {
    if (sink.namespace === undefined) {
      this.#watchersAll.delete(sink);
      return;
    }
    const set = this.#watchersByNamespace.get(sink.namespace);
    set?.delete(sink);
    if (set?.size === 0) this.#watchersByNamespace.delete(sink.namespace);
  }

  /** All current watchers. */
  watchers(): EventSink[] {
    const out = [...this.#watchersAll];
    for (const set of this.#watchersByNamespace.values()) out.push(...set);
    return out;
  }
}

/** Byte order of ASCII keys, which is what etcd lists in. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Index of the first key ≥ `start` in a sorted array. */
export function lowerBound(keys: readonly string[], start: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) < start) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
