import { EventFanout } from './event-fanout.js';
import { EventHistory } from './event-history.js';
import { compareKeys, type Entry, type EventSink, type StoredEvent } from './object-entry.js';
import type { ResourceDefinition } from './resources.js';

/**
 * The objects of one resource: O(1) get by key, a per-namespace index, sorted key lists cached
 * until the set of keys changes, an event history (see {@link EventHistory}) and the watchers.
 */
export class ResourceStore {
  /** Replaced when a CRD's served versions change. */
  definition: ResourceDefinition;
  readonly objects = new Map<string, Entry>();
  readonly #byNamespace = new Map<string, Map<string, Entry>>();
  #sortedAll: string[] | undefined;
  readonly #sortedByNamespace = new Map<string, string[]>();
  readonly #history: EventHistory;
  readonly #watchers = new EventFanout();
  readonly #compactedRv: () => number;
  #cacheRv: number;

  /**
   * @param capacity - events a watch can replay (the watch cache's size)
   * @param floor - the revision the store starts at
   * @param compactedRv - the global compaction point: older events are kept only in the window
   */
  constructor(
    definition: ResourceDefinition,
    capacity: number,
    floor: number,
    compactedRv: () => number,
  ) {
    this.definition = definition;
    this.#history = new EventHistory(capacity, floor);
    this.#compactedRv = compactedRv;
    // A cache started before any write saw etcd's first revision, 1.
    this.#cacheRv = Math.max(floor, 1);
  }

  /**
   * The resourceVersion of kube-apiserver's watch cache of this resource: the revision of its
   * last write (or the one the cache started at), not the global one, which other resources move.
   */
  get cacheRv(): number {
    return this.#cacheRv;
  }

  /** Every event with a resourceVersion above this one is still in the history. */
  get floor(): number {
    return this.#history.floor;
  }

  /** The oldest resourceVersion a watch may start from (see {@link EventHistory.watchFloor}). */
  get watchFloor(): number {
    return this.#history.watchFloor;
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
    this.#cacheRv = event.rv;
    this.#history.record(event, this.#compactedRv());
    this.#watchers.deliver(event);
  }

  /** Events with a resourceVersion above `rv`, oldest first. Caller checks `rv >= watchFloor`. */
  eventsSince(rv: number): StoredEvent[] {
    return this.#history.eventsSince(rv);
  }

  /** Drops the history: watches and snapshot reads from before `floor` become too old. */
  compact(floor: number): void {
    this.#history.compact(floor);
  }

  /** See {@link EventHistory.changesSince}. */
  changesSince(rv: number): Map<string, Entry | null> {
    return this.#history.changesSince(rv);
  }

  addWatcher(sink: EventSink): void {
    this.#watchers.add(sink);
  }

  removeWatcher(sink: EventSink): void {
    this.#watchers.remove(sink);
  }

  /** All current watchers. */
  watchers(): EventSink[] {
    return this.#watchers.sinks();
  }
}
