import type { Agent, IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { inspect } from 'node:util';
import {
  type Logger,
  type ObjectList,
  type Status,
  StatusError,
  statusFromHttp,
} from '@kubets/apimachinery';
import type { Clock } from './clock.js';
import {
  InvalidRequestError,
  isTransportError,
  ResponseDecodeError,
  TransportError,
} from './errors.js';
import { type ListDecodeOptions, ListStreamDecoder } from './list-decode.js';
import {
  describeValue,
  escapedSegmentsOf,
  escapePathSegment,
  pathSegmentProblems,
} from './path.js';
import type { RateLimiter } from './ratelimit.js';
import {
  describeTLSVerificationError,
  isRetryableConnectionError,
  isTLSVerificationError,
  networkErrorCode,
  sendHttpRequest,
} from './transport.js';
import { parseWarningHeaders, type WarningHandler } from './warnings.js';
import { resolveMaxWatchEventBytes, WatchStream } from './watch.js';

/** The `Content-Type` of a PATCH body, which decides how the server applies it. */
export const PatchType = {
  /** RFC 6902 JSON Patch: a list of operations. */
  JSONPatch: 'application/json-patch+json',
  /** RFC 7386 JSON Merge Patch. */
  MergePatch: 'application/merge-patch+json',
  /** Kubernetes strategic merge patch (built-in types only). */
  StrategicMergePatch: 'application/strategic-merge-patch+json',
  /** Server-side apply; needs a `fieldManager` param. */
  ApplyPatch: 'application/apply-patch+yaml',
} as const;

/** One of the {@link PatchType} values. */
export type PatchType = (typeof PatchType)[keyof typeof PatchType];

/** Settings of one {@link Request.watch}. */
export interface WatchRequestOptions {
  /**
   * The most bytes one watch event may have; default the client's
   * `RESTClientOptions.maxWatchEventBytes`, else {@link defaultMaxWatchEventBytes}
   * (16 MiB, as client-go). A longer event ends the watch with an ERROR event whose
   * Status names the limit. `Infinity` turns the cap off.
   */
  maxEventBytes?: number | undefined;
}

/** A query parameter value. */
export type ParamValue = string | number | boolean;

/** A request body: an object (sent as JSON), or text / bytes sent as they are. */
export type RequestBody = string | Uint8Array | object;

/** The outcome of {@link Request.doRaw}: the final response, whatever its status. */
export interface RawResponse {
  /** The HTTP status code. */
  statusCode: number;
  /** The response headers, as Node parsed them. */
  headers: IncomingHttpHeaders;
  /** The whole response body, undecoded. */
  body: Buffer;
}

/**
 * What a {@link Request} needs from the client that made it. Built by `RESTClient`;
 * only needed to construct requests without one.
 */
export interface RequestRuntime {
  /** The server URL including any base path, without a trailing slash. */
  readonly baseUrl: URL;
  /** The API path for versioned requests, e.g. `/api/v1` or `/apis/apps/v1`. */
  readonly versionedPath: string;
  /** The limiter every attempt waits on; `undefined` when throttling is off. */
  readonly rateLimiter: RateLimiter | undefined;
  /** Time source for retry waits; a fake clock in tests. */
  readonly clock: Clock;
  /** How often a request is retried after a `Retry-After` answer or a reset connection. */
  readonly maxRetries: number;
  /** Extra wait before retry `attempt` (1-based), on top of any Retry-After. */
  readonly retryBackoffMs: (attempt: number) => number;
  /** Default timeout for every request; 0 for none. */
  readonly timeoutMs: number;
  /** Where requests log retries and failures. */
  readonly logger: Logger;
  /** Receives the server's `Warning` headers; `undefined` drops them. */
  readonly warningHandler: WarningHandler | undefined;
  /** The `User-Agent` header sent with every request. */
  readonly userAgent: string;
  /**
   * The default {@link WatchRequestOptions.maxEventBytes} of watches; `undefined` for
   * {@link defaultMaxWatchEventBytes} (16 MiB).
   */
  readonly maxWatchEventBytes?: number | undefined;
  /**
   * What the connection trusts, to explain a failed server-certificate verification:
   * whether a CA was configured, and the name the certificate is checked against.
   */
  readonly tls?: {
    /** Whether a CA bundle was configured (otherwise the system roots are trusted). */
    readonly caConfigured: boolean;
    /** The name the server certificate is checked against, when it is not the host. */
    readonly serverName?: string | undefined;
  };
  /**
   * Credentials and the pooled agent for one attempt. `onUnauthorized`, when given, is
   * called if the server answers that attempt with 401, so cached credentials (exec
   * plugin tokens, a token file) are refreshed for the next request.
   */
  connection(signal: AbortSignal): Promise<{
    /** Headers for the attempt: `Authorization`, `Impersonate-*`. */
    headers: Record<string, string | string[]>;
    /** The keep-alive agent for the client's TLS settings. */
    agent: Agent;
    /** Called when the server answers the attempt with 401. */
    onUnauthorized?: (() => void) | undefined;
  }>;
}

/**
 * The URL as it may appear in messages and logs: a password given in the server URL
 * (`https://user:password@host`) is replaced by `xxxxx`, as Go's `URL.Redacted`.
 */
export function redactedHref(url: URL): string {
  if (!url.password) return url.href;
  const copy = new URL(url.href);
  copy.password = 'xxxxx';
  return copy.href;
}

// The stopwatch behind a request's timeout and its caller's abort signal.
class Deadline {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private readonly callerSignal: AbortSignal | undefined;
  private readonly onCallerAbort = (): void => {
    this.controller.abort(this.callerSignal?.reason);
  };

  constructor(
    callerSignal: AbortSignal | undefined,
    timeoutMs: number,
    describe: () => TransportError,
  ) {
    this.signal = this.controller.signal;
    this.callerSignal = callerSignal;
    if (callerSignal?.aborted) {
      this.controller.abort(callerSignal.reason);
    } else {
      callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
    }
    if (timeoutMs > 0 && !this.signal.aborted) {
      this.timer = setTimeout(() => this.controller.abort(describe()), timeoutMs);
    }
  }

  /** Stops the timeout (a watch or stream has started) but keeps the caller's signal. */
  stopTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  dispose(): void {
    this.stopTimer();
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }
}

const maxErrorBodyLength = 1024;

function retryAfterSeconds(response: IncomingMessage): number | undefined {
  const code = response.statusCode ?? 0;
  // Only throttling and server-side errors carry a usable Retry-After, as in client-go.
  if (code !== 429 && code < 500) return undefined;
  const header = response.headers['retry-after'];
  if (header === undefined || !/^\s*\d+\s*$/.test(header)) return undefined;
  return Number.parseInt(header, 10);
}

function isStatusObject(value: unknown): value is Status {
  return (
    typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status'
  );
}

function errorFromResponse(response: IncomingMessage, body: Buffer): StatusError {
  const statusCode = response.statusCode ?? 0;
  const retryAfter = retryAfterSeconds(response);
  const text = body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (isStatusObject(parsed)) {
    const status: Status = { ...parsed, code: parsed.code || statusCode };
    if (retryAfter !== undefined && status.details?.retryAfterSeconds === undefined) {
      status.details = { ...status.details, retryAfterSeconds: retryAfter };
    }
    return new StatusError(status);
  }
  const trimmed = text.trim();
  const message =
    trimmed.length > maxErrorBodyLength ? `${trimmed.slice(0, maxErrorBodyLength)}...` : trimmed;
  return new StatusError(statusFromHttp(statusCode, message, retryAfter));
}

async function readBody(response: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function isSuccess(statusCode: number): boolean {
  return statusCode >= 200 && statusCode < 300;
}

/**
 * One API request, built fluently and sent with {@link Request.do}, {@link Request.doList},
 * {@link Request.doRaw},
 * {@link Request.watch} or {@link Request.stream}. Made by a `RESTClient` verb:
 *
 * ```ts
 * const cm = await client.get().namespace('default').resource('configmaps').name('x').do<ConfigMap>();
 * ```
 *
 * As in client-go, the namespace, resource, name and subresource can each be set once,
 * and must be valid path segments; a mistake is remembered and thrown when the request
 * is sent, so chains stay readable.
 */
export class Request {
  /** The HTTP method. */
  readonly verb: string;
  private readonly runtime: RequestRuntime;
  private error: InvalidRequestError | undefined;
  // Escaped segments below the server's base path: the versioned API path, or absPath's.
  private prefixSegments: string[];
  private trailingSlash = false;
  private namespaceValue: string | undefined;
  private resourceValue: string | undefined;
  private nameValue: string | undefined;
  private subresourceValue: string | undefined;
  private suffixSegments: string[] = [];
  private readonly query: [string, string][] = [];
  private readonly extraHeaders = new Map<string, { name: string; value: string | string[] }>();
  private bodyBytes: Buffer | undefined;
  private contentType: string | undefined;
  private timeoutMs: number | undefined;
  private callerSignal: AbortSignal | undefined;

  /** Use the `RESTClient` verbs (`get()`, `post()`, ...) rather than this constructor. */
  constructor(runtime: RequestRuntime, verb: string, contentType?: string) {
    this.runtime = runtime;
    this.verb = verb.toUpperCase();
    this.contentType = contentType;
    this.prefixSegments = this.segmentsOf('path', runtime.versionedPath);
  }

  private segmentsOf(part: string, ...paths: string[]): string[] {
    try {
      return escapedSegmentsOf(part, ...paths);
    } catch (err) {
      this.error ??= err as InvalidRequestError;
      return [];
    }
  }

  private fail(part: string, value: string, message: string): this {
    this.error ??= new InvalidRequestError(part, value, message);
    return this;
  }

  private checkSegment(part: string, value: string): boolean {
    const problems = pathSegmentProblems(value);
    if (problems.length === 0) return true;
    this.fail(part, value, `invalid ${part} ${describeValue(value)}: ${problems.join(', ')}`);
    return false;
  }

  /** The namespace of the object(s); `''` means all namespaces. Set once. */
  namespace(namespace: string): this {
    if (this.error) return this;
    if (this.namespaceValue !== undefined) {
      return this.fail(
        'namespace',
        namespace,
        `namespace already set to "${this.namespaceValue}", cannot change to "${namespace}"`,
      );
    }
    if (!this.checkSegment('namespace', namespace)) return this;
    this.namespaceValue = namespace;
    return this;
  }

  /** The resource (plural, lower case), e.g. `configmaps`. Set once. */
  resource(resource: string): this {
    if (this.error) return this;
    if (this.resourceValue !== undefined) {
      return this.fail(
        'resource',
        resource,
        `resource already set to "${this.resourceValue}", cannot change to "${resource}"`,
      );
    }
    if (!this.checkSegment('resource', resource)) return this;
    this.resourceValue = resource;
    return this;
  }

  /** The object's name. Must not be empty. Set once. */
  name(name: string): this {
    if (this.error) return this;
    if (name.length === 0) return this.fail('name', name, 'resource name may not be empty');
    if (this.nameValue !== undefined) {
      return this.fail(
        'name',
        name,
        `resource name already set to "${this.nameValue}", cannot change to "${name}"`,
      );
    }
    if (!this.checkSegment('name', name)) return this;
    this.nameValue = name;
    return this;
  }

  /** The subresource, e.g. `status`, `scale` or `log`; several parts are joined by `/`. Set once. */
  subresource(...parts: string[]): this {
    if (this.error) return this;
    const joined = parts.join('/');
    if (this.subresourceValue !== undefined) {
      return this.fail(
        'subresource',
        joined,
        `subresource already set to "${this.subresourceValue}", cannot change to "${joined}"`,
      );
    }
    for (const part of parts) {
      if (!this.checkSegment('subresource', part)) return this;
    }
    this.subresourceValue = joined;
    return this;
  }

  /**
   * Path segments appended after the name and subresource (client-go's `Suffix`). Each
   * part may hold several `/`-separated segments; `.` and `..` are refused.
   */
  suffix(...segments: string[]): this {
    this.suffixSegments.push(...this.segmentsOf('suffix', ...segments));
    return this;
  }

  /**
   * Replaces the API path with these segments (below the server's base path), for
   * endpoints outside a group/version such as `/version` or `/healthz`. Each part may
   * hold several `/`-separated segments; `.` and `..` are refused rather than resolved.
   */
  absPath(...segments: string[]): this {
    this.prefixSegments = this.segmentsOf('absPath', ...segments);
    this.trailingSlash = segments.at(-1)?.endsWith('/') ?? false;
    return this;
  }

  /** Adds a query parameter; repeating a name sends it several times. */
  param(name: string, value: ParamValue): this {
    if (this.error) return this;
    if (name.length === 0)
      return this.fail('param', String(value), 'parameter name may not be empty');
    this.query.push([name, String(value)]);
    return this;
  }

  /** Adds several query parameters; arrays repeat the name, `undefined` values are skipped. */
  params(values: Readonly<Record<string, ParamValue | readonly ParamValue[] | undefined>>): this {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) continue;
      if (Array.isArray(value)) {
        for (const item of value as readonly ParamValue[]) this.param(name, item);
      } else {
        this.param(name, value as ParamValue);
      }
    }
    return this;
  }

  /** Sets a request header, replacing the default or earlier value of the same name. */
  setHeader(name: string, value: string | readonly string[]): this {
    this.extraHeaders.set(name.toLowerCase(), {
      name,
      value: typeof value === 'string' ? value : [...value],
    });
    return this;
  }

  /** The body: objects are sent as JSON; strings and bytes as they are. */
  body(body: RequestBody): this {
    if (typeof body === 'string') this.bodyBytes = Buffer.from(body, 'utf8');
    else if (body instanceof Uint8Array) this.bodyBytes = Buffer.from(body);
    else this.bodyBytes = Buffer.from(JSON.stringify(body), 'utf8');
    return this;
  }

  /**
   * Gives up after `ms` milliseconds, retries included, and asks the server to finish
   * within that time too (the `timeout` query parameter, as client-go sends it). For a
   * watch or stream the limit covers getting the response started.
   */
  timeout(ms: number): this {
    this.timeoutMs = ms;
    return this;
  }

  /** Aborting the signal cancels the request (or ends the watch/stream). */
  signal(signal: AbortSignal): this {
    this.callerSignal = signal;
    return this;
  }

  /**
   * The URL this request is sent to. Every segment is percent-encoded, so the path names
   * exactly the namespace, resource, name and subresource that were set.
   */
  url(): URL {
    const segments = [...this.prefixSegments];
    if (this.namespaceValue) segments.push('namespaces', escapePathSegment(this.namespaceValue));
    if (this.resourceValue) segments.push(escapePathSegment(this.resourceValue.toLowerCase()));
    if (this.nameValue) segments.push(escapePathSegment(this.nameValue));
    if (this.subresourceValue) {
      for (const part of this.subresourceValue.split('/')) {
        if (part !== '') segments.push(escapePathSegment(part));
      }
    }
    segments.push(...this.suffixSegments);
    const base = this.runtime.baseUrl.pathname.replace(/\/+$/, '');
    const url = new URL(this.runtime.baseUrl.href);
    url.pathname = `${base}/${segments.join('/')}${this.trailingSlash && segments.length > 0 ? '/' : ''}`;
    const query = new URLSearchParams(this.query);
    if (this.timeoutMs !== undefined && this.timeoutMs > 0 && !query.has('timeout')) {
      query.set('timeout', `${Math.ceil(this.timeoutMs)}ms`);
    }
    url.search = query.toString();
    return url;
  }

  // The URL for messages and logs, without a password the server URL may carry.
  private safeHref(): string {
    return redactedHref(this.url());
  }

  /**
   * What `JSON.stringify` shows: the method, the URL (a password in the server URL
   * redacted), the header names set on the request (credential values redacted) and the
   * body's size, never its content (it may be a Secret).
   */
  toJSON(): Record<string, unknown> {
    const headers: Record<string, string | string[]> = {};
    for (const { name, value } of this.extraHeaders.values()) {
      headers[name] = /^(proxy-)?authorization$/i.test(name) ? '--- REDACTED ---' : value;
    }
    return {
      verb: this.verb,
      url: this.safeHref(),
      headers,
      ...(this.bodyBytes ? { bodyBytes: this.bodyBytes.length } : {}),
    };
  }

  /** What `util.inspect` and `console.log` show: as {@link Request.toJSON}, no credentials. */
  [inspect.custom](
    _depth: number,
    options: Parameters<typeof inspect>[1],
    inspectFn: typeof inspect,
  ): string {
    return `Request ${inspectFn(this.toJSON(), options)}`;
  }

  private startDeadline(): Deadline {
    const timeoutMs = this.timeoutMs ?? this.runtime.timeoutMs;
    return new Deadline(
      this.callerSignal,
      timeoutMs,
      () =>
        new TransportError(`${this.verb} ${this.safeHref()}: timed out after ${timeoutMs} ms`, {
          method: this.verb,
          url: this.safeHref(),
          code: 'ETIMEDOUT',
          timedOut: true,
        }),
    );
  }

  private buildHeaders(credentials: Record<string, string | string[]>): OutgoingHttpHeaders {
    const headers: OutgoingHttpHeaders = {
      Accept: 'application/json, */*',
      'User-Agent': this.runtime.userAgent,
    };
    if (this.bodyBytes) {
      headers['Content-Type'] = this.contentType ?? 'application/json';
      headers['Content-Length'] = this.bodyBytes.length;
    }
    Object.assign(headers, credentials);
    for (const { name, value } of this.extraHeaders.values()) {
      for (const existing of Object.keys(headers)) {
        if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
      }
      headers[name] = value;
    }
    return headers;
  }

  private reportWarnings(response: IncomingMessage): void {
    const handler = this.runtime.warningHandler;
    const values = response.headersDistinct.warning;
    if (!handler || !values) return;
    for (const warning of parseWarningHeaders(values)) {
      try {
        handler(warning);
      } catch (err) {
        this.runtime.logger.warn('warning handler threw', { error: err });
      }
    }
  }

  /**
   * Sends the request, retrying like client-go: after a 429 or 5xx that carries
   * `Retry-After` (any verb: the server did not act on it), and for GET after a reset or
   * refused connection. Each attempt first waits for the rate limiter. Resolves with the
   * final response, its body unread.
   */
  private async send(deadline: Deadline): Promise<IncomingMessage> {
    if (this.error) throw this.error;
    const { runtime } = this;
    const url = this.url();
    const href = redactedHref(url);
    let waitMs = 0;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) await runtime.clock.sleep(waitMs, deadline.signal);
      if (runtime.rateLimiter) await runtime.rateLimiter.wait(deadline.signal);
      const {
        headers: credentials,
        agent,
        onUnauthorized,
      } = await runtime.connection(deadline.signal);
      let response: IncomingMessage;
      try {
        response = await sendHttpRequest({
          url,
          method: this.verb,
          headers: this.buildHeaders(credentials),
          body: this.bodyBytes,
          agent,
          signal: deadline.signal,
        });
      } catch (err) {
        if (deadline.signal.aborted) throw deadline.signal.reason;
        const code = networkErrorCode(err);
        if (
          attempt < runtime.maxRetries &&
          this.verb === 'GET' &&
          isRetryableConnectionError(err)
        ) {
          // client-go answers a retryable connection error as if the server had said
          // "Retry-After: 1".
          waitMs = Math.max(1000, runtime.retryBackoffMs(attempt + 1));
          runtime.logger.debug('retrying after a connection error', {
            method: this.verb,
            url: href,
            code,
            attempt: attempt + 1,
            waitMs,
          });
          continue;
        }
        const reason = isTLSVerificationError(err)
          ? describeTLSVerificationError(err, runtime.tls ?? { caConfigured: false })
          : err instanceof Error
            ? err.message
            : String(err);
        throw new TransportError(
          `${this.verb} ${href}: ${reason}`,
          { method: this.verb, url: href, ...(code ? { code } : {}) },
          { cause: err },
        );
      }
      // As client-go's exec authenticator: a 401 invalidates the cached credentials so the
      // next request gets new ones; this request is not sent again.
      if (response.statusCode === 401) onUnauthorized?.();
      this.reportWarnings(response);
      const retryAfter = retryAfterSeconds(response);
      if (retryAfter !== undefined && attempt < runtime.maxRetries) {
        // Drain the body so the keep-alive connection can carry the retry.
        response.resume();
        waitMs = Math.max(retryAfter * 1000, runtime.retryBackoffMs(attempt + 1));
        runtime.logger.debug('retrying after Retry-After', {
          method: this.verb,
          url: href,
          statusCode: response.statusCode,
          attempt: attempt + 1,
          waitMs,
        });
        continue;
      }
      return response;
    }
  }

  private readFailure(err: unknown, deadline: Deadline): unknown {
    if (deadline.signal.aborted) return deadline.signal.reason;
    const url = this.safeHref();
    const reason = err instanceof Error ? err.message : String(err);
    const code = networkErrorCode(err);
    return new TransportError(
      `${this.verb} ${url}: reading the response failed: ${reason}`,
      { method: this.verb, url, ...(code ? { code } : {}) },
      { cause: err },
    );
  }

  private async readWhole(response: IncomingMessage, deadline: Deadline): Promise<Buffer> {
    try {
      return await readBody(response);
    } catch (err) {
      throw this.readFailure(err, deadline);
    }
  }

  /**
   * Sends the request and resolves with the final response whatever its status (after
   * retries), body included. Network failures still reject.
   */
  async doRaw(): Promise<RawResponse> {
    const deadline = this.startDeadline();
    try {
      const response = await this.send(deadline);
      const body = await this.readWhole(response, deadline);
      return { statusCode: response.statusCode ?? 0, headers: response.headers, body };
    } catch (err) {
      throw deadline.signal.aborted && !isTransportError(err) ? deadline.signal.reason : err;
    } finally {
      deadline.dispose();
    }
  }

  /**
   * Sends the request and resolves with the decoded JSON body.
   *
   * @throws {StatusError} for a non-2xx answer (the server's Status, or one built from
   * the HTTP code and body), {@link TransportError} when no answer came (or the timeout
   * elapsed), {@link ResponseDecodeError} for a 2xx body that is not JSON,
   * {@link InvalidRequestError} for a badly built request, and the signal's reason when
   * aborted.
   */
  async do<T = unknown>(): Promise<T> {
    const deadline = this.startDeadline();
    try {
      const response = await this.send(deadline);
      const body = await this.readWhole(response, deadline);
      const statusCode = response.statusCode ?? 0;
      if (!isSuccess(statusCode)) throw errorFromResponse(response, body);
      const contentType = response.headers['content-type'];
      if (body.length === 0) {
        throw new ResponseDecodeError(
          `${this.verb} ${this.safeHref()}: 0-length response with status code ${statusCode}`,
          { statusCode, contentType },
        );
      }
      let decoded: unknown;
      try {
        decoded = JSON.parse(body.toString('utf8'));
      } catch (err) {
        throw new ResponseDecodeError(
          `${this.verb} ${this.safeHref()}: the response is not JSON (content type ${contentType ?? 'unknown'})`,
          { statusCode, contentType },
          { cause: err },
        );
      }
      // A Status reporting failure is an error even inside a 2xx answer, as in client-go.
      if (isStatusObject(decoded) && decoded.status === 'Failure') {
        throw new StatusError({ ...decoded, code: decoded.code || statusCode });
      }
      return decoded as T;
    } catch (err) {
      throw deadline.signal.aborted && !isTransportError(err) ? deadline.signal.reason : err;
    } finally {
      deadline.dispose();
    }
  }

  /**
   * Sends a list request like {@link Request.do} (same retries, rate limiting and errors)
   * but decodes a 2xx body as it downloads: each element of `items` is parsed on its own
   * as soon as its bytes arrive and handed to `options.onItem`, and the body is never held
   * as one string — so lists beyond V8's string limit (about 512 MB) work and parsing
   * overlaps the transfer. See {@link ListStreamDecoder} for the decoding rules.
   *
   * ```ts
   * const list = await client.get().resource('pods').param('resourceVersion', '0')
   *   .doList<Pod>({ onItem: (pod) => store.add(pod), collectItems: false });
   * const rv = list.metadata?.resourceVersion;
   * ```
   *
   * @throws {StatusError} for a non-2xx answer, or a 2xx `Status` with `status: Failure`;
   * {@link ResponseDecodeError} for a 2xx body that is not a list (its `offset` says where);
   * {@link TransportError} when no answer came, the connection broke mid-body or the
   * timeout elapsed (it covers the whole download); {@link InvalidRequestError}; the
   * signal's reason when aborted; and whatever `onItem` throws, which also closes the
   * connection.
   */
  async doList<T = unknown>(options: ListDecodeOptions<T> = {}): Promise<ObjectList<T>> {
    const deadline = this.startDeadline();
    try {
      const response = await this.send(deadline);
      const statusCode = response.statusCode ?? 0;
      if (!isSuccess(statusCode)) {
        throw errorFromResponse(response, await this.readWhole(response, deadline));
      }
      const decoder = new ListStreamDecoder<T>(options, {
        messagePrefix: `${this.verb} ${this.safeHref()}: `,
        statusCode,
        contentType: response.headers['content-type'],
      });
      let complete = false;
      try {
        const chunks = response[Symbol.asyncIterator]();
        for (;;) {
          let next: IteratorResult<unknown>;
          try {
            next = await chunks.next();
          } catch (err) {
            throw this.readFailure(err, deadline);
          }
          if (next.done) break;
          decoder.write(next.value as Buffer);
        }
        complete = true;
      } finally {
        // A decode error or an exception from onItem stops the download.
        if (!complete) response.destroy();
      }
      const list = decoder.end();
      // A Status reporting failure is an error even inside a 2xx answer, as in do().
      const decoded: unknown = list;
      if (isStatusObject(decoded) && decoded.status === 'Failure') {
        const { items: _items, ...status } = decoded as Status & { items?: unknown };
        throw new StatusError({ ...status, code: status.code || statusCode });
      }
      return list;
    } catch (err) {
      throw deadline.signal.aborted && !isTransportError(err) ? deadline.signal.reason : err;
    } finally {
      deadline.dispose();
    }
  }

  private async open(): Promise<{ response: IncomingMessage; deadline: Deadline }> {
    const deadline = this.startDeadline();
    try {
      const response = await this.send(deadline);
      const statusCode = response.statusCode ?? 0;
      if (!isSuccess(statusCode)) {
        throw errorFromResponse(response, await this.readWhole(response, deadline));
      }
      deadline.stopTimer();
      return { response, deadline };
    } catch (err) {
      deadline.dispose();
      throw deadline.signal.aborted && !isTransportError(err) ? deadline.signal.reason : err;
    }
  }

  /**
   * Starts a watch and resolves once the server accepted it. Adds `watch=true` unless a
   * `watch` parameter was given. Iterate the result with `for await`; see
   * {@link WatchStream} for how it ends.
   *
   * @throws {StatusError} when the server refuses the watch (e.g. 410 Gone).
   * @throws {RangeError} when `options.maxEventBytes` is not a positive number.
   */
  async watch<T = unknown>(options: WatchRequestOptions = {}): Promise<WatchStream<T>> {
    // Checked before the request is sent, so a bad setting cannot leave a connection open.
    const maxEventBytes = resolveMaxWatchEventBytes(
      options.maxEventBytes ?? this.runtime.maxWatchEventBytes,
    );
    if (!this.query.some(([name]) => name === 'watch')) this.query.push(['watch', 'true']);
    const { response, deadline } = await this.open();
    return new WatchStream<T>({
      maxEventBytes,
      body: response,
      signal: deadline.signal,
      close: () => response.destroy(),
      onFinished: () => deadline.dispose(),
    });
  }

  /**
   * Opens the response body as a byte stream (container logs, `follow=true`), read
   * incrementally. Destroy it, or abort the signal, to close the connection.
   *
   * @throws {StatusError} when the server answers with an error.
   */
  async stream(): Promise<Readable> {
    const { response, deadline } = await this.open();
    response.once('close', () => deadline.dispose());
    return response;
  }
}
