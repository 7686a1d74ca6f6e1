import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { ObjectList } from '@kubets/apimachinery';
import { nodeStream } from './builtins.js';
import { Deadline } from './deadline.js';
import {
  InvalidRequestError,
  isTransportError,
  ResponseDecodeError,
  TransportError,
} from './errors.js';
import { goDurationStringOfMs } from './go-duration.js';
import { inspectAsJSON } from './inspect.js';
import { type ListDecodeOptions, ListStreamDecoder } from './list-decode.js';
import {
  errorFromResponse,
  type FailedRequest,
  failureInSuccess,
  isSuccess,
  readBody,
  responseMediaType,
} from './response.js';
import type { RequestRuntime } from './runtime.js';
import { type SendKind, sendWithRetries } from './send.js';
import {
  type HttpResponse,
  isRetryableWatchError,
  networkErrorCode,
  networkErrorMessage,
} from './transport.js';
import {
  describeValue,
  escapedSegmentsOf,
  escapePathSegment,
  pathSegmentProblems,
  redactedHref,
} from './url.js';
import { type RewriteWatchEventText, resolveMaxWatchEventBytes, WatchStream } from './watch.js';

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
export interface WatchRequestOptions<T = unknown> {
  /**
   * The most bytes one watch event may have; default the client's
   * `RESTClientOptions.maxWatchEventBytes`, else {@link defaultMaxWatchEventBytes}
   * (16 MiB, as client-go). A longer event ends the watch with an ERROR event whose
   * Status names the limit. `Infinity` turns the cap off.
   */
  maxEventBytes?: number | undefined;
  /**
   * Called with the JSON text of each event line before it is parsed; it may return other
   * text to parse and a step that finishes the object parsed from it (informers cut the
   * `managedFields` trees they already hold out of the text). See
   * {@link RewriteWatchEventText}: the events delivered are the same either way.
   */
  rewriteEventText?: RewriteWatchEventText<T> | undefined;
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
  /** The HTTP version the answer came over: `'1.1'`, or `'2.0'` (see `Config.http2`). */
  httpVersion: string;
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
 * is sent, so chains stay readable. Once a mistake is remembered, the later path, query,
 * body and timeout calls change nothing.
 */
export class Request {
  /** The HTTP method. */
  readonly verb: string;
  readonly #runtime: RequestRuntime;
  #error: InvalidRequestError | undefined;
  // Escaped segments below the server's base path: the versioned API path, or absPath's.
  #prefixSegments: string[];
  #trailingSlash = false;
  #namespaceValue: string | undefined;
  #resourceValue: string | undefined;
  #nameValue: string | undefined;
  #subresourceValue: string | undefined;
  #suffixSegments: string[] = [];
  readonly #query: [string, string][] = [];
  readonly #extraHeaders = new Map<string, { name: string; value: string | string[] }>();
  #bodyBytes: Buffer | undefined;
  #contentType: string | undefined;
  #timeoutMs: number | undefined;
  #callerSignal: AbortSignal | undefined;

  /** Use the `RESTClient` verbs (`get()`, `post()`, ...) rather than this constructor. */
  constructor(runtime: RequestRuntime, verb: string, contentType?: string) {
    this.#runtime = runtime;
    this.verb = verb.toUpperCase();
    this.#contentType = contentType;
    this.#prefixSegments = this.#segmentsOf('path', runtime.versionedPath);
  }

  #segmentsOf(part: string, ...paths: string[]): string[] {
    try {
      return escapedSegmentsOf(part, ...paths);
    } catch (err) {
      this.#error ??= err as InvalidRequestError;
      return [];
    }
  }

