import type { Entry, StoredEvent } from './object-entry.js';

/**
 * The event history of one resource, playing two parts of kube-apiserver's storage: the watch
 * cache (the last `capacity` events, which watches replay) and etcd's revision history (every
 * event newer than the global compaction point, which exact lists and continue tokens read).
 * An event is dropped once it is both outside the watch window and compacted.
 */
export class EventHistory {
  #events: StoredEvent[] = [];
  #head = 0;
  readonly #capacity: number;
  /** Every event with a resourceVersion above this one is still in the history. */
  floor: number;

  constructor(capacity: number, floor: number) {
    this.#capacity = Math.max(1, capacity);
    this.floor = floor;
  }

  /** Appends an event, dropping the oldest ones outside the watch window and at or below `compactedRv`. */
  record(event: StoredEvent, compactedRv: number): void {
    this.#events.push(event);
    this.trim(compactedRv);
  }

  /** Drops the events outside the watch window whose revision is at or below `compactedRv`. */
  trim(compactedRv: number): void {
    while (this.#events.length - this.#head > this.#capacity) {
      const oldest = this.#events[this.#head] as StoredEvent;
      if (oldest.rv > compactedRv) break;
      this.#events[this.#head] = undefined as unknown as StoredEvent;
      this.#head++;
      this.floor = oldest.rv;
    }
    // Dropping by index keeps a push O(1); the array is trimmed only once mostly dead.
    if (this.#head > 1024 && this.#head * 2 > this.#events.length) {
      this.#events = this.#events.slice(this.#head);
      this.#head = 0;
    }
  }

  /**
   * The oldest resourceVersion a watch may start from, as the watch cache computes it: one
   * below the oldest event of the window once events have fallen out of it, else the floor.
   */
  get watchFloor(): number {
    const kept = this.#events.length - this.#head;
    if (kept <= this.#capacity) return this.floor;
    const oldestInWindow = this.#events[this.#events.length - this.#capacity] as StoredEvent;
    return oldestInWindow.rv - 1;
  }

  /** Events with a resourceVersion above `rv`, oldest first. Caller checks `rv >= watchFloor`. */
  eventsSince(rv: number): StoredEvent[] {
    const out: StoredEvent[] = [];
    for (let i = this.#events.length - 1; i >= this.#head; i--) {
      const event = this.#events[i] as StoredEvent;
      if (event.rv <= rv) break;
      out.push(event);
    }
    return out.reverse();
  }

  /** Drops the whole history: watches and snapshot reads from before `floor` become too old. */
  compact(floor: number): void {
    this.#events = [];
    this.#head = 0;
    this.floor = Math.max(this.floor, floor);
  }

  /**
   * The state at `rv` (which must be ≥ `floor`): for each key changed since, the entry it had
   * then (`null` when it did not exist). Empty when nothing changed.
   */
  changesSince(rv: number): Map<string, Entry | null> {
    const overrides = new Map<string, Entry | null>();
    for (let i = this.#events.length - 1; i >= this.#head; i--) {
      const event = this.#events[i] as StoredEvent;
      if (event.rv <= rv) break;
      overrides.set(event.object.key, event.prev ?? null);
    }
    return overrides;
  }
}
