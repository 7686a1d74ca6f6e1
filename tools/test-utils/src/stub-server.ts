// A loopback stub HTTP server for unit tests that assert on exactly what a client sends
// (method, path, query, headers, body) or need answers no real API server gives (malformed
// bodies, dropped connections, responses that never come). Tests of informer and lister
// behaviour should rather use @kubets/apiserver's in-memory API server.
//
// Shipped as TypeScript source (no build step), only erasable syntax.

import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the stub server received. */
export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Resolves when the client side of this request's connection goes away. */
  closed: Promise<void>;
}

/**
 * Answers one request, once its body has been read. `raw` is the request itself, for what
 * the record does not carry (`raw.socket`).
 */
export type StubHandler = (
  request: RecordedRequest,
  response: ServerResponse,
  raw: IncomingMessage,
) => void | Promise<void>;

export interface StubServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Every request received so far, in order. */
  requests: RecordedRequest[];
  /** Answers the next requests; may be replaced at any time. */
  handler: StubHandler;
  close(): Promise<void>;
}

/** Sends `body` as JSON with the given status. */
export function sendJson(response: ServerResponse, statusCode: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(statusCode, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}

/**
 * Echoes a JSON object body back with `metadata.resourceVersion` set to `'7'`, as a server
 * answers a create or update; anything else gets `{ kind: 'Echo', metadata: { name: 'echo' },
 * items: [] }`.
 */
export const echo: StubHandler = (request, response) => {
  let body: unknown;
  try {
    body = request.body ? JSON.parse(request.body) : undefined;
  } catch {
    body = request.body;
  }
  const answer =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? { ...body, metadata: { ...(body as { metadata?: object }).metadata, resourceVersion: '7' } }
      : { kind: 'Echo', metadata: { name: 'echo' }, items: [] };
  sendJson(response, 200, answer);
};

/**
 * Starts an HTTP server on 127.0.0.1 and a free port that records every request and answers
 * with `handler` ({@link echo} by default). A handler that throws or rejects destroys the
 * response.
 */
export async function startStubServer(handler: StubHandler = echo): Promise<StubServer> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((raw, response) => {
    const chunks: Buffer[] = [];
    raw.on('data', (chunk: Buffer) => chunks.push(chunk));
    raw.on('end', () => {
      const url = new URL(raw.url ?? '/', 'http://stub');
      const recorded: RecordedRequest = {
        method: raw.method ?? '',
        url: raw.url ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: raw.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        closed: new Promise<void>((resolve) => response.once('close', () => resolve())),
      };
      requests.push(recorded);
      const fail = (err: unknown) => {
        response.destroy(err instanceof Error ? err : new Error(String(err)));
      };
      try {
        void Promise.resolve(stub.handler(recorded, response, raw)).catch(fail);
      } catch (err) {
        fail(err);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const stub: StubServer = {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    handler,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return stub;
}

/** Stub servers started by `serve`, closed together by `closeAll`. */
export interface StubServerPool {
  serve(handler?: StubHandler): Promise<StubServer>;
  /** Closes every server started so far: register it with `afterEach`. */
  closeAll(): Promise<void>;
}

/** A pool of stub servers, for a test file whose every test starts its own. */
export function stubServerPool(): StubServerPool {
  const servers: StubServer[] = [];
  return {
    async serve(handler) {
      const server = await startStubServer(handler);
      servers.push(server);
      return server;
    },
    async closeAll() {
      await Promise.all(servers.splice(0).map((server) => server.close()));
    },
  };
}