  #fail(part: string, value: string, message: string): this {
    this.#error ??= new InvalidRequestError(part, value, message);
    return this;
  }

  #checkSegment(part: string, value: string): boolean {
    const problems = pathSegmentProblems(value);
    if (problems.length === 0) return true;
    this.#fail(part, value, `invalid ${part} ${describeValue(value)}: ${problems.join(', ')}`);
    return false;
  }

  /**
   * Whether `value` may become the `part` (shown as `label` in the message) whose value is
   * `current`: client-go refuses to change a part once set rather than silently overwrite
   * it, and every segment must be a valid path segment. A refusal is remembered as the
   * request's error.
   */
  #settable(
    part: string,
    label: string,
    current: string | undefined,
    value: string,
    segments: readonly string[] = [value],
  ): boolean {
    if (current !== undefined) {
      this.#fail(part, value, `${label} already set to "${current}", cannot change to "${value}"`);
      return false;
    }
    for (const segment of segments) {
      if (!this.#checkSegment(part, segment)) return false;
    }
    return true;
  }

  /** The namespace of the object(s); `''` means all namespaces. Set once. */
  namespace(namespace: string): this {
    if (this.#error) return this;
    if (this.#settable('namespace', 'namespace', this.#namespaceValue, namespace)) {
      this.#namespaceValue = namespace;
    }
    return this;
  }

  /** The resource (plural, lower case), e.g. `configmaps`. Set once. */
  resource(resource: string): this {
    if (this.#error) return this;
    if (this.#settable('resource', 'resource', this.#resourceValue, resource)) {
      this.#resourceValue = resource;
    }
    return this;
  }

  /** The object's name. Must not be empty. Set once. */
  name(name: string): this {
    if (this.#error) return this;
    if (name.length === 0) return this.#fail('name', name, 'resource name may not be empty');
    if (this.#settable('name', 'resource name', this.#nameValue, name)) this.#nameValue = name;
    return this;
  }

  /** The subresource, e.g. `status`, `scale` or `log`; several parts are joined by `/`. Set once. */
  subresource(...parts: string[]): this {
    if (this.#error) return this;
    const joined = parts.join('/');
    if (this.#settable('subresource', 'subresource', this.#subresourceValue, joined, parts)) {
      this.#subresourceValue = joined;
    }
    return this;
  }

  /**
   * Path segments appended after the name and subresource (client-go's `Suffix`). Each
   * part may hold several `/`-separated segments; `.` and `..` are refused.
   */
  suffix(...segments: string[]): this {
    if (this.#error) return this;
    this.#suffixSegments.push(...this.#segmentsOf('suffix', ...segments));
    return this;
  }

  /**
   * Replaces the API path with these segments (below the server's base path), for
   * endpoints outside a group/version such as `/version` or `/healthz`. Each part may
   * hold several `/`-separated segments; `.` and `..` are refused rather than resolved.
   */
  absPath(...segments: string[]): this {
    if (this.#error) return this;
    this.#prefixSegments = this.#segmentsOf('absPath', ...segments);
    this.#trailingSlash = segments.at(-1)?.endsWith('/') ?? false;
    return this;
  }

  /**
   * Points the request at `uri`, a path below the server's base path with an optional
   * query (`/api/v1/pods?limit=1`), as client-go's `RequestURI` (what `kubectl get --raw`
   * uses): the path replaces the API path as {@link Request.absPath} does, and the query
   * replaces every parameter set so far. Percent-escapes in the path are decoded first;
   * `.` and `..` segments are refused, as in `absPath`.
   */
  requestURI(uri: string): this {
    if (this.#error) return this;
    const [pathAndQuery = ''] = uri.split('#', 1);
    const queryStart = pathAndQuery.indexOf('?');
    const path = queryStart < 0 ? pathAndQuery : pathAndQuery.slice(0, queryStart);
    const query = queryStart < 0 ? '' : pathAndQuery.slice(queryStart + 1);
    let decoded: string;
    try {
      decoded = path.split('/').map(decodeURIComponent).join('/');
    } catch {
      return this.#fail(
        'requestURI',
        uri,
        `invalid requestURI ${describeValue(uri)}: malformed percent-escape`,
      );
    }
    const segments = this.#segmentsOf('requestURI', decoded);
    if (this.#error) return this;
    this.#prefixSegments = segments;
    this.#trailingSlash = decoded.endsWith('/');
    this.#query.length = 0;
    for (const [name, value] of new URLSearchParams(query)) this.#query.push([name, value]);
    return this;
  }

  /** Adds a query parameter; repeating a name sends it several times. */
  param(name: string, value: ParamValue): this {
    if (this.#error) return this;
    if (name.length === 0)
      return this.#fail('param', String(value), 'parameter name may not be empty');
    this.#query.push([name, String(value)]);
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
    this.#extraHeaders.set(name.toLowerCase(), {
      name,
      value: typeof value === 'string' ? value : [...value],
    });
    return this;
  }

  /** The body: objects are sent as JSON; strings and bytes as they are. */
  body(body: RequestBody): this {
    if (this.#error) return this;
    if (typeof body === 'string') this.#bodyBytes = Buffer.from(body, 'utf8');
    else if (body instanceof Uint8Array) this.#bodyBytes = Buffer.from(body);
    else this.#bodyBytes = Buffer.from(JSON.stringify(body), 'utf8');
    return this;
  }

  /**
   * Gives up after `ms` milliseconds, retries included, and asks the server to finish
   * within that time too (the `timeout` query parameter, as client-go sends it). For a
   * watch or stream the limit covers getting the response started.
   */
  timeout(ms: number): this {
    if (this.#error) return this;
    this.#timeoutMs = ms;
    return this;
  }

  /** Aborting the signal cancels the request (or ends the watch/stream). */
  signal(signal: AbortSignal): this {
    this.#callerSignal = signal;
    return this;
  }

  /**
   * The URL this request is sent to. Every segment is percent-encoded, so the path names
   * exactly the namespace, resource, name and subresource that were set.
   */
  url(): URL {
    const segments = [...this.#prefixSegments];
    if (this.#namespaceValue) segments.push('namespaces', escapePathSegment(this.#namespaceValue));
    if (this.#resourceValue) segments.push(escapePathSegment(this.#resourceValue.toLowerCase()));
    if (this.#nameValue) segments.push(escapePathSegment(this.#nameValue));
    if (this.#subresourceValue) {
      for (const part of this.#subresourceValue.split('/')) {
        if (part !== '') segments.push(escapePathSegment(part));
      }
    }
    segments.push(...this.#suffixSegments);
    const basePath = this.#runtime.baseUrl.pathname;
    const base = basePath.replace(/\/+$/, '');
    const url = new URL(this.#runtime.baseUrl.href);
    // As client-go: absPath's trailing slash survives only when nothing follows it.
    const keepSlash =
      this.#trailingSlash && segments.length > 0 && segments.length === this.#prefixSegments.length;
    // An empty absPath names the base path itself, with its trailing slash if it has one.
    const bare = segments.length === 0 && !this.#trailingSlash && base !== '';
    url.pathname = bare ? basePath : `${base}/${segments.join('/')}${keepSlash ? '/' : ''}`;
    const query = new URLSearchParams(this.#query);
    if (this.#timeoutMs !== undefined && this.#timeoutMs > 0 && !query.has('timeout')) {
      query.set('timeout', goDurationStringOfMs(this.#timeoutMs));
    }
    url.search = query.toString();
    return url;
  }

  #failedRequest(): FailedRequest {
    // The group of a versioned path `/apis/<group>/<version>`; the core group has none.
    const group = /^\/?apis\/([^/]+)\/[^/]+\/?$/.exec(this.#runtime.versionedPath)?.[1] ?? '';
    return {
      method: this.verb,
      resource: this.#resourceValue,
      group,
      name: this.#nameValue,
    };
  }

  // The URL for messages and logs, without a password the server URL may carry.
  #safeHref(): string {
    return redactedHref(this.url());
  }

  /**
   * What `JSON.stringify` shows: the method, the URL (a password in the server URL
   * redacted), the header names set on the request (credential values redacted) and the
   * body's size, never its content (it may be a Secret).
   */
  toJSON(): Record<string, unknown> {
    const headers: Record<string, string | string[]> = {};
    for (const { name, value } of this.#extraHeaders.values()) {
      headers[name] = /^(proxy-)?authorization$/i.test(name) ? '--- REDACTED ---' : value;
    }
    return {
      verb: this.verb,
      url: this.#safeHref(),
      headers,
      ...(this.#bodyBytes ? { bodyBytes: this.#bodyBytes.length } : {}),
    };
  }

  #startDeadline(): Deadline {
    const timeoutMs = this.#timeoutMs ?? this.#runtime.timeoutMs;
    return new Deadline(
      this.#callerSignal,
      timeoutMs,
      () =>
        new TransportError(`${this.verb} ${this.#safeHref()}: timed out after ${timeoutMs} ms`, {
          method: this.verb,
          url: this.#safeHref(),
          code: 'ETIMEDOUT',
          timedOut: true,
        }),
    );
  }

  #buildHeaders(credentials: Record<string, string | string[]>): OutgoingHttpHeaders {
    const headers: OutgoingHttpHeaders = {
      Accept: 'application/json, */*',
      'User-Agent': this.#runtime.userAgent,
    };
    if (this.#bodyBytes) {
      headers['Content-Type'] = this.#contentType ?? 'application/json';
      headers['Content-Length'] = this.#bodyBytes.length;
    }
    Object.assign(headers, credentials);
    for (const { name, value } of this.#extraHeaders.values()) {
      for (const existing of Object.keys(headers)) {
        if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
      }
      headers[name] = value;
    }
    return headers;
  }

  /**
   * Sends the request with client-go's retries (see {@link sendWithRetries}). Resolves
   * with the final response, its body unread.
   */
  // client-go's check of `Do`/`DoRaw` (not `Watch`/`Stream`) for an empty namespace set
  // explicitly where one must be named.
  #preflightError(): InvalidRequestError | undefined {
    if (this.#namespaceValue !== '') return undefined;
    if (this.verb === 'POST') {
      return new InvalidRequestError(
        'namespace',
        '',
        'an empty namespace may not be set during creation',
      );
    }
    if (['GET', 'PUT', 'DELETE'].includes(this.verb) && this.#nameValue) {
      return new InvalidRequestError(
        'namespace',
        '',
        'an empty namespace may not be set when a resource name is provided',
      );
    }
    return undefined;
  }

  #send(deadline: Deadline, kind: SendKind = 'request'): Promise<HttpResponse> {
    if (this.#error) return Promise.reject(this.#error);
    const preflight = kind === 'request' ? this.#preflightError() : undefined;
    if (preflight) return Promise.reject(preflight);
    return sendWithRetries(this.#runtime, {
      kind,
      method: this.verb,
      url: this.url(),
      headers: (credentials) => this.#buildHeaders(credentials),
      body: this.#bodyBytes,
      signal: deadline.signal,
    });
  }

  #readFailure(err: unknown, deadline: Deadline): unknown {
    if (deadline.signal.aborted) return deadline.signal.reason;
    const url = this.#safeHref();
    const reason = networkErrorMessage(err);
    const code = networkErrorCode(err);
    return new TransportError(
      `${this.verb} ${url}: reading the response failed: ${reason}`,
      { method: this.verb, url, ...(code ? { code } : {}) },
      { cause: err },
    );
  }

  async #readWhole(response: HttpResponse, deadline: Deadline): Promise<Buffer> {
    try {
      return await readBody(response);
    } catch (err) {
      throw this.#readFailure(err, deadline);
    }
  }

  /**
   * Sends the request and resolves with the final response whatever its status (after
   * retries), body included. Network failures still reject.
   */
  async doRaw(): Promise<RawResponse> {
    const deadline = this.#startDeadline();
    try {
      const response = await this.#send(deadline);
      const body = await this.#readWhole(response, deadline);
      return {
        statusCode: response.statusCode,
        headers: response.headers,
        body,
        httpVersion: response.httpVersion,
      };
    } catch (err) {
      throw deadline.failure(err);
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
    const deadline = this.#startDeadline();
    try {
      const response = await this.#send(deadline);
      const body = await this.#readWhole(response, deadline);
      const statusCode = response.statusCode;
      if (!isSuccess(statusCode)) throw errorFromResponse(response, body, this.#failedRequest());
      const contentType = response.headers['content-type'];
      if (body.length === 0) {
        throw new ResponseDecodeError(
          `${this.verb} ${this.#safeHref()}: 0-length response with status code ${statusCode}`,
          { statusCode, contentType },
        );
      }
      let decoded: unknown;
      try {
        decoded = JSON.parse(body.toString('utf8'));
      } catch (err) {
        throw new ResponseDecodeError(
          `${this.verb} ${this.#safeHref()}: the response is not JSON (content type ${contentType ?? 'unknown'})`,
          { statusCode, contentType },
          { cause: err },
        );
      }
      const failure = failureInSuccess(decoded, statusCode);
      if (failure) throw failure;
      return decoded as T;
    } catch (err) {
      throw deadline.failure(err);
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
    const deadline = this.#startDeadline();
    try {
      const response = await this.#sendForStream(deadline);
      const statusCode = response.statusCode;
      const decoder = new ListStreamDecoder<T>(options, {
        messagePrefix: `${this.verb} ${this.#safeHref()}: `,
        statusCode,
        contentType: response.headers['content-type'],
      });
      await this.#decodeBody(response.body, decoder, deadline);
      const list = decoder.end();
      const failure = failureInSuccess(list, statusCode);
      if (failure) throw failure;
      return list;
    } catch (err) {
      throw deadline.failure(err);
    } finally {
      deadline.dispose();
    }
  }

  /**
   * Writes the body to `decoder` as it arrives; resolves at its end. It listens for `data`
   * rather than iterating the stream: an async iterator's promise and result per chunk are
   * garbage, thousands of times over in a large list. What `decoder.write` throws (a decode
   * error, an exception from `onItem`) stops the download and rejects unchanged.
   */
  #decodeBody<T>(body: Readable, decoder: ListStreamDecoder<T>, deadline: Deadline): Promise<void> {
    return new Promise((resolve, reject) => {
      let failed = false;
      const onData = (chunk: Buffer): void => {
        try {
          decoder.write(chunk);
        } catch (err) {
          failed = true;
          body.off('data', onData);
          body.destroy();
          reject(err);
        }
      };
      body.on('data', onData);
      nodeStream().finished(body, (err) => {
        body.off('data', onData);
        if (failed) return;
        if (err) reject(this.#readFailure(err, deadline));
        else resolve();
      });
    });
  }

  // The callers read a successful body as a stream, so only a failure's body is read whole,
  // to be thrown as its Status.
  async #sendForStream(deadline: Deadline, kind: SendKind = 'request'): Promise<HttpResponse> {
    const response = await this.#send(deadline, kind);
    if (!isSuccess(response.statusCode)) {
      throw errorFromResponse(
        response,
        await this.#readWhole(response, deadline),
        this.#failedRequest(),
      );
    }
    return response;
  }

  async #open(kind: SendKind): Promise<{ response: HttpResponse; deadline: Deadline }> {
    const deadline = this.#startDeadline();
    try {
      const response = await this.#sendForStream(deadline, kind);
      deadline.stopTimer();
      return { response, deadline };
    } catch (err) {
      deadline.dispose();
      throw deadline.failure(err);
    }
  }

  /**
   * Starts a watch and resolves once the server accepted it. Adds `watch=true` unless a
   * `watch` parameter was given. Iterate the result with `for await`; see
   * {@link WatchStream} for how it ends. As in client-go, the first request does not wait
   * for the rate limiter, a connection that closes or times out before an answer is
   * retried (any verb), and once the retries are spent the result is an empty watch that
   * ends at once, not an error.
   *
   * @throws {StatusError} when the server refuses the watch (e.g. 410 Gone).
   * @throws {StatusError} when the server answers with a success other than 200 whose body
   *   is a `Status` reporting a Failure (that Status, as client-go).
   * @throws {ResponseDecodeError} when the server answers with another success other than
   *   200, or in a media type other than JSON.
   * @throws {RangeError} when `options.maxEventBytes` is not a positive number.
   */
  async watch<T = unknown>(options: WatchRequestOptions<T> = {}): Promise<WatchStream<T>> {
    // Checked before the request is sent, so a bad setting cannot leave a connection open.
    const maxEventBytes = resolveMaxWatchEventBytes(
      options.maxEventBytes ?? this.#runtime.maxWatchEventBytes,
    );
    if (!this.#query.some(([name]) => name === 'watch')) this.#query.push(['watch', 'true']);
    let opened: { response: HttpResponse; deadline: Deadline };
    try {
      opened = await this.#open('watch');
    } catch (err) {
      // As client-go: a watch whose connection kept closing or timing out, retries spent,
      // is an empty watch, which its caller (a reflector) simply starts again.
      if (isTransportError(err) && !err.timedOut && isRetryableWatchError(err.cause)) {
        return new WatchStream<T>({ body: nodeStream().Readable.from([]), close: () => {} });
      }
      throw err;
    }
    const { response, deadline } = opened;
    // client-go starts a watch only on a 200: any other success (201, 204, ...) is not a
    // watch stream, and reading it as one would hand the caller an empty or garbled watch.
    if (response.statusCode !== 200) {
      try {
        throw await this.#notAWatch(response, deadline);
      } finally {
        deadline.dispose();
      }
    }
    // client-go decodes a watch only in a media type it has a stream decoder for; without a
    // Content-Type (or with one that does not parse) it assumes JSON.
    const media = responseMediaType(response);
    if (media !== undefined && media !== '' && media !== 'application/json') {
      response.body.destroy();
      deadline.dispose();
      throw new ResponseDecodeError(
        `${this.verb} ${this.#safeHref()}: no stream serializers registered for ${media}`,
        { statusCode: response.statusCode, contentType: response.headers['content-type'] },
      );
    }
    return new WatchStream<T>({
      maxEventBytes,
      rewriteEventText: options.rewriteEventText as RewriteWatchEventText<unknown> | undefined,
      body: response.body,
      signal: deadline.signal,
      close: () => response.body.destroy(),
      onFinished: () => deadline.dispose(),
    });
  }

  /**
   * The error for a success other than 200 answering a watch, as client-go's: the Status in
   * its body when that reports a Failure, otherwise the status code.
   */
  async #notAWatch(response: HttpResponse, deadline: Deadline): Promise<Error> {
    const statusCode = response.statusCode;
    const body = await this.#readWhole(response, deadline);
    let decoded: unknown;
    try {
      decoded = JSON.parse(body.toString('utf8'));
    } catch {
      decoded = undefined;
    }
    return (
      failureInSuccess(decoded, statusCode) ??
      new ResponseDecodeError(`for request ${this.#safeHref()}, got status: ${statusCode}`, {
        statusCode,
        contentType: response.headers['content-type'],
      })
    );
  }

  /**
   * Opens the response body as a byte stream (container logs, `follow=true`), read
   * incrementally. Destroy it, or abort the signal, to close the connection. Only a 429 or
   * 5xx answer with `Retry-After` is retried; a lost connection is reported at once, as in
   * client-go.
   *
   * @throws {StatusError} when the server answers with an error.
   */
  async stream(): Promise<Readable> {
    const { response, deadline } = await this.#open('stream');
    response.body.once('close', () => deadline.dispose());
    return response.body;
  }
}
inspectAsJSON(Request, 'Request');
