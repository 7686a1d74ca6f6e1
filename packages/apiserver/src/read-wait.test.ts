import { FakeClock } from '@kubets/apimachinery/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, rawWatch } from '../test/contract-client.js';
import { type InMemoryApiServer, startApiServer } from './server.js';

const path = '/api/v1/namespaces/default/configmaps';
const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

describe('reads at a resourceVersion ahead of the server', () => {
  const clock = new FakeClock();
  let server: InMemoryApiServer;
  beforeAll(async () => {
    server = await startApiServer({ clock, historySize: 2 });
  });
  afterAll(async () => {
    await server?.stop();
  });
  const call = (method: string, url: string, body?: unknown) =>
    rawRequest({ host: server.host }, method, url, body === undefined ? {} : { body });
  /** Resolves once the server has set the timer of a waiting read. */
  const waiting = async (count: number): Promise<void> => {
    while (clock.pending < count) await new Promise((resolve) => setImmediate(resolve));
  };
  const settled = (promise: Promise<unknown>): { done: boolean } => {
    const state = { done: false };
    void promise.then(() => {
      state.done = true;
    });
    return state;
  };

  it('waits for a write to bring the server to the version, then answers', async () => {
    const wanted = Number(server.resourceVersion()) + 2;
    const get = call('GET', `${path}/first?resourceVersion=${wanted}`);
    const list = call('GET', `${path}?resourceVersion=${wanted}`);
    const getState = settled(get);
    await waiting(2);
    await call('POST', path, cm('first'));
    // One write short of the version: both still wait (a request after them was served).
    expect((await call('GET', '/version')).status).toBe(200);
    expect(getState.done).toBe(false);
    await call('POST', path, cm('second'));
    const [got, listed] = await Promise.all([get, list]);
    expect(got.status).toBe(200);
    expect(got.json.metadata.name).toBe('first');
    expect(listed.json.metadata.resourceVersion).toBe(String(wanted));
    expect(clock.pending).toBe(0);
  });

  it('answers 504 once 3 s have passed on the server’s clock', async () => {
    const current = Number(server.resourceVersion());
    const get = call('GET', `${path}/first?resourceVersion=${current + 10}`);
    const state = settled(get);
    await waiting(1);
    clock.step(2_999);
    expect((await call('GET', '/version')).status).toBe(200);
    expect(state.done).toBe(false);
    clock.step(1);
    const res = await get;
    expect(res.status).toBe(504);
    expect(res.json).toMatchObject({
      reason: 'Timeout',
      message: `Timeout: Too large resource version: ${current + 10}, current: ${current}`,
      details: { retryAfterSeconds: 1 },
    });
  });

  it('does not wait for exact or paged lists, nor for watches', async () => {
    const future = Number(server.resourceVersion()) + 10;
    const exact = await call('GET', `${path}?resourceVersion=${future}&resourceVersionMatch=Exact`);
    expect(exact.status).toBe(500);
    const paged = await call(
      'GET',
      `${path}?resourceVersion=${future}&resourceVersionMatch=NotOlderThan&limit=1`,
    );
    expect(paged.status).toBe(504);
    expect(paged.json.details.retryAfterSeconds).toBeUndefined();
    const w = await rawWatch({ host: server.host }, `${path}?watch=true&resourceVersion=${future}`);
    expect(w.status).toBe(200);
    w.close();
    expect(clock.pending).toBe(0);
  });

  it('answers a watch from before its resource’s window as the watch cache does, after a compaction as etcd does', async () => {
    const before = Number(server.resourceVersion());
    const created = [];
    for (const name of ['w1', 'w2', 'w3']) created.push(await call('POST', path, cm(name)));
    const oldestInWindow = Number(created[1]?.json.metadata.resourceVersion);
    const w = await rawWatch({ host: server.host }, `${path}?watch=true&resourceVersion=${before}`);
    const [event] = await w.take(1);
    expect(event?.object).toMatchObject({
      code: 410,
      reason: 'Expired',
      message: `too old resource version: ${before} (${oldestInWindow - 1})`,
    });
    const fromWindow = await rawWatch(
      { host: server.host },
      `${path}?watch=true&resourceVersion=${oldestInWindow - 1}`,
    );
    const replay = await fromWindow.take(2);
    fromWindow.close();
    expect(replay.map((e) => e.object.metadata.name)).toEqual(['w2', 'w3']);
    server.compact();
    const compacted = await rawWatch(
      { host: server.host },
      `${path}?watch=true&resourceVersion=${oldestInWindow}`,
    );
    const [error] = await compacted.take(1);
    expect(error?.object).toMatchObject({
      code: 410,
      reason: 'Expired',
      message: 'The resourceVersion for the provided watch is too old.',
    });
  });

  describe('streaming lists (sendInitialEvents=true, resourceVersionMatch=NotOlderThan)', () => {
    const streaming = `${path}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`;

    it('waits for a future resourceVersion, then sends the state and the end bookmark', async () => {
      const wanted = Number(server.resourceVersion()) + 1;
      const w = rawWatch({ host: server.host }, `${streaming}&resourceVersion=${wanted}`);
      await waiting(1);
      await call('POST', path, cm('streamed'));
      const watch = await w;
      const events = [];
      for (;;) {
        const event = await watch.next();
        if (event === 'closed' || event === 'timeout') throw new Error(`watch ${event}`);
        events.push(event);
        if (event.type === 'BOOKMARK') break;
      }
      watch.close();
      expect(events.slice(0, -1).every((e) => e.type === 'ADDED')).toBe(true);
      expect(events.map((e) => e.object.metadata.name)).toContain('streamed');
      const bookmark = events.at(-1);
      expect(bookmark?.object.metadata.annotations).toEqual({
        'k8s.io/initial-events-end': 'true',
      });
      expect(Number(bookmark?.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(wanted);
    });

    it('ends with the watch cache’s 504 when the version is still ahead after 3 s', async () => {
      const current = Number(server.resourceVersion());
      const w = rawWatch({ host: server.host }, `${streaming}&resourceVersion=${current + 5}`);
      await waiting(1);
      clock.step(3_000);
      const watch = await w;
      expect(watch.status).toBe(200);
      const [event] = await watch.take(1);
      expect(event).toMatchObject({
        type: 'ERROR',
        object: {
          code: 504,
          reason: 'Timeout',
          message: `Timeout: Too large resource version: ${current + 5}, current: ${current}`,
        },
      });
      await watch.ended;
    });

    it('starts a watch with sendInitialEvents=false from the resourceVersion given', async () => {
      const from = Number(server.resourceVersion());
      await call('POST', path, cm('after-from'));
      const watch = await rawWatch(
        { host: server.host },
        `${path}?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&resourceVersion=${from}`,
      );
      const [event] = await watch.take(1);
      watch.close();
      expect(event).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'after-from' } } });
    });
  });
});
