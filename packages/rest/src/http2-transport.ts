// HTTP/2 to the API server, as client-go speaks it (Config.http2): one session per origin and
// TLS settings, multiplexing every request and watch of the clients that share those
// settings. A session that goes quiet is pinged, and closed when the ping is not answered,
// so a connection a NAT or load balancer silently dropped does not hang every watch on it.
import type { Agent, OutgoingHttpHeaders } from 'node:http';
import type {
  ClientHttp2Session,
  ClientHttp2Stream,
  IncomingHttpHeaders as Http2IncomingHeaders,
  IncomingHttpStatusHeader,
} from 'node:http2';
import type { AgentOptions } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { Clock, ClockTimer, Logger } from '@kubets/apimachinery';
import { nodeHttp, nodeHttp2, nodeNet, nodeTls } from './builtins.js';
import type { HttpExchange, HttpResponse } from './transport.js';

/**
 * How long a session may receive nothing before it is pinged: client-go's
 * `readIdleTimeoutSeconds`.
 */
export const defaultReadIdleTimeoutMs = 30_000;
/** How long a ping may go unanswered before the session is closed: client-go's `pingTimeoutSeconds`. */
export const defaultPingTimeoutMs = 15_000;
/** How long a session with no streams stays open: client-go's `IdleConnTimeout`. */
export const defaultSessionIdleTimeoutMs = 90_000;

// Flow-control windows as Go's HTTP/2 client opens them (4 MiB per stream, 1 GiB per
// connection), so a list of hundreds of megabytes streams at the connection's pace.
const streamWindowBytes = 4 << 20;
const connectionWindowBytes = 1 << 30;

// How often per read-idle period the socket is looked at for frames received.
const healthSamplesPerPeriod = 6;

/** What a session is run with. */
export interface Http2Settings {
  /** Runs the health checks and the idle close; a `FakeClock` in tests. */
  readonly clock: Clock;
  /** Hears about sessions opening, closing and failing their health check (debug level). */
  readonly logger: Logger;
  /** Default {@link defaultReadIdleTimeoutMs}. */
  readonly readIdleTimeoutMs?: number | undefined;
  /** Default {@link defaultPingTimeoutMs}. */
  readonly pingTimeoutMs?: number | undefined;
  /** Default {@link defaultSessionIdleTimeoutMs}. */
  readonly idleTimeoutMs?: number | undefined;
}

// Keyed by the pooled HTTP/1.1 agent, which is itself cached per TLS settings: clients that
// share an agent share its HTTP/2 sessions, and the agent carries the TLS options to dial with.
const transports = new WeakMap<Agent, Map<string, Http2Transport>>();

/**
 * The HTTP/2 transport to `url`'s origin with `agent`'s TLS settings, created on first use
 * with `settings` (later callers share it as it is).
 */
export function http2TransportFor(agent: Agent, url: URL, settings: Http2Settings): Http2Transport {
  let byOrigin = transports.get(agent);
  if (!byOrigin) {
    byOrigin = new Map();
    transports.set(agent, byOrigin);
  }
  let transport = byOrigin.get(url.origin);
  if (!transport) {
    const options = (agent as { options?: AgentOptions }).options ?? {};
    transport = new Http2Transport(url, options, settings);
    byOrigin.set(url.origin, transport);
  }
  return transport;
}

function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

// Headers HTTP/2 forbids (RFC 9113 §8.2.2) or carries as pseudo-headers.
const connectionSpecificHeaders: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'host',
]);

function requestHeaders(
  method: string,
  url: URL,
  headers: OutgoingHttpHeaders,
): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = { ':method': method, ':path': `${url.pathname}${url.search}` };
  const { validateHeaderName, validateHeaderValue } = nodeHttp();
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || connectionSpecificHeaders.has(lower)) continue;
    // node:http2 sends a CR, LF or NUL in a value as it is; refuse what node:https refuses,
    // with its errors (ERR_INVALID_HTTP_TOKEN, ERR_INVALID_CHAR).
    const text = typeof value === 'number' ? String(value) : value;
    validateHeaderName(name);
    for (const line of typeof text === 'string' ? [text] : text) validateHeaderValue(name, line);
    out[lower] = text;
  }
  // node:https sends a URL's user and password as basic authentication; so must this.
  if ((url.username || url.password) && out.authorization === undefined) {
    const user = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    out.authorization = `Basic ${Buffer.from(user, 'utf8').toString('base64')}`;
  }
  return out;
}

function responseOf(
  stream: ClientHttp2Stream,
  headers: Http2IncomingHeaders & IncomingHttpStatusHeader,
  rawHeaders: string[] | undefined,
): HttpResponse {
  const plain: HttpResponse['headers'] = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(':')) plain[name] = value;
  }
  let distinct: Record<string, string[]> | undefined;
  return {
    statusCode: Number(headers[':status'] ?? 0),
    headers: plain,
    // Built on first read, as node:http's: most responses carry no header it is read for.
    get headersDistinct() {
      distinct ??= distinctHeaders(plain, rawHeaders);
      return distinct;
    },
    body: stream,
    httpVersion: '2.0',
  };
}

