import { once } from 'node:events';
import { constants, type Http2ServerResponse, type ServerHttp2Session } from 'node:http2';
import { silentLogger } from '@kubets/apimachinery';
import { FakeClock } from '@kubets/apimachinery/testing';
import { ChaosProxy, eventually, onBun } from '@kubets/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { recordingClock } from '../test/helpers.js';
import { makeCertChain, startHttp2TlsServer, startTlsServer, type TestCert } from '../test/tls.js';
import { RESTClient, type RESTClientOptions } from './client.js';
import type { Config } from './config.js';
import { TransportError } from './errors.js';
import {
  defaultPingTimeoutMs,
  defaultReadIdleTimeoutMs,
  http2TransportFor,
} from './http2-transport.js';
import { agentFor } from './transport.js';
import type { WatchEvent } from './watch.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Fixture {
  ca: TestCert;
  serving: TestCert;
}

function certs(): Fixture {
  return makeCertChain('kubets h2 test CA');
}

function client(
  url: string,
  fixture: Fixture,
  options: RESTClientOptions & { config?: Partial<Config> } = {},
): RESTClient {
  const { config, ...clientOptions } = options;
  return new RESTClient(
    { host: url, tls: { caData: fixture.ca.certPem }, qps: -1, http2: true, ...config },
    { groupVersion: 'v1', clock: new FakeClock(), ...clientOptions },
  );
}

// The transport a client with `fixture`'s CA uses for `url`: clients with the same TLS
// settings share it, so this is the one the client under test opened.
function transportOf(url: string, fixture: Fixture) {
  return http2TransportFor(agentFor('https:', { ca: fixture.ca.certPem }), new URL(url), {
    clock: new FakeClock(),
    logger: silentLogger,
  });
}

function json(response: Http2ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

const pod = (name: string, resourceVersion: string) => ({
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: { name, namespace: 'default', resourceVersion },
});

/** A server whose watches stay open, to be fed events by the test. */
async function watchServer(fixture: Fixture, options: { maxConcurrentStreams?: number } = {}) {
  const watches: Http2ServerResponse[] = [];
  const server = await startHttp2TlsServer(
    fixture.serving,
    (request, response) => {
      const url = new URL(request.url, 'https://127.0.0.1');
      if (url.searchParams.get('watch') === 'true') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('');
        watches.push(response);
        return;
      }
      if (url.pathname === '/api/v1/namespaces/default/pods') {
        json(response, 200, {
          kind: 'PodList',
          apiVersion: 'v1',
          metadata: { resourceVersion: '7' },
          items: [pod('a', '5'), pod('b', '6')],
        });
        return;
      }
      json(response, 200, { ...pod('a', '5'), seenVersion: request.httpVersion });
    },
    options,
  );
  cleanups.push(() => server.close());
  const send = (index: number, event: WatchEvent<unknown>): void => {
    watches[index]?.write(`${JSON.stringify(event)}\n`);
  };
  return { server, watches, send };
}

