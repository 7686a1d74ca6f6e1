/**
 * Why a request failed, as the API server's `Status.reason` says it. `'StoreReadError'` is
 * deprecated: no server sends it; the reason for an object the server cannot read is
 * `'StorageReadError'`.
 */
export type StatusReason =
  | ''
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'ServerTimeout'
  | 'StorageReadError'
  // Deprecated: no server sends it (apimachinery's StatusReasonStoreReadError is the string
  // 'StorageReadError'); kept so that code naming it still compiles.
  | 'StoreReadError'
  | 'Timeout'
  | 'TooManyRequests'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'Expired'
  | 'ServiceUnavailable'
  | (string & {});

/** One problem with one field, as listed in `Status.details.causes`. */
export interface StatusCause {
  /** Machine-readable cause, e.g. `FieldValueRequired` or `FieldValueInvalid`. */
  reason?: string;
  /** Human-readable description of the problem. */
  message?: string;
  /** Path of the offending field, e.g. `spec.containers[0].image`. */
  field?: string;
}

/** `Status.details`: which object the failure is about and why. */
export interface StatusDetails {
  /** Name of the object the failure is about. */
  name?: string;
  /** API group of the object's kind. */
  group?: string;
  /** Kind of the object (or the resource, for some errors). */
  kind?: string;
  /** UID of the object, when known. */
  uid?: string;
  /** Per-field problems, e.g. the validation errors of an `Invalid` response. */
  causes?: StatusCause[];
  /** How long to wait before retrying, when the server suggests it (429, 5xx). */
  retryAfterSeconds?: number;
}

/** The `meta/v1` Status object the API server returns for failures (and some successes). */
export interface Status {
  /** Always `v1` for a Status. */
  apiVersion?: string;
  /** Always `Status` for a Status. */
  kind?: 'Status' | (string & {});
  /** List metadata; rarely set on a Status. */
  metadata?: {
    /** The resourceVersion at which the status was produced. */
    resourceVersion?: string;
    /** Paging token; not used on a Status in practice. */
    continue?: string;
    /** Deprecated and no longer set by servers since 1.20. */
    selfLink?: string;
  };
  /** `Failure` for errors, `Success` for the few successful responses that return a Status. */
  status?: 'Success' | 'Failure' | (string & {});
  /** Human-readable description of what went wrong. */
  message?: string;
  /** Machine-readable reason; prefer it over `code` when deciding what to do. */
  reason?: StatusReason;
  /** Which object the status is about, and field-level causes. */
  details?: StatusDetails;
  /** The HTTP status code. */
  code?: number;
}

const statusErrorBrand = Symbol.for('kubets.StatusError');

/**
 * An error carrying the API server's `Status`. Thrown for every non-2xx response and
 * for watch `ERROR` events. Use the `is*` helpers rather than comparing codes yourself:
 * they match on `reason` first and fall back to the HTTP code, as client-go does, and find
 * a StatusError wrapped in another error's `cause` (see {@link findStatusError}).
 */
export class StatusError extends Error {
  /** The Status as the server sent it (or as built from the HTTP response when it sent none). */
  readonly status: Status;
  /**
   * Brand that lets {@link isStatusError} recognise errors from another copy of this package.
   * @internal
   */
  readonly [statusErrorBrand] = true;

  constructor(status: Status, options?: { cause?: unknown }) {
    // A server (or proxy) may put anything in `message`: only text is a message.
    const message = typeof status.message === 'string' ? status.message : '';
    super(message || describeStatus(status), options);
    this.name = 'StatusError';
    this.status = status;
  }

  /** The HTTP status code, or 0 when unknown. */
  get code(): number {
    return this.status.code ?? 0;
  }

  /** The machine-readable reason, or `''` when the server gave none. */
  get reason(): StatusReason {
    return this.status.reason ?? '';
  }

  /** How long the server asked the client to wait before retrying, when it said. */
  get retryAfterSeconds(): number | undefined {
    return this.status.details?.retryAfterSeconds;
  }
}

function describeStatus(status: Status): string {
  const what = status.details?.kind
    ? `${status.details.kind}${status.details.name ? ` "${status.details.name}"` : ''}: `
    : '';
  const reason =
    typeof status.reason === 'string' && status.reason ? status.reason : 'request failed';
  const code = typeof status.code === 'number' ? status.code : 'unknown';
  return `${what}${reason} (HTTP ${code})`;
}

/** True for a {@link StatusError}, also one created by another copy of this package. */
export function isStatusError(err: unknown): err is StatusError {
  return typeof err === 'object' && err !== null && statusErrorBrand in err;
}

function failureStatus(
  code: number,
  reason: StatusReason,
  message: string,
  details: StatusDetails | undefined,
): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code,
    reason,
    message,
    ...(details ? { details } : {}),
  };
}