/** Every header as the list of its values, one per header line (pseudo-headers left out). */
function distinctHeaders(
  plain: HttpResponse['headers'],
  rawHeaders: string[] | undefined,
): Record<string, string[]> {
  const distinct: Record<string, string[]> = {};
  if (rawHeaders) {
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const name = (rawHeaders[i] as string).toLowerCase();
      if (name.startsWith(':')) continue;
      const values = distinct[name] ?? [];
      values.push(rawHeaders[i + 1] as string);
      distinct[name] = values;
    }
  } else {
    for (const [name, value] of Object.entries(plain)) {
      if (value !== undefined) distinct[name] = Array.isArray(value) ? value : [String(value)];
    }
  }
  return distinct;
}

/** A TLS connection being made, and how many requests wait for it. */
interface Dial {
  readonly promise: Promise<PooledSession | undefined>;
  readonly socket: TLSSocket;
  waiters: number;
}

/**
 * The HTTP/2 side of one origin and TLS settings: the current session, opened on first use
 * and replaced after it closes, errs or gets a GOAWAY; or the finding that the server
 * speaks only HTTP/1.1.
 */
export class Http2Transport {
  /** `https://host:port` */
  readonly origin: string;
  readonly #url: URL;
  readonly #tls: AgentOptions;
  readonly #settings: Http2Settings;
  // Open sessions, oldest first: a new one is opened only when every one is at the number of
  // streams its server allows (as Go's client does), since further streams would wait.
  readonly #sessions: PooledSession[] = [];
  #opening: Dial | undefined;
  #http1Only = false;
  /** Sessions opened so far. */
  sessionsOpened = 0;

  constructor(url: URL, tls: AgentOptions, settings: Http2Settings) {
    this.#url = new URL(url.origin);
    this.origin = url.origin;
    this.#tls = tls;
    this.#settings = settings;
  }

