import type { Entry, StoredEvent } from './object-entry.js';

/**
 * The bounded event history of one resource. It is what lets a watch resume from an older
 * resourceVersion and a paged list read the snapshot its continue token names; once an event
 * falls off (capacity, compaction), reads from before it get 410.
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

  /** Appends an event, evicting the oldest beyond capacity. */
  record(event: StoredEvent): void {
    this.#events.push(event);
    if (this.#events.length - this.#head > this.#capacity) {
      const evicted = this.#events[this.#head];
      this.#events[this.#head] = undefined as unknown as StoredEvent;
      this.#head++;
      if (evicted) this.floor = evicted.rv;
      // Evicting by index keeps a push O(1); the array is trimmed only once mostly dead.
      if (this.#head > 1024 && this.#head * 2 > this.#events.length) {
        this.#events = this.#events.slice(this.#head);
        this.#head = 0;
      }
    }
  }

  /** Events with a resourceVersion above `rv`, oldest first. Caller checks `rv >= floor`. */
  eventsSince(rv: number): StoredEvent[] {
    const out: StoredEvent[] = [];
    for (let i = this.#events.length - 1; i >= this.#head; i--) {
      const event = this.#events[i] as StoredEvent;
      if (event.rv <= rv) break;
      out.push(event);
    }
    return out.reverse();
  }

  /** Drops the history: watches and snapshot reads from before `floor` become too old. */
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