/**
 * Builds the Status a client reports for an HTTP failure whose body was not a Status,
 * with the reason client-go derives from the code.
 */
export function statusFromHttp(code: number, message: string, retryAfterSeconds?: number): Status {
  const reason = reasonForCode(code);
  const details: StatusDetails | undefined =
    retryAfterSeconds !== undefined ? { retryAfterSeconds } : undefined;
  return failureStatus(
    code,
    reason,
    message || `the server responded with HTTP ${code}${reason ? ` (${reason})` : ''}`,
    details,
  );
}

function reasonForCode(code: number): StatusReason {
  switch (code) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 406:
      return 'NotAcceptable';
    case 409:
      return 'Conflict';
    case 410:
      return 'Gone';
    case 413:
      return 'RequestEntityTooLarge';
    case 415:
      return 'UnsupportedMediaType';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'Timeout';
    default:
      return '';
  }
}

const knownReasons: ReadonlySet<string> = new Set([
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Gone',
  'Invalid',
  'ServerTimeout',
  'StorageReadError',
  'Timeout',
  'TooManyRequests',
  'BadRequest',
  'MethodNotAllowed',
  'NotAcceptable',
  'RequestEntityTooLarge',
  'UnsupportedMediaType',
  'InternalError',
  'Expired',
  'ServiceUnavailable',
]);

/**
 * The first {@link StatusError} in `err`'s chain, as Go's `errors.As` finds it: `err`
 * itself, then depth first through `cause` and, for an `AggregateError`, each of its
 * `errors` (Go's `errors.Join`). A chain that loops is walked once.
 */
export function findStatusError(err: unknown): StatusError | undefined {
  const seen = new Set<unknown>();
  const visit = (value: unknown): StatusError | undefined => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return undefined;
    seen.add(value);
    if (isStatusError(value)) return value;
    const fromCause = visit((value as { cause?: unknown }).cause);
    if (fromCause) return fromCause;
    if (value instanceof AggregateError) {
      for (const inner of value.errors) {
        const found = visit(inner);
        if (found) return found;
      }
    }
    return undefined;
  };
  return visit(err);
}

// A reason the client knows decides alone; an unknown or missing one falls back to the code.
function matches(err: unknown, reason: StatusReason, code: number | undefined): boolean {
  const status = findStatusError(err);
  if (!status) return false;
  if (knownReasons.has(status.reason)) return status.reason === reason;
  return code !== undefined && status.code === code;
}

/** The object does not exist (reason NotFound, or HTTP 404 without a reason). */
export const isNotFound = (err: unknown): boolean => matches(err, 'NotFound', 404);
/** A create found the name taken (reason AlreadyExists; 409 alone means Conflict). */
export const isAlreadyExists = (err: unknown): boolean => matches(err, 'AlreadyExists', undefined);
/** An update lost a race: the resourceVersion was stale (reason Conflict, or HTTP 409). */
export const isConflict = (err: unknown): boolean => matches(err, 'Conflict', 409);
/** The object failed validation (reason Invalid, or HTTP 422). */
export const isInvalid = (err: unknown): boolean => matches(err, 'Invalid', 422);
/** The requested resourceVersion is gone from history (reason Gone, or HTTP 410). */
export const isGone = (err: unknown): boolean => matches(err, 'Gone', 410);
/** A continue token or resourceVersion expired (reason Expired, or HTTP 410 without a known reason). */
export const isResourceExpired = (err: unknown): boolean => matches(err, 'Expired', 410);
/**
 * The server is throttling this client (reason TooManyRequests, or HTTP 429 whatever the
 * reason: client-go's check of the code predates the reason-first rule and was kept).
 */
export const isTooManyRequests = (err: unknown): boolean =>
  matches(err, 'TooManyRequests', 429) || findStatusError(err)?.code === 429;
/** The client is not authenticated (reason Unauthorized, or HTTP 401). */
export const isUnauthorized = (err: unknown): boolean => matches(err, 'Unauthorized', 401);
/** The client may not do this (reason Forbidden, or HTTP 403). */
export const isForbidden = (err: unknown): boolean => matches(err, 'Forbidden', 403);
/** The operation did not finish in time (reason Timeout, or HTTP 504). */
export const isTimeout = (err: unknown): boolean => matches(err, 'Timeout', 504);
/** The server could not answer in time and the request may be retried (reason ServerTimeout). */
export const isServerTimeout = (err: unknown): boolean => matches(err, 'ServerTimeout', undefined);
/** The server failed unexpectedly (reason InternalError, or HTTP 500). */
export const isInternalError = (err: unknown): boolean => matches(err, 'InternalError', 500);
/** The request itself was malformed (reason BadRequest, or HTTP 400). */
export const isBadRequest = (err: unknown): boolean => matches(err, 'BadRequest', 400);
/** The resource does not support this verb (reason MethodNotAllowed, or HTTP 405). */
export const isMethodNotSupported = (err: unknown): boolean =>
  matches(err, 'MethodNotAllowed', 405);
