import type { EventSink, StoredEvent } from './object-entry.js';

/**
 * The watchers of one resource, indexed by namespace so that a write reaches only the
 * all-namespace watchers and those of its own namespace.
 */
export class EventFanout {
  readonly #all = new Set<EventSink>();
  readonly #byNamespace = new Map<string, Set<EventSink>>();

  add(sink: EventSink): void {
    if (sink.namespace === undefined) {
      this.#all.add(sink);
      return;
    }
    let set = this.#byNamespace.get(sink.namespace);
    if (!set) {
      set = new Set();
      this.#byNamespace.set(sink.namespace, set);
    }
    set.add(sink);
  }

  remove(sink: EventSink): void {
    if (sink.namespace === undefined) {
      this.#all.delete(sink);
      return;
    }
    const set = this.#byNamespace.get(sink.namespace);
    set?.delete(sink);
    if (set?.size === 0) this.#byNamespace.delete(sink.namespace);
  }

  /** All current watchers. */
  sinks(): EventSink[] {
    const out = [...this.#all];
    for (const set of this.#byNamespace.values()) out.push(...set);
    return out;
  }

  /** Hands `event` to every watcher that may see its namespace. */
  deliver(event: StoredEvent): void {
    for (const sink of this.#all) sink.deliver(event);
    const nsWatchers = this.#byNamespace.get(event.object.namespace);
    if (nsWatchers) for (const sink of nsWatchers) sink.deliver(event);
  }
}
