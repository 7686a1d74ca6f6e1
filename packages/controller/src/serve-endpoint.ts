import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where an endpoint listens: `host` `''` means every interface. */
export interface BindAddress {
  /** Host name or IP address; `''` for every interface. */
  host: string;
  /** TCP port; 0 asks the system for a free one. */
  port: number;
}

/**
 * Parses a bind address as controller-runtime takes them: `'host:port'`, `':port'` (every
 * interface), `'[::1]:port'`; `'0'` (or `''`) disables the endpoint and gives `undefined`.
 * `option` names the setting in the error.
 *
 * @throws {TypeError} when the address is none of these.
 */
export function parseBindAddress(address: string, option: string): BindAddress | undefined {
  if (address === '0' || address === '') return undefined;
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(address);
  const port = Number(match?.[3]);
  if (!match || port > 65535) {
    throw new TypeError(
      `${option} must be 'host:port', ':port' or '0' to disable, got ${JSON.stringify(address)}`,
    );
  }
  return { host: match[1] ?? match[2] ?? '', port };
}

/** A running endpoint. */
export interface Endpoint {
  /** Where it listens (the real port when asked for port 0). */
  readonly address: BindAddress;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/** Serves `handler` on `bind`; resolves once it listens. */
export function serveEndpoint(
  bind: BindAddress,
  handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>,
): Promise<Endpoint> {
  const server = createServer((req, res) => {
    Promise.resolve(handler(req, res)).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`internal error: ${String(err)}\n`);
    });
  });
  return new Promise((resolve, reject) => {
    const failed = (err: Error): void => reject(listenError(err, bind));
    server.once('error', failed);
    server.listen(bind.port, bind.host === '' ? undefined : bind.host, () => {
      server.off('error', failed);
      const info = server.address() as AddressInfo;
      resolve({
        address: { host: info.address, port: info.port },
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/**
 * A failed listen as Node words it, `listen EADDRINUSE: ... host:port`: Bun's error carries the
 * same `code` but says only "Failed to start server. Is port N in use?", so there the code and
 * the address are added (the runtime's error stays the `cause`).
 */
function listenError(err: NodeJS.ErrnoException, bind: BindAddress): NodeJS.ErrnoException {
  const code = err.code;
  if (code === undefined || err.message.includes(code)) return err;
  const wrapped: NodeJS.ErrnoException = new Error(
    `listen ${code}: ${err.message} (${bind.host === '' ? '*' : bind.host}:${bind.port})`,
    { cause: err },
  );
  wrapped.code = code;
  return wrapped;
}