/**
 * The request body is too large for the server (reason RequestEntityTooLarge, or HTTP 413
 * whatever the reason: as {@link isTooManyRequests}, client-go's check of the code predates
 * the reason-first rule and was kept).
 */
export const isRequestEntityTooLarge = (err: unknown): boolean =>
  matches(err, 'RequestEntityTooLarge', 413) || findStatusError(err)?.code === 413;
/** The server is temporarily unable to serve (reason ServiceUnavailable, or HTTP 503). */
export const isServiceUnavailable = (err: unknown): boolean =>
  matches(err, 'ServiceUnavailable', 503);

/** What {@link newGenericServerResponse} needs to know about the failed request. */
export interface GenericServerResponse {
  /** The HTTP status code. */
  code: number;
  /** The HTTP method, e.g. `POST`: a 409 answering a POST means AlreadyExists. */
  verb: string;
  /** The resource requested, e.g. `pods`; `''` or absent when none. */
  resource?: string | undefined;
  /** The resource's API group; `''` for the core group. */
  group?: string | undefined;
  /** The object's name, when the request named one. */
  name?: string | undefined;
  /** What the server said: its body when that was text, else `unknown`. */
  serverMessage: string;
  /** The `Retry-After` seconds of the answer, when it had one. */
  retryAfterSeconds?: number | undefined;
  /**
   * True when the answer was not a Status at all, recorded as a cause of reason
   * `UnexpectedServerResponse` carrying `serverMessage`.
   */
  isUnexpectedResponse?: boolean | undefined;
}

// client-go's reason and fixed text for an answer that carried no usable Status.
function genericReasonAndMessage(
  code: number,
  verb: string,
  serverMessage: string,
): [StatusReason, string] {
  switch (code) {
    case 409:
      return [verb === 'POST' ? 'AlreadyExists' : 'Conflict', 'the server reported a conflict'];
    case 404:
      return ['NotFound', 'the server could not find the requested resource'];
    case 400:
      return ['BadRequest', 'the server rejected our request for an unknown reason'];
    case 401:
      return ['Unauthorized', 'the server has asked for the client to provide credentials'];
    case 403:
      // The server's text says who tried what, so it is kept.
      return ['Forbidden', serverMessage];
    case 406:
      return [
        'NotAcceptable',
        serverMessage === '' || serverMessage === 'unknown'
          ? 'the server was unable to respond with a content type that the client supports'
          : serverMessage,
      ];
    case 415:
      return ['UnsupportedMediaType', serverMessage];
    case 405:
      return [
        'MethodNotAllowed',
        'the server does not allow this method on the requested resource',
      ];
    case 422:
      return ['Invalid', 'the server rejected our request due to an error in our request'];
    case 503:
      return ['ServiceUnavailable', 'the server is currently unable to handle the request'];
    case 504:
      return [
        'Timeout',
        'the server was unable to return a response in the time allotted, but may still be processing the request',
      ];
    case 429:
      return [
        'TooManyRequests',
        'the server has received too many requests and has asked us to try again later',
      ];
    default:
      if (code >= 500) {
        return [
          'InternalError',
          `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`,
        ];
      }
      return [
        '',
        `the server responded with the status code ${code} but did not return more information`,
      ];
  }
}

/**
 * The Status client-go reports (`NewGenericServerResponse`) for an answer that carried no
 * usable Status: the reason and a fixed text from the code (409 to a POST is
 * AlreadyExists), followed by `(verb resource.group name)` when a resource was requested.
 */
export function newGenericServerResponse(response: GenericServerResponse): Status {
  const { code, verb, serverMessage } = response;
  const resource = response.resource ?? '';
  const group = response.group ?? '';
  const name = response.name ?? '';
  let [reason, message] = genericReasonAndMessage(code, verb.toUpperCase(), serverMessage);
  if (resource !== '' || group !== '') {
    const qualified = group === '' ? resource : `${resource}.${group}`;
    message = `${message} (${verb.toLowerCase()} ${qualified}${name === '' ? '' : ` ${name}`})`;
  }
  const details: StatusDetails = {
    ...(group ? { group } : {}),
    ...(resource ? { kind: resource } : {}),
    ...(name ? { name } : {}),
    ...(response.isUnexpectedResponse
      ? { causes: [{ reason: 'UnexpectedServerResponse', message: serverMessage }] }
      : {}),
    ...(response.retryAfterSeconds !== undefined
      ? { retryAfterSeconds: response.retryAfterSeconds }
      : {}),
  };
  return failureStatus(code, reason, message, details);
}
