import type { GenericEvent } from './predicates.js';

/**
 * Events from outside the cluster that a controller watches with `watchesSource`
 * (controller-runtime's `source.Source`): each event is handed to every subscriber.
 */
export interface EventSource<O> {
  /** Hands each event to `listener` from now on; returns what stops it. */
  subscribe(listener: (event: GenericEvent<O>) => void): () => void;
}

/**
 * A source of generic events pushed from outside the cluster, e.g. a webhook or a timer
 * (controller-runtime's `source.Channel`): `emit(object)` triggers, through the watch's
 * handler, the reconcile of the requests it maps to. Events emitted before a controller
 * subscribes are kept and handed to the first subscriber.
 */
export class ChannelSource<O> implements EventSource<O> {
  readonly #listeners = new Set<(event: GenericEvent<O>) => void>();
  #pending: GenericEvent<O>[] | undefined = [];

  /** Emits a generic event about `object` to every subscriber. */
  emit(object: O): void {
    const event: GenericEvent<O> = { object };
    if (this.#pending !== undefined) {
      this.#pending.push(event);
      return;
    }
    for (const listener of this.#listeners) listener(event);
  }

  /**
   * Emits every object `objects` yields, in order, until it ends; the returned promise
   * settles then, and rejects with what the iteration threw.
   */
  async emitFrom(objects: AsyncIterable<O> | Iterable<O>): Promise<void> {
    for await (const object of objects) this.emit(object);
  }

  /** {@inheritDoc EventSource.subscribe} */
  subscribe(listener: (event: GenericEvent<O>) => void): () => void {
    if (typeof listener !== 'function') {
      throw new TypeError('ChannelSource.subscribe(listener): listener must be a function');
    }
    this.#listeners.add(listener);
    const pending = this.#pending;
    this.#pending = undefined;
    for (const event of pending ?? []) listener(event);
    return () => {
      this.#listeners.delete(listener);
    };
  }
}
