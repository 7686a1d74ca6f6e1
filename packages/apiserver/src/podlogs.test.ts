import { type IncomingMessage, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../test/contract-client.js';
import { expectFailure } from '../test/contract-helpers.js';
import { logTimestamp } from './podlogs.js';
import { type InMemoryApiServer, startApiServer } from './server.js';

const pod = (name: string, containers: string[], initContainers: string[] = []) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    containers: containers.map((c) => ({ name: c, image: 'busybox' })),
    ...(initContainers.length > 0
      ? { initContainers: initContainers.map((c) => ({ name: c, image: 'busybox' })) }
      : {}),
  },
});

/** An open streaming GET: the chunks so far, a way to wait for text, and its end. */
interface OpenStream {
  readonly response: IncomingMessage;
  text(): string;
  /** Resolves once the body received so far contains `needle`. */
  waitFor(needle: string): Promise<void>;
  /** Resolves when the server ends the response. */
  readonly ended: Promise<void>;
  close(): void;
}

function openStream(host: string, path: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, host), { agent: false }, (response) => {
      let body = '';
      const waiters: { needle: string; resolve: () => void }[] = [];
      const ended = new Promise<void>((resolveEnd) => {
        response.on('end', resolveEnd);
        response.on('close', resolveEnd);
      });
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
        for (const waiter of [...waiters]) {
          if (body.includes(waiter.needle)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        }
      });
      resolve({
        response,
        text: () => body,
        waitFor: (needle) =>
          body.includes(needle)
            ? Promise.resolve()
            : new Promise((resolveWait) => waiters.push({ needle, resolve: resolveWait })),
        ended,
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('pods/log', () => {
  let server: InMemoryApiServer;
  const base = '/api/v1/namespaces/default/pods';
  beforeAll(async () => {
    server = await startApiServer();
    await rawRequest({ host: server.host }, 'POST', base, { body: pod('one', ['main']) });
    await rawRequest({ host: server.host }, 'POST', base, {
      body: pod('two', ['app', 'sidecar'], ['setup']),
    });
  });
  afterAll(async () => {
    await server?.stop();
  });
  const get = (path: string) => rawRequest({ host: server.host }, 'GET', path);

  it('lists pods/log in discovery with the get verb', async () => {
    const v1 = await get('/api/v1');
    const names: string[] = v1.json.resources.map((r: { name: string }) => r.name);
    expect(names.indexOf('pods/log')).toBeGreaterThan(names.indexOf('pods'));
    expect(names.indexOf('pods/log')).toBeLessThan(names.indexOf('pods/status'));
    expect(v1.json.resources[names.indexOf('pods/log')]).toEqual({
      name: 'pods/log',
      singularName: '',
      namespaced: true,
      kind: 'Pod',
      verbs: ['get'],
    });
  });

  it('serves what was written as text/plain, the only container by default', async () => {
    server.podLogs.set('default', 'one', 'first\nsecond\n');
    server.podLogs.append('default', 'one', 'third\n', { container: 'main' });
    const res = await get(`${base}/one/log`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain');
    expect(res.text).toBe('first\nsecond\nthird\n');
    expect((await get(`${base}/one/log?container=main`)).text).toBe('first\nsecond\nthird\n');
    expect(server.podLogs.get('default', 'one')).toBe('first\nsecond\nthird\n');
  });

  it('reads a container without a log as empty', async () => {
    const res = await get(`${base}/two/log?container=sidecar`);
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
  });

  it('picks the named container and refuses a missing or unknown one like kube-apiserver', async () => {
    server.podLogs.set('default', 'two', 'app line\n', { container: 'app' });
    server.podLogs.set('default', 'two', 'setup line\n', { container: 'setup' });
    expect((await get(`${base}/two/log?container=app`)).text).toBe('app line\n');
    expect((await get(`${base}/two/log?container=setup`)).text).toBe('setup line\n');

    const none = await get(`${base}/two/log`);
    expectFailure(none, 400, {
      reason: 'BadRequest',
      message:
        'a container name must be specified for pod two, choose one of: [app sidecar] or one of the init containers: [setup]',
    });
    const unknown = await get(`${base}/two/log?container=nope`);
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({
      reason: 'BadRequest',
      message: 'container nope is not valid for pod two',
    });
    expect(() => server.podLogs.append('default', 'two', 'x')).toThrow(/name the container/);
  });

  it('answers 404 NotFound for a missing pod', async () => {
    const res = await get(`${base}/ghost/log`);
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({
      reason: 'NotFound',
      message: 'pods "ghost" not found',
      details: { name: 'ghost', kind: 'pods' },
    });
    expect(() => server.podLogs.append('default', 'ghost', 'x')).toThrow(/does not exist/);
  });

  it('honours tailLines, limitBytes and timestamps', async () => {
    const t1 = new Date('2024-05-01T10:00:00.123Z');
    const t2 = new Date('2024-05-01T10:00:01Z');
    server.podLogs.set('default', 'one', 'a\nb\n', { time: t1 });
    server.podLogs.append('default', 'one', 'c\npartial', { time: t2 });
    expect((await get(`${base}/one/log?tailLines=2`)).text).toBe('c\npartial');
    expect((await get(`${base}/one/log?tailLines=0`)).text).toBe('');
    expect((await get(`${base}/one/log?limitBytes=3`)).text).toBe('a\nb');
    expect((await get(`${base}/one/log?timestamps=true&tailLines=3`)).text).toBe(
      '2024-05-01T10:00:00.123000000Z b\n2024-05-01T10:00:01.000000000Z c\n2024-05-01T10:00:01.000000000Z partial',
    );
    expect(logTimestamp(t1)).toBe('2024-05-01T10:00:00.123000000Z');
  });

  it('honours sinceSeconds and sinceTime', async () => {
    server.podLogs.set('default', 'one', 'old\n', { time: new Date(Date.now() - 3_600_000) });
    server.podLogs.append('default', 'one', 'new\n');
    expect((await get(`${base}/one/log?sinceSeconds=60`)).text).toBe('new\n');
    const since = new Date(Date.now() - 7_200_000).toISOString();
    expect((await get(`${base}/one/log?sinceTime=${since}`)).text).toBe('old\nnew\n');
  });

  it('validates the options as PodLogOptions (422) before looking the pod up', async () => {
    const negative = await get(`${base}/ghost/log?tailLines=-1`);
    expect(negative.status).toBe(422);
    expect(negative.json).toMatchObject({
      reason: 'Invalid',
      message:
        'PodLogOptions "ghost" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0',
      details: { kind: 'PodLogOptions', name: 'ghost' },
    });
    expect((await get(`${base}/one/log?limitBytes=0`)).status).toBe(422);
    expect((await get(`${base}/one/log?sinceSeconds=0`)).status).toBe(422);
    expect(
      (await get(`${base}/one/log?sinceSeconds=5&sinceTime=2024-01-01T00:00:00Z`)).status,
    ).toBe(422);
    expect((await get(`${base}/one/log?tailLines=ten`)).status).toBe(400);
    const previous = await get(`${base}/one/log?previous=true`);
    expect(previous.status).toBe(400);
    expect(previous.json.message).toBe(
      'previous terminated container "main" in pod "one" not found',
    );
  });

  it('allows only GET', async () => {
    const res = await rawRequest({ host: server.host }, 'POST', `${base}/one/log`, { body: {} });
    expect(res.status).toBe(405);
  });

  it('follow streams appended lines until the client disconnects', async () => {
    server.podLogs.set('default', 'one', 'x\ny\n');
    const stream = await openStream(server.host, `${base}/one/log?follow=true&tailLines=1`);
    expect(stream.response.statusCode).toBe(200);
    expect(stream.response.headers['content-type']).toBe('text/plain');
    await stream.waitFor('y\n');
    server.podLogs.append('default', 'one', 'z\n');
    await stream.waitFor('z\n');
    expect(stream.text()).toBe('y\nz\n');
    stream.close();
    await stream.ended;
    // The follower is gone: appending more is fine.
    server.podLogs.append('default', 'one', 'after\n');
  });

  it('follow ends when the container ends, and reads to the end afterwards', async () => {
    server.podLogs.set('default', 'one', 'run\n');
    const stream = await openStream(server.host, `${base}/one/log?follow=true`);
    await stream.waitFor('run\n');
    server.podLogs.append('default', 'one', 'bye\n');
    server.podLogs.end('default', 'one');
    await stream.ended;
    expect(stream.text()).toBe('run\nbye\n');
    expect((await get(`${base}/one/log?follow=true`)).text).toBe('run\nbye\n');
    server.podLogs.append('default', 'one', 'restarted\n');
    const again = await openStream(server.host, `${base}/one/log?follow=true&tailLines=1`);
    await again.waitFor('restarted\n');
    again.close();
  });

  it('follow stops at limitBytes', async () => {
    server.podLogs.set('default', 'one', '12345\n');
    const stream = await openStream(server.host, `${base}/one/log?follow=true&limitBytes=8`);
    await stream.waitFor('12345\n');
    server.podLogs.append('default', 'one', 'abcdef\n');
    await stream.ended;
    expect(stream.text()).toBe('12345\nab');
  });

  it('follow with timestamps prefixes appended lines', async () => {
    server.podLogs.set('default', 'one', '');
    const stream = await openStream(server.host, `${base}/one/log?follow=true&timestamps=1`);
    server.podLogs.append('default', 'one', 'stamped\n', {
      time: new Date('2024-01-02T03:04:05.006Z'),
    });
    await stream.waitFor('stamped\n');
    expect(stream.text()).toBe('2024-01-02T03:04:05.006000000Z stamped\n');
    stream.close();
  });

  it('deleting the pod ends its follow streams and drops its logs', async () => {
    await rawRequest({ host: server.host }, 'POST', base, { body: pod('doomed', ['c']) });
    server.podLogs.append('default', 'doomed', 'last words\n');
    const stream = await openStream(server.host, `${base}/doomed/log?follow=true`);
    await stream.waitFor('last words\n');
    await rawRequest({ host: server.host }, 'DELETE', `${base}/doomed`);
    await stream.ended;
    await rawRequest({ host: server.host }, 'POST', base, { body: pod('doomed', ['c']) });
    expect((await get(`${base}/doomed/log`)).text).toBe('');
  });

  it('stopping the server ends follow streams', async () => {
    const other = await startApiServer();
    await rawRequest({ host: other.host }, 'POST', base, { body: pod('p', ['c']) });
    other.podLogs.append('default', 'p', 'hello\n');
    const stream = await openStream(other.host, `${base}/p/log?follow=true`);
    await stream.waitFor('hello\n');
    await other.stop();
    await stream.ended;
    expect(stream.text()).toBe('hello\n');
  });

  it('clear() forgets every log', async () => {
    server.podLogs.set('default', 'one', 'something\n');
    server.podLogs.clear();
    expect((await get(`${base}/one/log`)).text).toBe('');
  });
});
