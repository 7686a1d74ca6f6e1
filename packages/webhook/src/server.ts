import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { connect, type SecureVersion } from 'node:tls';
import { type Clock, type Logger, realClock, silentLogger } from '@kubets/apimachinery';
import { type CertificatePair, CertWatcher } from './certwatcher.js';
import type { WebhookEndpoint } from './endpoint.js';
import {
  activeWebhookMetricsProvider,
  PathMetrics,
  type WebhookMetricsProvider,
} from './metrics.js';
import { SecureListener } from './secure-listener.js';

/** controller-runtime's default webhook port. */
export const DEFAULT_WEBHOOK_PORT = 9443;

/** controller-runtime's bound on an admission request body: 7 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 7 * 1024 * 1024;

/** Options of {@link WebhookServer} (controller-runtime's `webhook.Options`). */
export interface WebhookServerOptions {
  /** The address to listen on (default: every interface). */
  host?: string | undefined;
  /** The port (default {@link DEFAULT_WEBHOOK_PORT}; `0` picks a free one). */
  port?: number | undefined;
  /** The directory of the serving certificate and key (default `<tmp>/k8s-webhook-server/serving-certs`). */
  certDir?: string | undefined;
  /** The certificate's file name in `certDir` (default `tls.crt`). */
  certName?: string | undefined;
  /** The key's file name in `certDir` (default `tls.key`). */
  keyName?: string | undefined;
  /** The lowest TLS version accepted (default and floor `TLSv1.2`). */
  minTlsVersion?: 'TLSv1.2' | 'TLSv1.3' | undefined;
  /** How often the certificate files are read again besides file-system events (default 10 s). */
  certPollIntervalMs?: number | undefined;
  /** Bodies larger than this are refused with 413 (default {@link DEFAULT_MAX_BODY_BYTES}). */
  maxBodyBytes?: number | undefined;
  /** Time allowed to receive the headers (Node's `headersTimeout`; default 10 s). */
  headersTimeoutMs?: number | undefined;
  /** Time allowed to receive the body once the headers are in (default 10 s): a slower client gets 408. */
  bodyTimeoutMs?: number | undefined;
  /** How long a stop waits for requests being served before closing their connections (default 60 s). */
  shutdownTimeoutMs?: number | undefined;
  /** The clock of the body and shutdown deadlines and the certificate poll (tests pass a fake one). */
  clock?: Clock | undefined;
  /** Where the server logs (default: silent). */
  logger?: Logger | undefined;
  /** Where requests are recorded (default: the one `setWebhookMetricsProvider` set). */
  metricsProvider?: WebhookMetricsProvider | undefined;
}

interface Registered {
  readonly endpoint: WebhookEndpoint;
  readonly metrics: PathMetrics | undefined;
}

class RequestRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The HTTPS server of admission and conversion webhooks (controller-runtime's
 * `webhook.Server`): one server for many paths, its certificate reloaded from disk when it
 * changes, TLS 1.2 or newer, bounded bodies with read deadlines, graceful shutdown. It runs
 * on every replica: {@link needLeaderElection} is `false`.
 */
export class WebhookServer {
  /** The manager runs it on every replica, not only the leader. */
  readonly needLeaderElection = false;
  readonly #options: WebhookServerOptions;
  readonly #paths = new Map<string, Registered>();
  readonly #metricsProvider: WebhookMetricsProvider | undefined;
  #listener: SecureListener | undefined;
  #starting = false;
  #serving = false;
  #listening: Promise<AddressInfo> | undefined;
  #resolveListening: ((address: AddressInfo) => void) | undefined;

