import { readFile, stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, rawWatch } from '../test/contract-client.js';
import { type InMemoryApiServer, startApiServer } from './server.js';

const cm = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
});

describe('startApiServer', () => {
  let server: InMemoryApiServer;
  beforeAll(async () => {
    server = await startApiServer({ bookmarkIntervalMs: 100, historySize: 50 });
  });
  afterAll(async () => {
    await server?.stop();
  });
  const call = (method: string, path: string, body?: unknown) =>
    rawRequest({ host: server.host }, method, path, body === undefined ? {} : { body });

  it('listens on loopback and writes a kubeconfig that points at it', async () => {
    expect(server.host).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.kubeconfig).toContain(`server: "${server.host}"`);
    expect(await readFile(server.kubeconfigPath, 'utf8')).toBe(server.kubeconfig);
    expect((await call('GET', '/healthz')).text).toBe('ok');
  });

  it('sends periodic bookmarks and the initial-events-end bookmark of a streaming list', async () => {
    await call('POST', '/api/v1/namespaces/default/configmaps', cm('bm'));
    const w = await rawWatch(
      { host: server.host },
      '/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
    );
    // Waits for the events, not a time: 3 arrive within 100 ms on an idle machine.
    const events = await w.take(3, 30_000);
    w.close();
    expect(events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'bm' } } });
    expect(events[1]).toMatchObject({
      type: 'BOOKMARK',
      object: {
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } },
      },
    });
    expect(events[2]?.type).toBe('BOOKMARK');
    expect(events[2]?.object.metadata.annotations).toBeUndefined();
  });

  it('requires allowWatchBookmarks and NotOlderThan for sendInitialEvents', async () => {
    const res = await call(
      'GET',
      '/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan',
    );
    expect(res.status).toBe(422);
    const exact = await call(
      'GET',
      '/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=Exact&allowWatchBookmarks=true',
    );
    expect(exact.status).toBe(422);
  });

  it('serves /watch/ paths and watches of a single object', async () => {
    await call('POST', '/api/v1/namespaces/default/configmaps', cm('single'));
    const w = await rawWatch(
      { host: server.host },
      '/api/v1/watch/namespaces/default/configmaps/single',
    );
    const [first] = await w.take(1);
    w.close();
    expect(first).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'single' } } });
  });

  it('serves PartialObjectMetadata watches', async () => {
    const w = await rawWatch(
      { host: server.host },
      '/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=metadata.name%3Dsingle',
    );
    const [first] = await w.take(1);
    w.close();
    expect(first?.object.kind).toBe('ConfigMap');
    const res = await rawRequest(
      { host: server.host },
      'GET',
      '/api/v1/namespaces/default/configmaps/single',
      {
        headers: { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' },
      },
    );
    expect(res.json).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
  });

  /** Creates namespace `name` holding ConfigMap `inside` on `host`, then deletes it. */
  const deleteFilledNamespace = async (host: string, name: string) => {
    const send = (method: string, path: string, body?: unknown) =>
      rawRequest({ host }, method, path, body === undefined ? {} : { body });
    await send('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    });
    await send('POST', `/api/v1/namespaces/${name}/configmaps`, cm('inside'));
    const res = await send('DELETE', `/api/v1/namespaces/${name}`);
    expect(res.json).toMatchObject({ kind: 'Namespace', status: { phase: 'Terminating' } });
    return send;
  };

  it('keeps a deleted namespace Terminating without the namespace controller', async () => {
    const send = await deleteFilledNamespace(server.host, 'stays');
    expect((await send('GET', '/api/v1/namespaces/stays/configmaps/inside')).status).toBe(200);
    expect((await send('GET', '/api/v1/namespaces/stays')).json.status.phase).toBe('Terminating');
  });

  it('deletes a namespace with everything in it when the namespace controller runs', async () => {
    await using other = await startApiServer({ namespaceController: true });
    const send = await deleteFilledNamespace(other.host, 'gone');
    expect((await send('GET', '/api/v1/namespaces/gone/configmaps/inside')).status).toBe(404);
    expect((await send('GET', '/api/v1/namespaces/gone')).status).toBe(404);
  });

  it('stop() removes the kubeconfig dir and is idempotent', async () => {
    const other = await startApiServer();
    await other.stop();
    await other.stop();
    await expect(stat(other.kubeconfigPath)).rejects.toThrow();
  });

  it('serves HTTPS with tls: true and a kubeconfig carrying the CA', async () => {
    const secure = await startApiServer({ tls: true });
    try {
      expect(secure.host).toMatch(/^https:/);
      expect(secure.kubeconfig).toContain('certificate-authority-data');
      const tls = secure.tls!;
      const res = await rawRequest(
        { host: secure.host, tls: { ca: tls.caData, cert: tls.certData, key: tls.keyData } },
        'GET',
        '/api/v1/namespaces/default',
      );
      expect(res.status).toBe(200);
    } finally {
      await secure.stop();
    }
  });
});

// Speed is measured by `pnpm bench`, not here: this checks that listing, paging and watch
// fan-out stay correct with more objects than a page holds, on a busy machine too.
describe('many objects', () => {
  it('lists, pages and fans out watch events for 2 000 objects', async () => {
    await using server = await startApiServer();
    const watchers = await Promise.all(
      Array.from({ length: 5 }, () =>
        rawWatch(
          { host: server.host },
          `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${server.resourceVersion()}`,
        ),
      ),
    );
    const batch = 100;
    for (let i = 0; i < 2_000; i += batch) {
      await Promise.all(
        Array.from({ length: batch }, (_, j) =>
          rawRequest({ host: server.host }, 'POST', '/api/v1/namespaces/default/configmaps', {
            body: {
              ...cm(`cm-${String(i + j).padStart(5, '0')}`, { n: String(i + j) }),
              data: { payload: 'x'.repeat(1500) },
            },
          }),
        ),
      );
    }
    const list = await rawRequest(
      { host: server.host },
      'GET',
      '/api/v1/namespaces/default/configmaps',
    );
    expect(list.json.items).toHaveLength(2_000);
    const counts = await Promise.all(
      watchers.map(async (w) => (await w.take(2_000, 60_000)).length),
    );
    for (const w of watchers) w.close();
    expect(counts).toEqual([2_000, 2_000, 2_000, 2_000, 2_000]);
    let pages = 0;
    let token: string | undefined;
    do {
      const page = await rawRequest(
        { host: server.host },
        'GET',
        `/api/v1/namespaces/default/configmaps?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`,
      );
      token = page.json.metadata.continue;
      pages++;
    } while (token);
    expect(pages).toBe(4);
  }, 120_000);
});
