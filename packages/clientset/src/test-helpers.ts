// Shared by the unit tests: a loopback stub API server that records every request.
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
}

export interface StubServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type StubHandler = (
  request: RecordedRequest,
  response: ServerResponse,
  raw: IncomingMessage,
) => void | Promise<void>;

/** Starts an HTTP server on 127.0.0.1 and a free port, recording every request. */
export async function startStubServer(handler: StubHandler): Promise<StubServer> {
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
      };
      requests.push(recorded);
      void Promise.resolve(handler(recorded, response, raw)).catch((err: unknown) => {
        response.destroy(err instanceof Error ? err : new Error(String(err)));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
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

/** A stub that echoes the request back as a JSON object (so tests can look at both sides). */
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

/** Polls until `condition` holds, failing after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
