import type { PartialObjectMetadata } from './meta.js';
import { type Status, StatusError } from './status.js';

/** The `type` of a watch event as the API server sends it. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** Every {@link WatchEventType}, in the order client-go declares them. */
export const watchEventTypes: readonly WatchEventType[] = Object.freeze([
  'ADDED',
  'MODIFIED',
  'DELETED',
  'BOOKMARK',
  'ERROR',
]);

/**
 * Annotation on the BOOKMARK that ends the initial events of a watch started with
 * `sendInitialEvents=true` (streaming list); its value is `"true"`.
 */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/** An object was created (or, at the start of a watch, already existed). */
export interface AddedEvent<T> {
  /** Discriminant of the event. */
  type: 'ADDED';
  /** The object as it is after the change. */
  object: T;
}

/** An object changed. */
export interface ModifiedEvent<T> {
  /** Discriminant of the event. */
  type: 'MODIFIED';
  /** The object as it is after the change. */
  object: T;
}

/** An object was deleted; `object` is its last state. */
export interface DeletedEvent<T> {
  /** Discriminant of the event. */
  type: 'DELETED';
  /** The object's last state before it was deleted. */
  object: T;
}

/**
 * A progress marker: only `metadata.resourceVersion` (and, for the end of the initial
 * events, the {@link INITIAL_EVENTS_END_ANNOTATION} annotation) is meaningful, which is
 * why the object is typed as bare metadata rather than `T`.
 */
export interface BookmarkEvent {
  /** Discriminant of the event. */
  type: 'BOOKMARK';
  /** Carries the resourceVersion to resume the watch from. */
  object: PartialObjectMetadata;
}

/** The watch failed; `object` is the server's Status (e.g. 410 Expired: relist). */
export interface ErrorEvent {
  /** Discriminant of the event. */
  type: 'ERROR';
  /** The server's Status describing the failure. */
  object: Status;
}

/** One event of a watch stream, discriminated by `type`. */
export type WatchEvent<T> =
  | AddedEvent<T>
  | ModifiedEvent<T>
  | DeletedEvent<T>
  | BookmarkEvent
  | ErrorEvent;

const eventTypes: ReadonlySet<string> = new Set(watchEventTypes);

/** True when `value` is one of the five watch event type strings. */
export function isWatchEventType(value: unknown): value is WatchEventType {
  return typeof value === 'string' && eventTypes.has(value);
}

/**
 * Checks the shape of a decoded watch line (`{"type": ..., "object": {...}}`) and returns
 * it as a {@link WatchEvent}. Only the envelope is checked; the object's own fields are the
 * caller's type assertion `T`.
 *
 * @throws {TypeError} when `value` is not an object, its `type` is not a watch event type,
 *   or its `object` is not an object.
 */
export function parseWatchEvent<T>(value: unknown): WatchEvent<T> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError('invalid watch event: expected a JSON object with "type" and "object"');
  }
  const { type, object } = value as { type?: unknown; object?: unknown };
  if (!isWatchEventType(type)) {
    throw new TypeError(
      `invalid watch event: unknown type ${JSON.stringify(type) ?? 'undefined'} (expected one of ${watchEventTypes.join(', ')})`,
    );
  }
  if (typeof object !== 'object' || object === null || Array.isArray(object)) {
    throw new TypeError(`invalid watch event: the ${type} event's "object" is not an object`);
  }
  return { type, object } as WatchEvent<T>;
}

/** True for the BOOKMARK that marks the end of the initial events of a streaming list. */
export function isInitialEventsEndBookmark<T>(event: WatchEvent<T>): event is BookmarkEvent {
  return (
    event.type === 'BOOKMARK' &&
    event.object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true'
  );
}

/**
 * The error a watch consumer should throw for an ERROR event: a {@link StatusError}
 * carrying the event's Status, so `isGone`/`isResourceExpired` tell a reflector to relist.
 */
export function watchErrorToStatusError(event: ErrorEvent): StatusError {
  return new StatusError(event.object);
}