  /**
   * What the server agreed to by ALPN: `'h2'`, `'http/1.1'` (the agent carries the
   * requests), or `undefined` before the first connection.
   */
  get protocol(): 'h2' | 'http/1.1' | undefined {
    if (this.#http1Only) return 'http/1.1';
    return this.sessionsOpened > 0 ? 'h2' : undefined;
  }

  /** The oldest open session, the one new requests go to while it has room. */
  get session(): PooledSession | undefined {
    return this.#sessions[0];
  }

  /** The open sessions, oldest first. */
  get sessions(): readonly PooledSession[] {
    return this.#sessions;
  }

  /**
   * Sends the exchange on the pooled session (opening one if needed) and resolves when the
   * response headers arrive. Resolves `undefined` when the server offers no HTTP/2: send it
   * over HTTP/1.1 instead.
   */
  async send(exchange: HttpExchange): Promise<HttpResponse | undefined> {
    const { signal } = exchange;
    if (signal.aborted) throw signal.reason;
    if (this.#http1Only) return undefined;
    const session =
      this.#sessions.find((open) => open.hasRoom) ?? (await this.#waitForSession(signal));
    if (!session) return undefined;
    return session.request(exchange);
  }

  // Concurrent first requests share one dial; a caller that gives up stops waiting, and the
  // dial is abandoned once nobody waits for it (a blackholed server must not keep a socket
  // forever).
  #waitForSession(signal: AbortSignal): Promise<PooledSession | undefined> {
    this.#opening ??= this.#dial();
    const opening = this.#opening;
    opening.waiters++;
    return new Promise<PooledSession | undefined>((resolve, reject) => {
      const onAbort = (): void => {
        if (--opening.waiters === 0 && this.#opening === opening) {
          this.#opening = undefined;
          opening.socket.destroy();
        }
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      opening.promise
        .finally(() => signal.removeEventListener('abort', onAbort))
        .then(resolve, reject);
    });
  }

  #dial(): Dial {
    const host = this.#url.hostname.replace(/^\[(.*)\]$/, '$1');
    const { ca, cert, key, rejectUnauthorized, servername } = this.#tls;
    const socket = nodeTls().connect({
      host,
      port: Number(this.#url.port || 443),
      ALPNProtocols: ['h2', 'http/1.1'],
      ...(ca ? { ca } : {}),
      ...(cert ? { cert } : {}),
      ...(key ? { key } : {}),
      rejectUnauthorized: rejectUnauthorized !== false,
      // As node:https: the host name is the SNI name unless it is an IP address.
      ...(servername ? { servername } : nodeNet().isIP(host) === 0 ? { servername: host } : {}),
    });
    const promise = new Promise<PooledSession | undefined>((resolve, reject) => {
      const onError = (err: Error): void => {
        socket.destroy();
        reject(err);
      };
      socket.once('error', onError);
      socket.once('close', () =>
        reject(codedError('the connection closed during the TLS handshake', 'ECONNRESET')),
      );
      socket.once('secureConnect', () => {
        socket.removeListener('error', onError);
        resolve(this.#sessionOver(socket));
      });
    }).finally(() => {
      if (this.#opening?.socket === socket) this.#opening = undefined;
    });
    return { promise, waiters: 0, socket };
  }

  #sessionOver(socket: TLSSocket): PooledSession | undefined {
    const { logger } = this.#settings;
    if (socket.alpnProtocol !== 'h2') {
      socket.destroy();
      this.#http1Only = true;
      logger.debug('the server does not offer HTTP/2; using HTTP/1.1', {
        origin: this.origin,
        alpn: socket.alpnProtocol || 'none',
      });
      return undefined;
    }
    const session = nodeHttp2().connect(this.origin, {
      createConnection: () => socket,
      settings: { initialWindowSize: streamWindowBytes },
    });
    // Node's default windows (64 KiB) would hold a large list to one window per round trip.
    session.once('connect', () => session.setLocalWindowSize(connectionWindowBytes));
    const pooled = new PooledSession(session, socket, this.origin, this.#settings, () => {
      const index = this.#sessions.indexOf(pooled);
      if (index >= 0) this.#sessions.splice(index, 1);
    });
    this.#sessions.push(pooled);
    this.sessionsOpened++;
    logger.debug('HTTP/2 session opened', { origin: this.origin, protocol: 'h2' });
    return pooled;
  }
}

/**
 * One HTTP/2 session: counts its streams (holding the process open only while it has
 * some), closes itself after idling, and checks its health as client-go does.
 */
export class PooledSession {
  /** Streams open on the session. */
  activeStreams = 0;
  /** Health-check pings sent so far. */
  pingsSent = 0;
  /** Health-check pings the server answered. */
  pingsAnswered = 0;
  readonly #session: ClientHttp2Session;
  readonly #socket: TLSSocket;
  readonly #origin: string;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #readIdleTimeoutMs: number;
  readonly #pingTimeoutMs: number;
  readonly #idleTimeoutMs: number;
  readonly #retire: () => void;
  #retired = false;
  // The socket's byte count at the last sample, and when it last grew.
  #bytesReadAtLastSample: number;
  #lastReadAt: number;
  #healthTimer: ClockTimer | undefined;
  #pingTimer: ClockTimer | undefined;
  #idleTimer: ClockTimer | undefined;

  constructor(
    session: ClientHttp2Session,
    socket: TLSSocket,
    origin: string,
    settings: Http2Settings,
    retire: () => void,
  ) {
    this.#session = session;
    this.#socket = socket;
    this.#origin = origin;
    this.#clock = settings.clock;
    this.#logger = settings.logger;
    this.#readIdleTimeoutMs = settings.readIdleTimeoutMs ?? defaultReadIdleTimeoutMs;
    this.#pingTimeoutMs = settings.pingTimeoutMs ?? defaultPingTimeoutMs;
    this.#idleTimeoutMs = settings.idleTimeoutMs ?? defaultSessionIdleTimeoutMs;
    this.#retire = retire;
    this.#bytesReadAtLastSample = socket.bytesRead;
    this.#lastReadAt = settings.clock.now();
    // The streams hear about a failure themselves; the pool only stops handing it out.
    session.on('error', (err: Error) => {
      this.#logger.debug('HTTP/2 session failed', { origin, error: err.message });
      this.#leavePool();
    });
    session.on('goaway', (errorCode: number, lastStreamID: number) => {
      // Streams the server already took (up to lastStreamID) run to their end.
      this.#logger.debug('HTTP/2 session got GOAWAY', { origin, errorCode, lastStreamID });
      this.#leavePool();
    });
    session.on('close', () => {
      this.#leavePool();
      this.#healthTimer?.cancel();
      this.#pingTimer?.cancel();
      this.#idleTimer?.cancel();
    });
    session.unref();
    this.#startIdleTimer();
    this.#scheduleHealthCheck();
  }

  /** Whether one more stream fits under the server's SETTINGS_MAX_CONCURRENT_STREAMS. */
  get hasRoom(): boolean {
    const limit = this.#session.remoteSettings.maxConcurrentStreams ?? Number.POSITIVE_INFINITY;
    return !this.closed && this.activeStreams < limit;
  }

  /** True once the session closed or was destroyed. */
  get closed(): boolean {
    return this.#session.closed || this.#session.destroyed;
  }

  /** Opens a stream for the exchange; resolves with its response headers. */
  request(exchange: HttpExchange): Promise<HttpResponse> {
    const { url, method, headers, body, signal } = exchange;
    let outgoing: OutgoingHttpHeaders;
    try {
      outgoing = requestHeaders(method, url, headers);
    } catch (err) {
      return Promise.reject(err); // a bad header: this request's fault, not the session's
    }
    let stream: ClientHttp2Stream;
    try {
      stream = this.#session.request(outgoing, { endStream: body === undefined });
    } catch (err) {
      // The session is closing (GOAWAY) or gone: a lost connection, retried like one.
      this.#leavePool();
      return Promise.reject(err);
    }
    this.#streamOpened();
    if (body !== undefined) stream.end(body);
    return new Promise<HttpResponse>((resolve, reject) => {
      const onAbort = (): void => {
        // Only this stream is reset (CANCEL, as Go cancels a request); the session and its
        // other streams go on.
        stream.close(nodeHttp2().constants.NGHTTP2_CANCEL);
        stream.destroy(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      // Kept after the response too: a failure then reaches the body's reader, and this
      // listener keeps it from being an uncaught error before the reader attaches.
      stream.on('error', reject);
      stream.once('close', () => {
        signal.removeEventListener('abort', onAbort);
        this.#streamClosed();
        reject(
          codedError(
            `the HTTP/2 stream closed before a response (code ${stream.rstCode ?? 'unknown'})`,
            'ERR_HTTP2_STREAM_ERROR',
          ),
        );
      });
      stream.once('response', (responseHeaders, _flags, rawHeaders?: string[]) => {
        resolve(responseOf(stream, responseHeaders, rawHeaders));
      });
    });
  }

  #leavePool(): void {
    if (this.#retired) return;
    this.#retired = true;
    this.#retire();
  }

  #streamOpened(): void {
    if (this.activeStreams++ === 0) {
      this.#idleTimer?.cancel();
      this.#idleTimer = undefined;
      if (!this.closed) this.#session.ref();
    }
  }

  #streamClosed(): void {
    if (--this.activeStreams > 0) return;
    if (this.closed) return;
    this.#session.unref();
    this.#startIdleTimer();
  }

  #startIdleTimer(): void {
    this.#idleTimer = this.#clock.setTimeout(() => {
      if (this.activeStreams > 0 || this.closed) return;
      this.#logger.debug('HTTP/2 session idle, closing', { origin: this.#origin });
      this.#leavePool();
      this.#session.close();
    }, this.#idleTimeoutMs);
    this.#idleTimer.unref?.();
  }

