import type { Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { SecureVersion } from 'node:tls';
import type { Clock, ClockTimer, Logger } from '@kubets/apimachinery';
import type { CertificatePair } from './certwatcher.js';

// How often a closing listener closes the connections that became idle since (Go's
// http.Server.Shutdown polls at most every 500 ms).
const IDLE_CONNECTION_POLL_MS = 500;
// How long a closing listener lets a connection that has sent no request yet keep its
// chance to send one before closing it (Go's Shutdown: a new connection older than 5 s).
const UNUSED_CONNECTION_GRACE_MS = 5_000;

/** How a {@link SecureListener} takes a new certificate. */
export type CertificateReload = 'in-place' | 'new-listener';

/**
 * How `server` can take a new certificate: `in-place` where node:https has
 * `setSecureContext()` (Node, Deno); `new-listener` where it has none (Bun 1.4, whose
 * `SNICallback` is never called either).
 */
export function certificateReloadOf(server: Server): CertificateReload {
  return typeof (server as Partial<Server>).setSecureContext === 'function'
    ? 'in-place'
    : 'new-listener';
}

/**
 * The HTTPS listener of a webhook server, whose certificate changes while it serves. Where
 * node:https can swap the certificate of a listening server, it does; where it cannot (Bun),
 * the listener is replaced: the old server stops accepting (its requests in flight finish
 * on their connections, with the old certificate) and a new server with the new
 * certificate listens on the same address. Bun's node:https binds no port a listening
 * server holds, `reusePort` or not, so the old one closes first: a connection attempted in
 * the few milliseconds between is refused, as while a replica restarts.
 */
export class SecureListener {
  readonly #create: (pair: CertificatePair) => Server;
  readonly #reload: CertificateReload;
  readonly #logger: Logger;
  readonly #retiring = new Set<Server>();
  // Connections handed to HTTP that have sent no request yet. Node counts them as active, not
  // idle (closeIdleConnections leaves them), and stops their headers timeout once closing.
  readonly #unused = new Set<Socket>();
  // Every accepted TCP connection, its TLS handshake done or not: closeAllConnections knows
  // only those handed to HTTP, so a client that never finishes its handshake would hold the
  // close past its timeout (until Node's 120 s handshake timeout; on Deno, for ever).
  readonly #accepted = new Set<Socket>();
  #server: Server;
  #address: AddressInfo;
  #switching: Promise<void> = Promise.resolve();
  #closed = false;
  #closing: Promise<void> | undefined;

  /** Use {@link SecureListener.listen}: `server` is already listening. */
  constructor(
    create: (pair: CertificatePair) => Server,
    server: Server,
    reload: CertificateReload,
    logger: Logger,
  ) {
    this.#create = create;
    this.#server = server;
    this.#address = server.address() as AddressInfo;
    this.#reload = reload;
    this.#logger = logger;
    this.#trackUnused(server);
  }

  #trackUnused(server: Server): void {
    server.on('connection', (socket: Socket) => {
      this.#accepted.add(socket);
      socket.once('close', () => this.#accepted.delete(socket));
    });
    server.on('secureConnection', (socket: Socket) => {
      this.#unused.add(socket);
      socket.once('close', () => this.#unused.delete(socket));
    });
    server.on('request', (req: { socket: Socket }) => this.#unused.delete(req.socket));
  }

  /**
   * A server made by `create` with `pair`, listening on `port` and `host`. Rejects (with
   * nothing left open) when the address cannot be bound. `reload` overrides how new
   * certificates are taken (default: what the runtime's node:https can do).
   */
  static async listen(options: {
    create: (pair: CertificatePair) => Server;
    pair: CertificatePair;
    port: number;
    host: string | undefined;
    logger: Logger;
    reload?: CertificateReload | undefined;
  }): Promise<SecureListener> {
    const server = options.create(options.pair);
    await listenOn(server, options.port, options.host);
    return new SecureListener(
      options.create,
      server,
      options.reload ?? certificateReloadOf(server),
      options.logger,
    );
  }

  /** How this listener takes a new certificate. */
  get reload(): CertificateReload {
    return this.#reload;
  }

  /** The address served (the same across certificate changes). */
  get address(): AddressInfo {
    return this.#address;
  }

  /**
   * Serves `pair` to new connections from now on. Resolves once it does; rejects when a new
   * listener cannot take the address over (nothing then listens: the caller stops).
   * Changes are applied one after the other, in the order asked.
   */
  use(pair: CertificatePair, minVersion: SecureVersion): Promise<void> {
    const next = this.#switching.then(() => this.#use(pair, minVersion));
    // A failed change does not stop the later ones from being tried.
    this.#switching = next.catch(() => undefined);
    return next;
  }

  async #use(pair: CertificatePair, minVersion: SecureVersion): Promise<void> {
    if (this.#closed) return;
    if (this.#reload === 'in-place') {
      this.#server.setSecureContext({ ...pair, minVersion });
      return;
    }
    const old = this.#server;
    const next = this.#create(pair);
    this.#trackUnused(next);
    this.#retire(old);
    try {
      await listenOn(next, this.#address.port, this.#address.address);
    } catch (error) {
      throw new Error(
        `the webhook server could not take its new certificate: ${(error as Error).message}`,
        { cause: error },
      );
    }
    this.#server = next;
    this.#logger.info('Serving the new certificate on a new listener', {
      port: this.#address.port,
    });
  }

  // Stops accepting on `server`; its open connections end after their requests.
  #retire(server: Server): void {
    this.#retiring.add(server);
    server.close(() => this.#retiring.delete(server));
    server.closeIdleConnections();
  }

  /**
   * Stops accepting connections and closes idle ones; requests being served get
   * `timeoutMs` to finish before their connections are closed. Resolves once every
   * listener (old ones still finishing requests included) has closed. Closing again
   * returns the same promise.
   */
  close(clock: Clock, timeoutMs: number): Promise<void> {
    this.#closing ??= this.#close(clock, timeoutMs);
    return this.#closing;
  }

  async #close(clock: Clock, timeoutMs: number): Promise<void> {
    this.#closed = true;
    await this.#switching;
    const servers = [...new Set([...this.#retiring, this.#server])];
    const closed = Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            // A retired listener is closing already: it closes once its connections end.
            if (this.#retiring.has(server)) server.once('close', () => resolve());
            else if (!server.listening) resolve();
            else server.close(() => resolve());
          }),
      ),
    );
    // Connections go idle after this first pass too (a request that ends later), and one whose
    // TLS handshake was still running, or that a client opened ahead of need (Go's transport,
    // so kube-apiserver, does), sends no request at all: either would hold the close to the
    // timeout. So, as Go's http.Server.Shutdown does, idle connections are closed again until
    // every server has closed, and unused ones once they had their grace.
    // (No connection is accepted after the close, so the grace runs from it.)
    const unusedUntil = clock.now() + UNUSED_CONNECTION_GRACE_MS;
    let idlePoll: ClockTimer | undefined;
    const closeIdle = (): void => {
      for (const server of servers) server.closeIdleConnections();
      if (clock.now() >= unusedUntil) for (const socket of this.#unused) socket.destroy();
      idlePoll = clock.setTimeout(closeIdle, IDLE_CONNECTION_POLL_MS);
    };
    closeIdle();
    const timer = clock.setTimeout(() => {
      for (const server of servers) server.closeAllConnections();
      for (const socket of this.#accepted) socket.destroy();
    }, timeoutMs);
    await closed;
    timer.cancel();
    idlePoll?.cancel();
  }
}

function listenOn(server: Server, port: number, host: string | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      server.close();
      // Bun's message names neither the code nor the address ("Failed to start server").
      const named: NodeJS.ErrnoException = new Error(
        `cannot listen on ${host || '*'}:${port}: ${error.code && !error.message.includes(error.code) ? `${error.code}: ` : ''}${error.message}`,
        { cause: error },
      );
      if (error.code !== undefined) named.code = error.code;
      reject(named);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
