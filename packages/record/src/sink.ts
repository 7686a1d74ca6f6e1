import { PatchType } from '@kubets/rest';
import type { Event } from 'kubernetes-types/core/v1.js';
import type { EventPatch } from './correlator.js';

/**
 * Where recorded events are stored (client-go's `record.EventSink`). Each call writes the
 * event into `event.metadata.namespace` and resolves with the server's copy. Reject with
 * the client's errors: a `StatusError` is final (not retried; a 404 on `patch` makes the
 * broadcaster create the event instead), any other error is retried.
 */
export interface EventSink {
  /** Creates a new Event object and returns the server's copy. */
  create(event: Event): Promise<Event>;
  /** Replaces an existing Event object and returns the server's copy. */
  update(event: Event): Promise<Event>;
  /** Applies `patch` as a strategic merge patch to the existing event named `event.metadata.name`. */
  patch(event: Event, patch: EventPatch): Promise<Event>;
}

/** The slice of a core/v1 events client that {@link eventSinkFromClientset} uses. */
export interface CoreV1EventsClient {
  /** Creates an Event object. */
  create(event: Event): Promise<Event>;
  /** Replaces an Event object. */
  update(event: Event): Promise<Event>;
  /** Patches the Event named `name`; the sink sends a strategic merge patch. */
  patch(name: string, patchType: PatchType, body: EventPatch): Promise<Event>;
}

/** Anything with `coreV1().events(namespace)`, such as `@kubets/clientset`'s `Clientset`. */
export interface CoreV1EventsGetter {
  /** The core/v1 client group. */
  coreV1(): {
    /** The events client of `namespace`. */
    events(namespace: string): CoreV1EventsClient;
  };
}

function namespaceOf(event: Event): string {
  return event.metadata.namespace || 'default';
}

function nameOf(event: Event): string {
  const name = event.metadata.name;
  if (!name) throw new TypeError('cannot patch an event without metadata.name');
  return name;
}

/**
 * An {@link EventSink} writing core/v1 Events through a clientset, into each event's own
 * namespace (client-go's `EventSinkImpl` over `CoreV1().Events("")`).
 *
 * ```ts
 * broadcaster.startRecordingToSink(eventSinkFromClientset(clientset));
 * ```
 */
export function eventSinkFromClientset(clientset: CoreV1EventsGetter): EventSink {
  const events = (event: Event) => clientset.coreV1().events(namespaceOf(event));
  return {
    create: (event) => events(event).create(event),
    update: (event) => events(event).update(event),
    patch: (event, patch) =>
      events(event).patch(nameOf(event), PatchType.StrategicMergePatch, patch),
  };
}
