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
 *
 * An ERROR event whose object is not a Status (client-go's `UnexpectedObjectError`) gives
 * an InternalError (500) whose message names the object's kind and apiVersion and shows
 * the start of its JSON (at most 200 characters).
 */
export function watchErrorToStatusError(event: ErrorEvent): StatusError {
  const object: unknown = event.object;
  if (looksLikeStatus(object)) return new StatusError(object);
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: 500,
    reason: 'InternalError',
    message: `unexpected object in a watch ERROR event (expected a Status): ${describeUnexpectedObject(object)}`,
  });
}

/**
 * A Status as servers send it (`kind: "Status"`), or one without a kind that still says
 * something (a message, a reason or a code), as fakes and older proxies send.
 */
function looksLikeStatus(object: unknown): object is Status {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return false;
  const { kind, message, reason, code } = object as Record<string, unknown>;
  if (kind === 'Status') return true;
  if (kind !== undefined) return false;
  return typeof message === 'string' || typeof reason === 'string' || typeof code === 'number';
}

/** The longest excerpt of an unexpected object's JSON in an error message. */
const unexpectedObjectExcerptLength = 200;

/**
 * Names what an unexpected value is, for error messages: its kind and apiVersion (or that
 * it has none) and the start of its JSON, at most 200 characters.
 */
function describeUnexpectedObject(value: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(value) ?? String(value);
  } catch {
    json = String(value);
  }
  const excerpt =
    json.length > unexpectedObjectExcerptLength
      ? `${json.slice(0, unexpectedObjectExcerptLength)}...`
      : json;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}: ${excerpt}`;
  }
  const { kind, apiVersion } = value as Record<string, unknown>;
  const name = (field: string, v: unknown) =>
    typeof v === 'string' && v !== '' ? `${field} ${JSON.stringify(v)}` : `no ${field}`;
  return `${name('kind', kind)}, ${name('apiVersion', apiVersion)}: ${excerpt}`;
}
