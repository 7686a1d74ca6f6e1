import { statusError } from '@kubets/test-utils';
import type { Event } from 'kubernetes-types/core/v1.js';
import type { EventPatch } from '../src/correlator.js';
import type { EventSink } from '../src/sink.js';

/** One call the fake sink received. */
export type SinkCall =
  | { op: 'create'; event: Event }
  | { op: 'update'; event: Event }
  | { op: 'patch'; event: Event; patch: EventPatch };

/** What the fake sink does with a call: `undefined` stores it, an Error rejects, a promise delays. */
export type SinkBehaviour = (call: SinkCall) => Error | Promise<void> | undefined;

/**
 * An in-memory event store speaking the {@link EventSink} interface, with server-like
 * semantics: create fails with AlreadyExists on a taken name, patch with NotFound on a
 * missing one; each write bumps a resourceVersion.
 */
export class FakeSink implements EventSink {
  readonly calls: SinkCall[] = [];
  readonly stored = new Map<string, Event>();
  behaviour: SinkBehaviour = () => undefined;
  #rv = 0;

  async create(event: Event): Promise<Event> {
    const call: SinkCall = { op: 'create', event: structuredClone(event) };
    await this.#apply(call);
    const key = keyOf(event);
    if (this.stored.has(key))
      throw statusError(409, 'AlreadyExists', `events "${key}" already exists`);
    const stored = {
      ...structuredClone(event),
      metadata: { ...event.metadata, resourceVersion: String(++this.#rv) },
    };
    this.stored.set(key, stored);
    return structuredClone(stored);
  }

  async update(event: Event): Promise<Event> {
    const call: SinkCall = { op: 'update', event: structuredClone(event) };
    await this.#apply(call);
    const stored = {
      ...structuredClone(event),
      metadata: { ...event.metadata, resourceVersion: String(++this.#rv) },
    };
    this.stored.set(keyOf(event), stored);
    return structuredClone(stored);
  }

  async patch(event: Event, patch: EventPatch): Promise<Event> {
    const call: SinkCall = { op: 'patch', event: structuredClone(event), patch: { ...patch } };
    await this.#apply(call);
    const key = keyOf(event);
    const existing = this.stored.get(key);
    if (!existing) throw statusError(404, 'NotFound', `events "${key}" not found`);
    const stored: Event = {
      ...existing,
      ...patch,
      metadata: { ...existing.metadata, resourceVersion: String(++this.#rv) },
    };
    this.stored.set(key, stored);
    return structuredClone(stored);
  }

  async #apply(call: SinkCall): Promise<void> {
    this.calls.push(call);
    const outcome = this.behaviour(call);
    if (outcome instanceof Error) throw outcome;
    if (outcome) await outcome;
  }
}

function keyOf(event: Event): string {
  return `${event.metadata.namespace}/${event.metadata.name}`;
}
