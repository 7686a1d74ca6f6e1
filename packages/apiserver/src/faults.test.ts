import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, rawWatch } from '../test/contract-client.js';
import { type InMemoryApiServer, startApiServer } from './server.js';

describe('fault injection', () => {
  let server: InMemoryApiServer;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterEach(() => server.faults.reset());
  afterAll(async () => {
    await server?.stop();
  });
  const list = () =>
    rawRequest({ host: server.host }, 'GET', '/api/v1/namespaces/default/configmaps');
  const create = (name: string) =>
    rawRequest({ host: server.host }, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } },
    });
  const watchPath = () =>
    `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${server.resourceVersion()}`;

  it('answers 429 with Retry-After for the given number of requests, then recovers', async () => {
    server.faults.respondWith(429, { retryAfterSeconds: 2, times: 2 });
    for (let i = 0; i < 2; i++) {
      const res = await list();
      expect(res.status).toBe(429);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.json).toMatchObject({
        kind: 'Status',
        reason: 'TooManyRequests',
        code: 429,
        details: { retryAfterSeconds: 2 },
      });
    }
    expect((await list()).status).toBe(200);
  });

  it('matches requests by path substring, RegExp or predicate, and leaves /version alone', async () => {
    server.faults.respondWith(500, { match: '/secrets', times: Number.POSITIVE_INFINITY });
    expect((await list()).status).toBe(200);
    const secrets = await rawRequest(
      { host: server.host },
      'GET',
      '/api/v1/namespaces/default/secrets',
    );
    expect(secrets.status).toBe(500);
    expect(secrets.json.reason).toBe('InternalError');
    expect(
      (await rawRequest({ host: server.host }, 'GET', '/api/v1/namespaces/default/secrets')).status,
    ).toBe(500);
    server.faults.reset();
    server.faults.respondWith(503, { match: (r) => r.watch });
    expect((await list()).status).toBe(200);
    expect((await rawRequest({ host: server.host }, 'GET', watchPath())).status).toBe(503);
    server.faults.respondWith(500, { match: /configmaps$/ });
    expect((await rawRequest({ host: server.host }, 'GET', '/version')).status).toBe(200);
    expect((await list()).status).toBe(500);
  });

  it('closes watch streams cleanly', async () => {
    const w = await rawWatch({ host: server.host }, watchPath());
    server.faults.closeWatches();
    await w.ended;
    expect(await w.next(100)).toBe('closed');
  });

  it('compacts: the next watch from an earlier resourceVersion gets a 410 ERROR event', async () => {
    await create('before-compact');
    const rv = Number(server.resourceVersion()) - 1;
    server.faults.compact();
    const w = await rawWatch(
      { host: server.host },
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`,
    );
    const [event] = await w.take(1);
    await w.ended;
    expect(event).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
    // Watching from the current version works.
    const ok = await rawWatch({ host: server.host }, watchPath());
    await create('after-compact');
    const [added] = await ok.take(1);
    ok.close();
    expect(added?.object.metadata.name).toBe('after-compact');
  });

  it('sends a malformed watch line, then carries on', async () => {
    const w = await rawWatch({ host: server.host }, watchPath());
    server.faults.nextWatchLine('malformed');
    await create('m1');
    await create('m2');
    const [event] = await w.take(1);
    w.close();
    expect(w.garbage).toHaveLength(1);
    expect(event?.object.metadata.name).toBe('m2');
  });

  it('truncates a watch line and cuts the connection', async () => {
    const w = await rawWatch({ host: server.host }, watchPath());
    server.faults.nextWatchLine('truncated');
    await create('t1');
    await w.ended;
    expect(await w.take(1, 100)).toEqual([]);
  });

  it('adds latency to every request', async () => {
    server.faults.latency(150);
    const started = Date.now();
    await list();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('stalls requests and watch events until resume()', async () => {
    const w = await rawWatch({ host: server.host }, watchPath());
    server.faults.stallConnections();
    const pending = list();
    let answered = false;
    void pending.then(() => {
      answered = true;
    });
    const creating = create('stalled');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(answered).toBe(false);
    expect(await w.next(100)).toBe('timeout');
    server.faults.resume();
    expect((await pending).status).toBe(200);
    expect((await creating).status).toBe(201);
    const [event] = await w.take(1);
    w.close();
    expect(event?.object.metadata.name).toBe('stalled');
  });
});