describe('HTTP/2 transport', () => {
  it('sends requests, lists and watches over one session', async () => {
    const fixture = certs();
    const { server, watches, send } = await watchServer(fixture);
    const core = client(server.url, fixture);

    const raw = await core.get().namespace('default').resource('pods').name('a').doRaw();
    expect(raw.httpVersion).toBe('2.0');
    expect(JSON.parse(raw.body.toString('utf8'))).toMatchObject({ seenVersion: '2.0' });

    const names: string[] = [];
    const list = await core
      .get()
      .namespace('default')
      .resource('pods')
      .doList<{ metadata: { name: string } }>({ onItem: (item) => names.push(item.metadata.name) });
    expect(names).toEqual(['a', 'b']);
    expect(list.metadata?.resourceVersion).toBe('7');

    const first = await core.get().namespace('default').resource('pods').watch();
    const second = await core.get().namespace('default').resource('pods').watch();
    await eventually(() => expect(watches).toHaveLength(2));
    send(0, { type: 'ADDED', object: pod('c', '8') });
    send(1, { type: 'MODIFIED', object: pod('a', '9') });
    const firstEvent = await first[Symbol.asyncIterator]().next();
    const secondEvent = await second[Symbol.asyncIterator]().next();
    expect(firstEvent.value).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'c' } } });
    expect(secondEvent.value).toMatchObject({
      type: 'MODIFIED',
      object: { metadata: { name: 'a' } },
    });

    const transport = transportOf(server.url, fixture);
    expect(transport.protocol).toBe('h2');
    expect(transport.sessionsOpened).toBe(1);
    expect(transport.session?.activeStreams).toBe(2);
    expect(server.sessions).toHaveLength(1);
    // Go's stream window, not Node's 64 KiB, so large lists are not held to one per round trip.
    expect(server.sessions[0]?.remoteSettings.initialWindowSize).toBe(4 * 1024 * 1024);
    first.stop();
    second.stop();
    await eventually(() => expect(transport.session?.activeStreams).toBe(0));
  });

  it('opens another session when the first has as many streams as the server allows', async () => {
    const fixture = certs();
    const { server, watches, send } = await watchServer(fixture, { maxConcurrentStreams: 2 });
    const core = client(server.url, fixture);
    const watch = () => core.get().namespace('default').resource('pods').watch();
    const opened = [await watch(), await watch(), await watch()];
    await eventually(() => expect(watches).toHaveLength(3));
    send(2, { type: 'ADDED', object: pod('third', '3') });
    expect((await opened[2]?.[Symbol.asyncIterator]().next())?.value).toMatchObject({
      object: { metadata: { name: 'third' } },
    });
    const transport = transportOf(server.url, fixture);
    expect(transport.sessions.map((session) => session.activeStreams)).toEqual([2, 1]);
    expect(server.sessions).toHaveLength(2);

    // Room again on the first session: requests go back to it.
    opened[0]?.stop();
    await eventually(() => expect(transport.sessions[0]?.activeStreams).toBe(1));
    await core.get().namespace('default').resource('pods').name('a').do();
    expect(transport.sessionsOpened).toBe(2);
    for (const stream of opened) stream?.stop();
  });

  it('falls back to HTTP/1.1 when the server offers no h2, and remembers it', async () => {
    const fixture = certs();
    const server = await startTlsServer(fixture.serving, (request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ kind: 'Pod', seenVersion: request.httpVersion }));
    });
    cleanups.push(() => server.close());
    const core = client(server.url, fixture);

    const first = await core.get().namespace('default').resource('pods').name('a').doRaw();
    const second = await core.get().namespace('default').resource('pods').name('a').do();
    expect(first.httpVersion).toBe('1.1');
    expect(second).toMatchObject({ seenVersion: '1.1' });
    const transport = transportOf(server.url, fixture);
    expect(transport.protocol).toBe('http/1.1');
    expect(transport.sessionsOpened).toBe(0);
  });

  it('uses HTTP/2 with a server that also speaks HTTP/1.1', async () => {
    const fixture = certs();
    const server = await startHttp2TlsServer(
      fixture.serving,
      (request, response) => json(response, 200, { seenVersion: request.httpVersion }),
      { allowHTTP1: true },
    );
    cleanups.push(() => server.close());
    const answer = await client(server.url, fixture).get().absPath('/version').do();
    expect(answer).toEqual({ seenVersion: '2.0' });
  });

  it.each([
    { ending: 'sends GOAWAY', end: (session: ServerHttp2Session) => session.goaway() },
    { ending: 'closes the connection', end: (session: ServerHttp2Session) => session.destroy() },
  ])('opens a new session after the server $ending', async ({ end }) => {
    const fixture = certs();
    const server = await startHttp2TlsServer(fixture.serving, (_request, response) =>
      json(response, 200, pod('a', '1')),
    );
    cleanups.push(() => server.close());
    const core = client(server.url, fixture);
    const transport = transportOf(server.url, fixture);

    await core.get().namespace('default').resource('pods').name('a').do();
    const firstSession = transport.session;
    const serverSession = server.sessions[0];
    if (serverSession) end(serverSession);
    await eventually(() => expect(transport.session).toBeUndefined());

    await core.get().namespace('default').resource('pods').name('a').do();
    expect(transport.sessionsOpened).toBe(2);
    expect(server.sessions).toHaveLength(2);
    expect(transport.session).not.toBe(firstSession);
    expect(firstSession?.closed).toBe(true);
  });

  // Bun's TLS socket does not count the session's reads in bytesRead, so the read-idle PING
  // comes on its own schedule there (README, Runtimes).
  it.skipIf(onBun)('pings a quiet session and closes it when the ping gets no answer', async () => {
    const fixture = certs();
    const { server, watches, send } = await watchServer(fixture);
    const proxy = await ChaosProxy.start(server.url);
    cleanups.push(() => proxy.close());
    const clock = new FakeClock();
    const core = client(proxy.url(), fixture, { clock });
    const watch = await core.get().namespace('default').resource('pods').watch();
    const events = watch[Symbol.asyncIterator]();
    await eventually(() => expect(watches).toHaveLength(1));
    send(0, { type: 'ADDED', object: pod('a', '1') });
    expect((await events.next()).value).toMatchObject({ type: 'ADDED' });
    const transport = transportOf(proxy.url(), fixture);
    const session = transport.session;
    if (!session) throw new Error('no session');

    // Frames just arrived (seen at the first sample, a sixth of the period in): 30 s of
    // silence after that earn a ping, which the server answers, so the session stays.
    const sampleMs = defaultReadIdleTimeoutMs / 6;
    await clock.advance(defaultReadIdleTimeoutMs);
    expect(session.pingsSent).toBe(0);
    await clock.advance(sampleMs);
    expect(session.pingsSent).toBe(1);
    await eventually(() => expect(session.pingsAnswered).toBe(1));
    await clock.advance(defaultPingTimeoutMs);
    expect(session.closed).toBe(false);
    expect(session.pingsSent).toBe(1);

    // The connection goes silent: the next ping, 30 s after the answer, is never answered.
    proxy.blackhole();
    await clock.advance(defaultReadIdleTimeoutMs - defaultPingTimeoutMs - 1);
    expect(session.pingsSent).toBe(1);
    await clock.advance(1);
    expect(session.pingsSent).toBe(2);
    await clock.advance(defaultPingTimeoutMs - 1);
    expect(session.closed).toBe(false);
    await clock.advance(1);
    await eventually(() => expect(session.closed).toBe(true));
    const broken = await events.next();
    expect(broken.value).toMatchObject({
      type: 'ERROR',
      object: { message: expect.stringContaining('no answer to a PING') },
    });
    expect((await events.next()).done).toBe(true);
    expect(transport.session).toBeUndefined();
  });

  it('by default (no Config.http2) ends a watch whose connection stalls mid-event within a minute', async () => {
    const fixture = certs();
    const { server, watches } = await watchServer(fixture);
    const proxy = await ChaosProxy.start(server.url);
    cleanups.push(() => proxy.close());
    const clock = new FakeClock();
    const core = new RESTClient(
      { host: proxy.url(), tls: { caData: fixture.ca.certPem }, qps: -1 },
      { groupVersion: 'v1', clock },
    );
    const watch = await core.get().namespace('default').resource('pods').watch();
    const events = watch[Symbol.asyncIterator]();
    const next = events.next();
    await eventually(() => expect(watches).toHaveLength(1));
    // Half an event, then nothing: the flow was dropped on the way (a load balancer).
    watches[0]?.write('{"type":"ADDED","object":{"kind":"Pod","metadata":{"na');
    await eventually(() => expect(transportOf(proxy.url(), fixture).session).toBeDefined());
    proxy.blackhole();
    await clock.advance(defaultReadIdleTimeoutMs + defaultReadIdleTimeoutMs / 6);
    await clock.advance(defaultPingTimeoutMs);
    expect(defaultReadIdleTimeoutMs + defaultReadIdleTimeoutMs / 6 + defaultPingTimeoutMs).toBe(
      50_000,
    );
    const broken = await next;
    expect(broken.value).toMatchObject({ type: 'ERROR' });
    expect(JSON.stringify(broken.value)).toMatch(/no answer to a PING|ended in the middle/);
  });

  it('aborting one watch resets only its stream', async () => {
    const fixture = certs();
    const { server, watches, send } = await watchServer(fixture);
    const core = client(server.url, fixture);
    const aborter = new AbortController();
    const aborted = await core
      .get()
      .namespace('default')
      .resource('pods')
      .signal(aborter.signal)
      .watch();
    const kept = await core.get().namespace('default').resource('pods').watch();
    await eventually(() => expect(watches).toHaveLength(2));
    const transport = transportOf(server.url, fixture);
    expect(transport.session?.activeStreams).toBe(2);

    aborter.abort();
    expect((await aborted[Symbol.asyncIterator]().next()).done).toBe(true);
    const firstResponse = watches[0];
    if (firstResponse && !firstResponse.stream.closed) await once(firstResponse.stream, 'close');
    await eventually(() => expect(transport.session?.activeStreams).toBe(1));

    send(1, { type: 'ADDED', object: pod('still', '2') });
    const next = await kept[Symbol.asyncIterator]().next();
    expect(next.value).toMatchObject({ object: { metadata: { name: 'still' } } });
    expect(transport.sessionsOpened).toBe(1);
    expect(transport.session?.closed).toBe(false);
    kept.stop();
  });

  it('retries after Retry-After on the same session, as over HTTP/1.1', async () => {
    const fixture = certs();
    let requests = 0;
    const server = await startHttp2TlsServer(fixture.serving, (_request, response) => {
      requests++;
      if (requests === 1) {
        response.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
        response.end(JSON.stringify({ kind: 'Status', status: 'Failure', code: 429 }));
        return;
      }
      json(response, 200, pod('a', '1'));
    });
    cleanups.push(() => server.close());
    const clock = recordingClock(new FakeClock());
    const answer = await client(server.url, fixture, { clock })
      .get()
      .namespace('default')
      .resource('pods')
      .name('a')
      .do();
    expect(answer).toMatchObject({ metadata: { name: 'a' } });
    expect(requests).toBe(2);
    expect(clock.sleeps).toEqual([1000]);
    expect(server.sessions).toHaveLength(1);
  });

  it('hands every Warning header line to the warning handler, as over HTTP/1.1', async () => {
    const fixture = certs();
    const server = await startHttp2TlsServer(fixture.serving, (_request, response) => {
      response.setHeader('warning', ['299 - "first"', '299 - "second, with a comma"']);
      json(response, 200, pod('a', '1'));
    });
    cleanups.push(() => server.close());
    const warnings: string[] = [];
    await client(server.url, fixture, {
      config: { warningHandler: (warning) => warnings.push(warning.text) },
    })
      .get()
      .namespace('default')
      .resource('pods')
      .name('a')
      .do();
    expect(warnings).toEqual(['first', 'second, with a comma']);
  });

  it('refreshes credentials after a 401, as over HTTP/1.1', async () => {
    const fixture = certs();
    const seen: (string | undefined)[] = [];
    const server = await startHttp2TlsServer(fixture.serving, (request, response) => {
      seen.push(request.headers.authorization);
      if (request.headers.authorization === 'Bearer stale') {
        json(response, 401, {
          kind: 'Status',
          status: 'Failure',
          code: 401,
          reason: 'Unauthorized',
        });
        return;
      }
      json(response, 200, pod('a', '1'));
    });
    cleanups.push(() => server.close());
    let token = 'stale';
    const core = client(server.url, fixture, {
      config: {
        authProvider: {
          credentials: async () => ({ headers: { Authorization: `Bearer ${token}` } }),
          onUnauthorized: () => {
            token = 'fresh';
          },
        },
      },
    });
    const request = () => core.get().namespace('default').resource('pods').name('a').do();
    await expect(request()).rejects.toMatchObject({ code: 401 });
    await expect(request()).resolves.toMatchObject({ metadata: { name: 'a' } });
    expect(seen).toEqual(['Bearer stale', 'Bearer fresh']);
  });

  // Bun's refused stream's error does not name NGHTTP2_REFUSED_STREAM (README, Runtimes).
  it.skipIf(onBun)(
    'retries a GET whose stream the server refused, and names the error of a POST',
    async () => {
      const fixture = certs();
      let requests = 0;
      const server = await startHttp2TlsServer(fixture.serving, (request, response) => {
        requests++;
        if (requests === 1 || request.method === 'POST') {
          request.stream.close(constants.NGHTTP2_REFUSED_STREAM);
          return;
        }
        json(response, 200, pod('a', '1'));
      });
      cleanups.push(() => server.close());
      const clock = recordingClock(new FakeClock());
      const core = client(server.url, fixture, { clock });
      await expect(
        core.get().namespace('default').resource('pods').name('a').do(),
      ).resolves.toMatchObject({
        metadata: { name: 'a' },
      });
      expect(clock.sleeps).toEqual([1000]);

      const failure = await core
        .post()
        .namespace('default')
        .resource('pods')
        .body(pod('b', ''))
        .do()
        .catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(TransportError);
      expect(failure).toMatchObject({
        code: 'ERR_HTTP2_STREAM_ERROR',
        message: expect.stringContaining('NGHTTP2_REFUSED_STREAM (ERR_HTTP2_STREAM_ERROR)'),
      });
      expect(server.sessions).toHaveLength(1);
    },
  );

  it('times out a request that gets no answer by resetting its stream, not the session', async () => {
    const fixture = certs();
    const silent = await startHttp2TlsServer(fixture.serving, () => {});
    cleanups.push(() => silent.close());
    const error = await client(silent.url, fixture, { config: { timeoutMs: 100 } })
      .get()
      .absPath('/version')
      .do()
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ timedOut: true, code: 'ETIMEDOUT' });
    const silentSession = transportOf(silent.url, fixture).session;
    await eventually(() => expect(silentSession?.activeStreams).toBe(0));
    expect(silentSession?.closed).toBe(false);
    expect(silent.sessions).toHaveLength(1);
  });

  it('refuses a header value with a newline or NUL as over HTTP/1.1, and keeps the session', async () => {
    const fixture = certs();
    const server = await startHttp2TlsServer(fixture.serving, (_request, response) =>
      json(response, 200, { major: '1' }),
    );
    cleanups.push(() => server.close());
    const rest = client(server.url, fixture);
    await rest.get().absPath('/version').do();
    const session = transportOf(server.url, fixture).session;
    for (const value of ['a\nX-Injected: 1', 'a\u0000b']) {
      const error = await rest
        .get()
        .absPath('/version')
        .setHeader('X-Note', value)
        .do()
        .catch((err: unknown) => err);
      expect(error).toBeInstanceOf(TransportError);
      expect((error as Error).message).toMatch(/x-note/i);
    }
    await rest.get().absPath('/version').do();
    expect(transportOf(server.url, fixture).session).toBe(session);
    expect(transportOf(server.url, fixture).sessionsOpened).toBe(1);
    expect(server.sessions).toHaveLength(1);
  });

  it('streams a body (logs) over HTTP/2', async () => {
    const fixture = certs();
    const server = await startHttp2TlsServer(fixture.serving, (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('line 1\n');
      response.end('line 2\n');
    });
    cleanups.push(() => server.close());
    const logs = await client(server.url, fixture)
      .get()
      .namespace('default')
      .resource('pods')
      .name('a')
      .subresource('log')
      .stream();
    let text = '';
    for await (const chunk of logs) text += String(chunk);
    expect(text).toBe('line 1\nline 2\n');
    expect(transportOf(server.url, fixture).sessionsOpened).toBe(1);
  });

  it('explains a server certificate the configured CA did not sign, as over HTTP/1.1', async () => {
    const fixture = certs();
    const server = await startHttp2TlsServer(fixture.serving, (_request, response) =>
      json(response, 200, {}),
    );
    cleanups.push(() => server.close());
    const otherCA = certs();
    const failure = await client(server.url, otherCA)
      .get()
      .absPath('/version')
      .do()
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(TransportError);
    expect(failure).toMatchObject({
      message: expect.stringMatching(
        /TLS verification of the server certificate failed .*: the server's certificate is not signed by the configured certificate-authority/,
      ),
    });
    expect(server.sessions).toHaveLength(0);
  });

  it('reports a refused connection as over HTTP/1.1', async () => {
    const fixture = certs();
    const server = await startHttp2TlsServer(fixture.serving, (_request, response) =>
      json(response, 200, {}),
    );
    const url = server.url;
    await server.close();
    const failure = await client(url, fixture)
      .get()
      .absPath('/version')
      .do()
      .catch((err) => err);
    expect(failure).toBeInstanceOf(TransportError);
    expect(failure).toMatchObject({ code: 'ECONNREFUSED' });
  });
});