  // Node tells no frame arrivals, so the socket's byte count stands for them: sampled every
  // sixth of the read-idle period, a ping goes out 30 to 35 s (by default) after the last
  // frame, where Go's client pings at 30 s.
  #scheduleHealthCheck(delayMs = this.#readIdleTimeoutMs / healthSamplesPerPeriod): void {
    this.#healthTimer = this.#clock.setTimeout(() => this.#checkHealth(), delayMs);
    this.#healthTimer.unref?.();
  }

  #checkHealth(): void {
    if (this.closed) return;
    const now = this.#clock.now();
    const bytesRead = this.#socket.bytesRead;
    if (bytesRead !== this.#bytesReadAtLastSample) {
      this.#bytesReadAtLastSample = bytesRead;
      this.#lastReadAt = now;
    }
    const silentMs = now - this.#lastReadAt;
    if (silentMs < this.#readIdleTimeoutMs) {
      const sampleMs = this.#readIdleTimeoutMs / healthSamplesPerPeriod;
      this.#scheduleHealthCheck(Math.min(sampleMs, this.#readIdleTimeoutMs - silentMs));
      return;
    }
    const pingTimer = this.#clock.setTimeout(() => this.#pingUnanswered(), this.#pingTimeoutMs);
    pingTimer.unref?.();
    this.#pingTimer = pingTimer;
    this.pingsSent++;
    const sent = this.#session.ping((err) => {
      pingTimer.cancel();
      // A cancelled ping means the session is closing already.
      if (err || this.closed) return;
      this.pingsAnswered++;
      this.#bytesReadAtLastSample = this.#socket.bytesRead;
      this.#lastReadAt = this.#clock.now();
      this.#scheduleHealthCheck();
    });
    if (!sent) pingTimer.cancel();
  }

  #pingUnanswered(): void {
    if (this.closed) return;
    const err = codedError(
      `HTTP/2 session to ${this.#origin} closed: no answer to a PING within ${this.#pingTimeoutMs} ms after ${this.#readIdleTimeoutMs} ms without a frame from the server`,
      'ERR_HTTP2_PING_TIMEOUT',
    );
    this.#logger.debug('HTTP/2 session failed its health check', {
      origin: this.#origin,
      error: err.message,
    });
    this.#leavePool();
    this.#session.destroy(err);
  }
}
