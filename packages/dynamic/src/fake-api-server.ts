// A loopback fake API server for the unit tests: serves lists of collections set by the
// test, keeps watches open and streams the events the test emits.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
}

export interface FakeApiServer {
  url: string;
  requests: Recorded[];
  /** Serves `items` for GETs of collection `path` (e.g. `/apis/apps/v1/namespaces/default/deployments`). */
  setList(path: string, kind: string, apiVersion: string, items: unknown[]): void;
  /** Sends a watch event to every open watch on `path`. */
  emit(path: string, type: 'ADDED' | 'MODIFIED' | 'DELETED', object: unknown): void;
  /** Resolves once a watch on `path` is open. */
  watching(path: string): Promise<void>;
  close(): Promise<void>;
}

interface Collection {
  kind: string;
  apiVersion: string;
  items: unknown[];
}

export async function startFakeApiServer(): Promise<FakeApiServer> {
  const collections = new Map<string, Collection>();
  const watches = new Map<string, Set<http.ServerResponse>>();
  const waiters = new Map<string, (() => void)[]>();
  const requests: Recorded[] = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    requests.push({ method: request.method ?? '', path: url.pathname, query: url.searchParams });
    const collection = collections.get(url.pathname);
    if (request.method !== 'GET' || collection === undefined) {
      response.writeHead(404, { 'Content-Type': 'application/json' });
      response.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 404,
          reason: 'NotFound',
        }),
      );
      return;
    }
    if (url.searchParams.get('watch') === 'true') {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.flushHeaders();
      let open = watches.get(url.pathname);
      if (open === undefined) {
        open = new Set();
        watches.set(url.pathname, open);
      }
      open.add(response);
      response.on('close', () => open.delete(response));
      for (const wake of waiters.get(url.pathname) ?? []) wake();
      waiters.delete(url.pathname);
      return;
    }
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(
      JSON.stringify({
        kind: `${collection.kind}List`,
        apiVersion: collection.apiVersion,
        metadata: { resourceVersion: '100' },
        items: collection.items,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    setList(path, kind, apiVersion, items) {
      collections.set(path, { kind, apiVersion, items });
    },
    emit(path, type, object) {
      for (const response of watches.get(path) ?? []) {
        response.write(`${JSON.stringify({ type, object })}\n`);
      }
    },
    watching(path) {
      if ((watches.get(path)?.size ?? 0) > 0) return Promise.resolve();
      return new Promise((resolve) => {
        const list = waiters.get(path) ?? [];
        list.push(resolve);
        waiters.set(path, list);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
