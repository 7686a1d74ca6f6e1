const configErrorBrand = Symbol.for('kubets.rest.ConfigError');
const invalidRequestErrorBrand = Symbol.for('kubets.rest.InvalidRequestError');
const transportErrorBrand = Symbol.for('kubets.rest.TransportError');
const credentialsErrorBrand = Symbol.for('kubets.rest.CredentialsError');
const responseDecodeErrorBrand = Symbol.for('kubets.rest.ResponseDecodeError');

// The `is*Error` guards check a registry symbol rather than `instanceof`, so that an error
// thrown by another copy of this package (two versions in one dependency tree) still matches.
function hasBrand(err: unknown, brand: symbol): boolean {
  return typeof err === 'object' && err !== null && brand in err;
}

// The detail fields are `declare`d in each class, so no field initializer runs after the
// constructor and overwrites what this sets.
function initError(error: Error, name: string, details: object): void {
  error.name = name;
  Object.assign(error, details);
}

/** Where in a kubeconfig a {@link ConfigError} was found. */
export interface ConfigErrorLocation {
  /** The kubeconfig or credential file involved. */
  file?: string;
  /** The kubeconfig context involved. */
  context?: string;
  /** The kubeconfig field involved, e.g. `users[admin].client-certificate`. */
  field?: string;
}

/**
 * The client configuration cannot be built: a kubeconfig that does not parse or misses
 * fields, an unknown context, an unreadable certificate, no configuration at all.
 * The message names the file, context or field; the underlying error is in `cause`.
 */
export class ConfigError extends Error {
  /** The kubeconfig file involved, when there is one. */
  declare readonly file: string | undefined;
  /** The kubeconfig context involved, when there is one. */
  declare readonly context: string | undefined;
  /** The kubeconfig field involved, e.g. `users[admin].client-certificate`. */
  declare readonly field: string | undefined;
  /**
   * Brand that lets {@link isConfigError} recognise errors from another copy of this package.
   * @internal
   */
  readonly [configErrorBrand] = true;

  constructor(message: string, location: ConfigErrorLocation = {}, options?: { cause?: unknown }) {
    super(message, options);
    const { file, context, field } = location;
    initError(this, 'ConfigError', { file, context, field });
  }
}

/** True for a {@link ConfigError}, also one from another copy of this package. */
export function isConfigError(err: unknown): err is ConfigError {
  return hasBrand(err, configErrorBrand);
}

/**
 * A request was built wrongly (a path part set twice, a name containing `/`, ...).
 * Raised by `do()`, `watch()` or `stream()`, before anything is sent, as client-go's
 * `req.err` is; an invalid API group or version (part `group` or `version`) is raised by
 * the `RESTClient` constructor.
 */
export class InvalidRequestError extends Error {
  /** The request part at fault: `namespace`, `resource`, `name`, `subresource`, `param`, ... */
  readonly part: string;
  /** The offending value. */
  readonly value: string;
  /**
   * Brand that lets {@link isInvalidRequestError} recognise errors from another copy of this
   * package.
   * @internal
   */
  readonly [invalidRequestErrorBrand] = true;

  constructor(part: string, value: string, message: string) {
    super(message);
    this.name = 'InvalidRequestError';
    this.part = part;
    this.value = value;
  }
}

/** True for an {@link InvalidRequestError}, also one from another copy of this package. */
export function isInvalidRequestError(err: unknown): err is InvalidRequestError {
  return hasBrand(err, invalidRequestErrorBrand);
}

/**
 * The request never got an HTTP response: connection refused or reset, DNS failure,
 * TLS failure, or the configured timeout elapsed. The Node error is in `cause`.
 */
export class TransportError extends Error {
  /** The HTTP method of the failed request. */
  declare readonly method: string;
  /** The URL of the failed request, with any password redacted. */
  declare readonly url: string;
  /** The Node error code (`ECONNRESET`, `ECONNREFUSED`, `ETIMEDOUT`, ...), when there is one. */
  declare readonly code: string | undefined;
  /** True when the request's timeout elapsed (as opposed to a network failure). */
  declare readonly timedOut: boolean;
  /**
   * Brand that lets {@link isTransportError} recognise errors from another copy of this package.
   * @internal
   */
  readonly [transportErrorBrand] = true;

  constructor(
    message: string,
    details: { method: string; url: string; code?: string; timedOut?: boolean },
    options?: { cause?: unknown },
  ) {
    super(message, options);
    const { method, url, code, timedOut = false } = details;
    initError(this, 'TransportError', { method, url, code, timedOut });
  }
}

/** True for a {@link TransportError}, also one from another copy of this package. */
export function isTransportError(err: unknown): err is TransportError {
  return hasBrand(err, transportErrorBrand);
}

/**
 * Credentials for a request could not be obtained: an exec plugin failed, an OIDC refresh
 * failed, a token file is unreadable. The underlying error is in `cause`.
 */
export class CredentialsError extends Error {
  /**
   * Brand that lets {@link isCredentialsError} recognise errors from another copy of this package.
   * @internal
   */
  readonly [credentialsErrorBrand] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CredentialsError';
  }
}

/** True for a {@link CredentialsError}, also one from another copy of this package. */
export function isCredentialsError(err: unknown): err is CredentialsError {
  return hasBrand(err, credentialsErrorBrand);
}

/**
 * The server answered with success but the body is not what was asked for: not JSON, or
 * empty where an object was expected, or (for a streamed list) malformed or cut short.
 */
export class ResponseDecodeError extends Error {
  /** The HTTP status code; 0 when the body was decoded outside a request (`decodeListStream`). */
  declare readonly statusCode: number;
  /** The response's `Content-Type`, when it had one. */
  declare readonly contentType: string | undefined;
  /** The byte offset in the body where decoding failed, when known. */
  declare readonly offset: number | undefined;
  /**
   * Brand that lets {@link isResponseDecodeError} recognise errors from another copy of this
   * package.
   * @internal
   */
  readonly [responseDecodeErrorBrand] = true;

  constructor(
    message: string,
    details: { statusCode: number; contentType?: string | undefined; offset?: number | undefined },
    options?: { cause?: unknown },
  ) {
    super(message, options);
    const { statusCode, contentType, offset } = details;
    initError(this, 'ResponseDecodeError', { statusCode, contentType, offset });
  }
}

/** True for a {@link ResponseDecodeError}, also one from another copy of this package. */
export function isResponseDecodeError(err: unknown): err is ResponseDecodeError {
  return hasBrand(err, responseDecodeErrorBrand);
}
