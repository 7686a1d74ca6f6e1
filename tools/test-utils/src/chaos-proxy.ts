// A loopback TCP proxy for chaos and e2e tests: it forwards bytes between a client and a
// server and breaks the connections it carries in the ways networks do, at moments the test
// chooses (a mode switched on, a byte count reached) rather than at moments it hopes for.
import net from 'node:net';

interface Pair {
  readonly client: net.Socket;
  /** Absent for a held connection: nothing was ever forwarded. */
  readonly upstream: net.Socket | undefined;
  blackholed: boolean;
  /** Bytes forwarded from the server to the client so far. */
  down: number;
  readonly cut: CutRule | undefined;
}

/** What {@link ChaosProxy.cutAt} does to a connection once the byte is reached. */
export type CutAction = 'reset' | 'hold';

interface CutRule {
  readonly byte: number;
  readonly action: CutAction;
}

/**
 * Forwards connections on `127.0.0.1:port` to a target (TLS passes through untouched, so a
 * client keeps verifying the real server's certificate for 127.0.0.1).
 *
 * - {@link blackhole}: existing connections stop forwarding bytes in both directions but stay
 *   open, as when a NAT or load balancer silently forgets them: neither end notices, not
 *   even when the server ends its response. New connections work.
 * - {@link hold}: new connections are accepted and held open, never forwarded (a blackholed
 *   route: the TCP handshake succeeds, nothing ever answers). With {@link blackhole}, every
 *   request hangs, on old connections and new.
 * - {@link reset}: existing connections are closed at once.
 * - {@link refuse}: new connections are closed as soon as they are accepted.
 * - {@link cutAt}: new connections forward the server's first N bytes, then are reset or held.
 */
export class ChaosProxy {
  readonly #server: net.Server;
  readonly #target: { host: string; port: number };
  readonly #pairs = new Set<Pair>();
  #refusing = false;
  #holding = false;
  #cut: CutRule | undefined;
  /** Connections accepted so far (refused and held ones included). */
  accepted = 0;
  /** Connections refused so far (see {@link refuse}). */
  refused = 0;
  /** Connections held so far (see {@link hold}). */
  held = 0;
  /** Connections cut so far (see {@link cutAt}). */
  cuts = 0;

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

  /** Open connections (blackholed and held ones included). */
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

  /** While on, new connections are accepted and held open, and nothing is ever forwarded. */
  hold(on: boolean): void {
    this.#holding = on;
  }

  /** Closes every open connection (the client sees a reset). */
  reset(): void {
    for (const pair of this.#pairs) {
      pair.client.resetAndDestroy();
      pair.upstream?.destroy();
    }
    this.#pairs.clear();
  }

  /** While on, new connections are closed as soon as they are accepted. */
  refuse(on: boolean): void {
    this.#refusing = on;
  }

  /**
   * Connections accepted from now on forward exactly `byte` bytes from the server, then are
   * reset (`'reset'`) or stop forwarding while staying open (`'hold'`). `undefined` turns it
   * off for new connections.
   */
  cutAt(byte: number | undefined, action: CutAction = 'reset'): void {
    this.#cut = byte === undefined ? undefined : { byte, action };
  }

  /** Stops listening and closes every connection. */
  async close(): Promise<void> {
    this.reset();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(client: net.Socket): void {
    this.accepted++;
    if (this.#refusing) {
      this.refused++;
      client.resetAndDestroy();
      return;
    }
    if (this.#holding) {
      this.held++;
      const pair: Pair = { client, upstream: undefined, blackholed: true, down: 0, cut: undefined };
      this.#pairs.add(pair);
      const forget = (): void => {
        this.#pairs.delete(pair);
        client.destroy();
      };
      client.on('error', forget);
      client.on('close', forget);
      return;
    }
    const upstream = net.connect(this.#target.port, this.#target.host);
    const pair: Pair = { client, upstream, blackholed: false, down: 0, cut: this.#cut };
    this.#pairs.add(pair);
    client.on('data', (chunk) => {
      if (!pair.blackholed) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => this.#down(pair, chunk));
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

  #down(pair: Pair, chunk: Buffer): void {
    if (pair.blackholed) return;
    const cut = pair.cut;
    if (cut === undefined || pair.down + chunk.length < cut.byte) {
      pair.down += chunk.length;
      pair.client.write(chunk);
      return;
    }
    const head = chunk.subarray(0, cut.byte - pair.down);
    pair.down += head.length;
    this.cuts++;
    pair.blackholed = true;
    if (cut.action === 'hold') {
      pair.client.write(head);
      return;
    }
    // The bytes before the cut reach the client before the reset does.
    pair.client.write(head, () => {
      pair.client.resetAndDestroy();
      pair.upstream?.destroy();
    });
  }
}