  constructor(options: WebhookServerOptions = {}) {
    const port = options.port ?? DEFAULT_WEBHOOK_PORT;
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new RangeError(
        `webhook server port must be an integer in [0, 65535], got ${String(options.port)}`,
      );
    }
    if (
      options.minTlsVersion !== undefined &&
      !['TLSv1.2', 'TLSv1.3'].includes(options.minTlsVersion)
    ) {
      throw new RangeError(
        `minTlsVersion must be TLSv1.2 or TLSv1.3, got ${String(options.minTlsVersion)}`,
      );
    }
    this.#options = options;
    this.#metricsProvider = activeWebhookMetricsProvider(options.metricsProvider);
    this.#listening = new Promise((resolve) => {
      this.#resolveListening = resolve;
    });
  }

  /** The certificate file the server reads. */
  get certPath(): string {
    return join(this.#certDir(), this.#options.certName ?? 'tls.crt');
  }

  /** The key file the server reads. */
  get keyPath(): string {
    return join(this.#certDir(), this.#options.keyName ?? 'tls.key');
  }

  #certDir(): string {
    return (
      this.#options.certDir ??
      join(process.env.TMPDIR ?? '/tmp', 'k8s-webhook-server', 'serving-certs')
    );
  }

  /** Whether the server is listening (and not stopping). */
  get serving(): boolean {
    return this.#serving;
  }

  /** Resolves with the address once the server listens (the port, when `port: 0`). */
  listening(): Promise<AddressInfo> {
    return this.#listening as Promise<AddressInfo>;
  }

  /** The registered paths. */
  get paths(): readonly string[] {
    return [...this.#paths.keys()];
  }

  /**
   * Serves `endpoint` on `path`, before or after the server started. Throws on a path that
   * does not start with `/` or is already registered.
   */
  register(path: string, endpoint: WebhookEndpoint): void {
    if (typeof path !== 'string' || !path.startsWith('/')) {
      throw new TypeError(`webhook path must start with '/', got ${JSON.stringify(path)}`);
    }
    if (this.#paths.has(path)) throw new Error(`can't register duplicate path: ${path}`);
    if (typeof endpoint?.handle !== 'function' || typeof endpoint.refuse !== 'function') {
      throw new TypeError(
        `webhook on ${path} must be an endpoint (admissionEndpoint, conversionEndpoint)`,
      );
    }
    const metrics = this.#metricsProvider && new PathMetrics(this.#metricsProvider, path);
    this.#paths.set(path, { endpoint, metrics });
    (this.#options.logger ?? silentLogger).info('Registering webhook', { path });
  }

  /**
   * Serves until `signal` aborts, then stops gracefully: no new connections, requests being
   * served get `shutdownTimeoutMs` to finish. Rejects when the certificate cannot be read or
   * the port cannot be bound, with nothing left open; and, after stopping, when a rotated
   * certificate could not be served (on Bun, where a new listener takes the port over, if
   * something else bound it in between).
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#listener !== undefined || this.#starting) {
      throw new Error('webhook server already started');
    }
    this.#starting = true;
    try {
      await this.#serveUntil(signal);
    } finally {
      this.#starting = false;
    }
  }

  async #serveUntil(signal: AbortSignal): Promise<void> {
    const logger = this.#options.logger ?? silentLogger;
    const clock = this.#options.clock ?? realClock;
    const minVersion: SecureVersion = this.#options.minTlsVersion ?? 'TLSv1.2';
    const watcher = await CertWatcher.create({
      certPath: this.certPath,
      keyPath: this.keyPath,
      intervalMs: this.#options.certPollIntervalMs,
      clock,
      logger,
    });
    const serve = (req: IncomingMessage, res: ServerResponse): void => {
      this.#serve(req, res, clock).catch((error: unknown) => {
        logger.error('webhook request failed', { error: (error as Error).message });
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
    };
    const listener = await SecureListener.listen({
      create: (pair) =>
        createServer(
          {
            cert: pair.cert,
            key: pair.key,
            minVersion,
            headersTimeout: this.#options.headersTimeoutMs ?? 10_000,
            // Node's own whole-request limit is a backstop only; the body deadline is ours.
            requestTimeout: 0,
          },
          serve,
        ),
      pair: watcher.current as CertificatePair,
      port: this.#options.port ?? DEFAULT_WEBHOOK_PORT,
      host: this.#options.host,
      logger,
    });
    // Listening: from here on every path out of start() closes the listener and the watcher.
    this.#listener = listener;
    const stopped = new AbortController();
    const onAbort = (): void => stopped.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) stopped.abort();
    let failure: Error | undefined;
    let served = watcher.current;
    const unsubscribe = watcher.onChange((next) => {
      if (next === served) return;
      served = next;
      listener.use(next, minVersion).catch((error: unknown) => {
        failure = error as Error;
        logger.error('webhook server stopped', { error: failure.message });
        stopped.abort();
      });
    });
    const watching = watcher.start(stopped.signal);
    this.#serving = true;
    const { address } = listener;
    logger.info('Serving webhook server', {
      host: address.address,
      port: address.port,
      certificateReload: listener.reload,
    });
    this.#resolveListening?.(address);
    if (!stopped.signal.aborted) {
      await new Promise<void>((resolve) =>
        stopped.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    }
    this.#serving = false;
    logger.info('Shutting down webhook server');
    signal.removeEventListener('abort', onAbort);
    unsubscribe();
    await watching;
    await listener.close(clock, this.#options.shutdownTimeoutMs ?? 60_000);
    this.#listener = undefined;
    if (failure !== undefined) throw failure;
  }

  /**
   * A readiness check (controller-runtime's `StartedChecker`): resolves when the server
   * completes a TLS handshake on its port, rejects naming why not.
   */
  startedChecker(): () => Promise<void> {
    return async () => {
      if (!this.#serving || this.#listener === undefined)
        throw new Error('webhook server has not been started yet');
      const { port } = this.#listener.address;
      const host =
        this.#options.host === undefined ||
        this.#options.host === '' ||
        this.#options.host === '0.0.0.0' ||
        this.#options.host === '::'
          ? '127.0.0.1'
          : this.#options.host;
      await new Promise<void>((resolve, reject) => {
        const socket = connect(
          { host, port, rejectUnauthorized: false, servername: 'localhost' },
          () => {
            socket.end();
            resolve();
          },
        );
        socket.once('error', (error) =>
          reject(new Error(`webhook server is not reachable: ${error.message}`)),
        );
      });
    };
  }

  async #serve(req: IncomingMessage, res: ServerResponse, clock: Clock): Promise<void> {
    const path = new URL(req.url ?? '/', 'https://webhook').pathname;
    const registered = this.#paths.get(path);
    if (registered === undefined) {
      req.resume();
      res
        .writeHead(404, { 'content-type': 'text/plain' })
        .end(`no webhook is registered on ${path}\n`);
      return;
    }
    const started = clock.now();
    registered.metrics?.inFlight.inc();
    const abort = new AbortController();
    res.once('close', () => {
      abort.abort(new Error('the client went away'));
    });
    let status = 500;
    try {
      let reply: { status: number; body: unknown };
      if (req.method !== 'POST') {
        req.resume();
        reply = registered.endpoint.refuse(
          405,
          `method ${String(req.method)} is not allowed, only POST`,
        );
      } else {
        try {
          const declaresBody =
            req.headers['content-length'] !== undefined ||
            req.headers['transfer-encoding'] !== undefined;
          const body = declaresBody ? await this.#readBody(req, clock) : undefined;
          reply = await registered.endpoint.handle({
            body,
            contentType: req.headers['content-type'],
            signal: abort.signal,
          });
        } catch (error) {
          if (!(error instanceof RequestRefused)) throw error;
          reply = registered.endpoint.refuse(error.status, error.message);
          // The rest of the body is not read: the connection cannot be reused.
          res.shouldKeepAlive = false;
        }
      }
      status = reply.status;
      const text = reply.body === undefined ? '' : `${JSON.stringify(reply.body)}\n`;
      res.writeHead(reply.status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
        ...(res.shouldKeepAlive ? {} : { connection: 'close' }),
      });
      res.end(text);
    } finally {
      registered.metrics?.inFlight.dec();
      registered.metrics?.served(status, (clock.now() - started) / 1000);
    }
  }

  #readBody(req: IncomingMessage, clock: Clock): Promise<Uint8Array> {
    const maxBodyBytes = this.#options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const bodyTimeoutMs = this.#options.bodyTimeoutMs ?? 10_000;
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBodyBytes) {
      return Promise.reject(
        new RequestRefused(413, `request entity is too large; limit is ${maxBodyBytes} bytes`),
      );
    }
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = (error?: Error): void => {
        timer.cancel();
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        if (error === undefined) resolve(Buffer.concat(chunks));
        else {
          req.pause();
          reject(error);
        }
      };
      const timer = clock.setTimeout(
        () =>
          finish(
            new RequestRefused(408, `request body was not received within ${bodyTimeoutMs} ms`),
          ),
        bodyTimeoutMs,
      );
      const onData = (chunk: Buffer): void => {
        size += chunk.length;
        if (size > maxBodyBytes) {
          finish(
            new RequestRefused(413, `request entity is too large; limit is ${maxBodyBytes} bytes`),
          );
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = (): void => finish();
      const onError = (error: Error): void =>
        finish(new RequestRefused(400, `unable to read the body: ${error.message}`));
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', onError);
    });
  }
}
