// A loopback TCP proxy for chaos tests: it forwards bytes between a client and a server and
// can break the connections it carries in the ways networks do.
import net from 'node:net';

interface Pair {
  readonly client: net.Socket;
  readonly upstream: net.Socket;
  blackholed: boolean;
}

/**
 * Forwards connections on `127.0.0.1:port` to a target (TLS passes through untouched, so a
 * client keeps verifying the real server's certificate for 127.0.0.1).
 *
 * - {@link blackhole}: existing connections stop forwarding bytes in both directions but stay
 *   open, as when a NAT or load balancer silently forgets them: neither end notices, not
 *   even when the server ends its response. New connections work.
 * - {@link reset}: existing connections are closed at once.
 * - {@link refuse}: new connections are closed as soon as they are accepted.
 */
export class ChaosProxy {
  readonly #server: net.Server;
  readonly #target: { host: string; port: number };
  readonly #pairs = new Set<Pair>();
  #refusing = false;
  /** Connections accepted so far (refused ones included). */
  accepted = 0;

  private constructor(target: { host: string; port: number }) {
    this.#target = target;
    this.#server = net.createServer((client) => this.#accept(client));
  }

  /** Starts a proxy to `target` (`https://host:port` or `http://...`) on a free port. */
  static async start(target: string): Promise<ChaosProxy> {
    const url = new URL(target);
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const proxy = new ChaosProxy({ host: url.hostname, port });
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once('error', reject);
      proxy.#server.listen(0, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  /** The port the proxy listens on. */
  get port(): number {
    return (this.#server.address() as net.AddressInfo).port;
  }

  /** `https://127.0.0.1:PORT` of the proxy, for a client's config. */
  url(protocol = 'https:'): string {
    return `${protocol}//127.0.0.1:${this.port}`;
  }

  /** Open connections (blackholed ones included). */
  get connections(): number {
    return this.#pairs.size;
  }

  /** Silently stops every open connection; returns how many. */
  blackhole(): number {
    let n = 0;
    for (const pair of this.#pairs) {
      if (!pair.blackholed) n++;
      pair.blackholed = true;
    }
    return n;
  }

  /** Closes every open connection (the client sees a reset). */
  reset(): void {
    for (const pair of this.#pairs) {
      pair.client.resetAndDestroy();
      pair.upstream.destroy();
    }
    this.#pairs.clear();
  }

  /** While on, new connections are closed as soon as they are accepted. */
  refuse(on: boolean): void {
    this.#refusing = on;
  }

  /** Stops listening and closes every connection. */
  async close(): Promise<void> {
    this.reset();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(client: net.Socket): void {
    this.accepted++;
    if (this.#refusing) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(this.#target.port, this.#target.host);
    const pair: Pair = { client, upstream, blackholed: false };
    this.#pairs.add(pair);
    client.on('data', (chunk) => {
      if (!pair.blackholed) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!pair.blackholed) client.write(chunk);
    });
    // The client going away always ends the pair (it is what notices a dead connection).
    const closeBoth = (): void => {
      this.#pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', closeBoth);
    client.on('close', closeBoth);
    // The server going away reaches the client only while the pair is not blackholed.
    const upstreamGone = (): void => {
      if (!pair.blackholed) closeBoth();
    };
    upstream.on('error', upstreamGone);
    upstream.on('close', upstreamGone);
  }
}
