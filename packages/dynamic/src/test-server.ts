// Shared by the unit tests: a loopback stub server that records requests.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Reply = (recorded: Recorded, response: http.ServerResponse) => void;

export interface StubServer {
  url: string;
  requests: Recorded[];
  /** What the next requests get; JSON `{}` by default. */
  reply: Reply;
  close(): Promise<void>;
}

export function json(response: http.ServerResponse, code: number, body: unknown): void {
  response.writeHead(code, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** Echoes the request body back (as a server does for create/update), or `{}`. */
export const echo: Reply = (recorded, response) => {
  json(
    response,
    200,
    recorded.body ? JSON.parse(recorded.body) : { kind: 'Status', status: 'Success' },
  );
};

export async function startStubServer(): Promise<StubServer> {
  const state: StubServer = { url: '', requests: [], reply: echo, close: async () => undefined };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://x');
      const recorded: Recorded = {
        method: request.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      state.requests.push(recorded);
      state.reply(recorded, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
