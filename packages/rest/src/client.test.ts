import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  isAlreadyExists,
  isConflict,
  isInternalError,
  isNotFound,
  isStatusError,
  isTooManyRequests,
  type StatusError,
} from '@kubets/apimachinery';
import { FakeClock } from '@kubets/apimachinery/testing';
import {
  eventually,
  failureStatus,
  nextTurn,
  type StubHandler,
  type StubServer,
  sendJson,
  stubServerPool,
} from '@kubets/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordingClock } from '../test/helpers.js';
import { RESTClient } from './client.js';
import type { Config } from './config.js';
import { defaultTokenFileRecheckMs } from './credentials.js';
import { CredentialsError, ResponseDecodeError, TransportError } from './errors.js';
import { PatchType } from './request.js';
import type { Warning } from './warnings.js';
import type { WatchEvent } from './watch.js';

interface ConfigMap {
  metadata: { name: string; namespace?: string };
  data?: Record<string, string>;
}

const { serve, closeAll } = stubServerPool();
afterEach(closeAll);

function clientFor(server: StubServer, config: Partial<Config> = {}, clock = recordingClock()) {
  return {
    clock,
    client: new RESTClient({ host: server.url, qps: -1, ...config }, { groupVersion: 'v1', clock }),
  };
}

/**
 * A handler answering the first request with `code` and a Retry-After of `seconds`, every
 * later one with `thenCode` and `{}`.
 */
function retryAfterOnce(code: number, seconds: string, thenCode = 200): StubHandler {
  let calls = 0;
  return (_request, response) => {
    calls++;
    if (calls === 1) {
      response.writeHead(code, { 'Retry-After': seconds });
      response.end();
    } else {
      sendJson(response, thenCode, {});
    }
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the promise to reject');
    },
    (err: unknown) => err,
  );
}

function statusBody(code: number, reason: string, message: string) {
  return { ...failureStatus(code, reason, message), metadata: {} };
}

describe('RESTClient do()', () => {
  it('sends the verb, path, headers and body, and decodes the JSON answer', async () => {
    const server = await serve((recorded, response) =>
      sendJson(response, 201, { ...JSON.parse(recorded.body), metadata: { name: 'x', uid: 'u1' } }),
    );
    const { client } = clientFor(server, { bearerToken: 'secret', userAgent: 'test-agent/1' });
    const created = await client
      .post()
      .namespace('default')
      .resource('configmaps')
      .param('fieldManager', 'kubets')
      .body({ metadata: { name: 'x' }, data: { a: 'ü' } })
      .do<ConfigMap & { metadata: { uid: string } }>();

    expect(created).toEqual({ metadata: { name: 'x', uid: 'u1' }, data: { a: 'ü' } });
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/api/v1/namespaces/default/configmaps?fieldManager=kubets');
    expect(request?.headers).toMatchObject({
      accept: 'application/json, */*',
      'content-type': 'application/json',
      authorization: 'Bearer secret',
      'user-agent': 'test-agent/1',
      'content-length': String(Buffer.byteLength(request?.body ?? '')),
    });
  });

  it('sends a kubets User-Agent by default, and lets setHeader override headers', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, {}));
    const { client } = clientFor(server);
    await client.get().resource('pods').setHeader('Accept', 'application/yaml').do();
    const headers = server.requests[0]?.headers;
    expect(headers?.['user-agent']).toMatch(/^kubets\/\d+\.\d+\.\d+\S* \(\w+\/\w+\) node\/v\d+/);
    expect(headers?.accept).toBe('application/yaml');
  });

  it('sends patch bodies given as text with the patch content type', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, { ok: true }));
    const { client } = clientFor(server);
    const patch = '[{"op":"add","path":"/data/b","value":"2"}]';
    await client
      .patch(PatchType.JSONPatch)
      .namespace('d')
      .resource('configmaps')
      .name('x')
      .body(patch)
      .do();
    expect(server.requests[0]).toMatchObject({
      method: 'PATCH',
      body: patch,
      headers: { 'content-type': 'application/json-patch+json' },
    });
  });

  it.each([
    [404, 'NotFound', isNotFound],
    [409, 'Conflict', isConflict],
    [409, 'AlreadyExists', isAlreadyExists],
  ] as const)('turns a %i %s Status into a StatusError', async (code, reason, matches) => {
    const message = `configmaps "x" ${reason}`;
    const server = await serve((_request, response) =>
      sendJson(response, code, statusBody(code, reason, message)),
    );
    const { client } = clientFor(server);
    const error = (await rejection(
      client.get().namespace('default').resource('configmaps').name('x').do(),
    )) as StatusError;
    expect(isStatusError(error)).toBe(true);
    expect(matches(error)).toBe(true);
    expect(error.code).toBe(code);
    expect(error.reason).toBe(reason);
    expect(error.message).toBe(message);
  });

  it('builds a Status from the HTTP code when the body is not one', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(500, { 'Content-Type': 'text/plain' });
      response.end('etcd is on fire\n');
    });
    const { client } = clientFor(server);
    const error = (await rejection(client.get().resource('pods').do())) as StatusError;
    expect(isInternalError(error)).toBe(true);
    expect(error.status).toMatchObject({
      code: 500,
      reason: 'InternalError',
      message:
        'an error on the server ("etcd is on fire") has prevented the request from succeeding (get pods)',
      details: {
        kind: 'pods',
        causes: [{ reason: 'UnexpectedServerResponse', message: 'etcd is on fire' }],
      },
    });
    expect(server.requests).toHaveLength(1);
  });

  // client-go's newUnstructuredResponseError: the reason and a fixed text from the code, the
  // body quoted only when it is text, and a Status used only when it reports Failure.
  it.each([
    {
      title: 'a 409 to a POST is AlreadyExists',
      verb: 'post' as const,
      code: 409,
      headers: { 'Content-Type': 'text/plain' },
      body: 'taken',
      reason: 'AlreadyExists',
      message: 'the server reported a conflict (post configmaps.apps x)',
    },
    {
      title: 'a 409 to a PUT is Conflict',
      verb: 'put' as const,
      code: 409,
      headers: {},
      body: '',
      reason: 'Conflict',
      message: 'the server reported a conflict (put configmaps.apps x)',
    },
    {
      title: 'a 404 has a fixed text',
      verb: 'get' as const,
      code: 404,
      headers: { 'Content-Type': 'text/html' },
      body: '<h1>nope</h1>',
      reason: 'NotFound',
      message: 'the server could not find the requested resource (get configmaps.apps x)',
      cause: '<h1>nope</h1>',
    },
    {
      title: 'a JSON body that is no Status is quoted as unknown',
      verb: 'get' as const,
      code: 503,
      headers: { 'Content-Type': 'application/json' },
      body: '{"error":"down"}',
      reason: 'ServiceUnavailable',
      message: 'the server is currently unable to handle the request (get configmaps.apps x)',
      cause: 'unknown',
    },
    {
      title: 'a Success Status on a 400 is still an error',
      verb: 'get' as const,
      code: 400,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Success',
        message: 'fine',
      }),
      reason: 'BadRequest',
      message: 'the server rejected our request for an unknown reason (get configmaps.apps x)',
      cause: 'unknown',
    },
    {
      title: 'a 403 keeps the server text',
      verb: 'delete' as const,
      code: 403,
      headers: {},
      body: 'user "x" cannot delete\n',
      reason: 'Forbidden',
      message: 'user "x" cannot delete (delete configmaps.apps x)',
    },
    {
      title: 'another code has the generic text and no reason',
      verb: 'get' as const,
      code: 418,
      headers: {},
      body: 'teapot',
      reason: '',
      message:
        'the server responded with the status code 418 but did not return more information (get configmaps.apps x)',
    },
  ])('$title', async ({ verb, code, headers, body, reason, message, ...rest }) => {
    const server = await serve((_request, response) => {
      response.writeHead(code, headers);
      response.end(body);
    });
    const client = new RESTClient({ host: server.url, qps: -1 }, { groupVersion: 'apps/v1' });
    const request = client[verb]().namespace('d').resource('configmaps').name('x');
    const error = (await rejection(
      (verb === 'post' || verb === 'put' ? request.body({}) : request).do(),
    )) as StatusError;
    expect(error.status).toMatchObject({
      status: 'Failure',
      code,
      reason,
      message,
      details: {
        group: 'apps',
        kind: 'configmaps',
        name: 'x',
        causes: [
          {
            reason: 'UnexpectedServerResponse',
            message: 'cause' in rest ? rest.cause : body.trim(),
          },
        ],
      },
    });
  });

  it('treats a Failure Status in a 2xx answer as an error', async () => {
    const server = await serve((_request, response) =>
      sendJson(response, 200, statusBody(404, 'NotFound', 'gone')),
    );
    const { client } = clientFor(server);
    expect(isNotFound(await rejection(client.get().resource('pods').do()))).toBe(true);
  });

  it('reports a success answer that is not JSON', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html' });
      response.end('<html>');
    });
    const { client } = clientFor(server);
    const error = await rejection(client.get().resource('pods').do());
    expect(error).toBeInstanceOf(ResponseDecodeError);
    expect(error).toMatchObject({ statusCode: 200, contentType: 'text/html' });
  });

  it('doRaw() returns any status with the body', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(404, { 'X-Test': 'yes' });
      response.end('nope');
    });
    const { client } = clientFor(server);
    const raw = await client.get().absPath('/healthz').doRaw();
    expect(raw.statusCode).toBe(404);
    expect(raw.headers['x-test']).toBe('yes');
    expect(raw.body.toString()).toBe('nope');
  });
});

describe('retries', () => {
  it('retries a 429 with Retry-After after the advertised wait', async () => {
    const server = await serve((_request, response) => {
      if (server.requests.length === 1) {
        response.writeHead(429, { 'Retry-After': '1', 'Content-Type': 'application/json' });
        response.end(JSON.stringify(statusBody(429, 'TooManyRequests', 'slow down')));
      } else {
        sendJson(response, 200, { metadata: { name: 'x' } });
      }
    });
    const { client, clock } = clientFor(server);
    const result = await client
      .get()
      .namespace('d')
      .resource('configmaps')
      .name('x')
      .do<ConfigMap>();
    expect(result.metadata.name).toBe('x');
    expect(server.requests).toHaveLength(2);
    expect(clock.sleeps).toEqual([1000]);
  });

  it('holds the retry until the Retry-After time has passed', async () => {
    const clock = new FakeClock();
    const server = await serve(retryAfterOnce(503, '2'));
    const client = new RESTClient({ host: server.url, qps: -1 }, { groupVersion: 'v1', clock });
    const done = client.get().resource('pods').do();
    await eventually(() => clock.pending === 1);
    clock.step(1999);
    await nextTurn();
    expect(server.requests).toHaveLength(1);
    clock.step(1);
    await done;
    expect(server.requests).toHaveLength(2);
  });

  it('retries a POST after 429 + Retry-After, since the server did not act on it', async () => {
    const server = await serve(retryAfterOnce(429, '3', 201));
    const { client, clock } = clientFor(server);
    await client.post().resource('pods').body({ a: 1 }).do();
    expect(server.requests.map((request) => request.body)).toEqual(['{"a":1}', '{"a":1}']);
    expect(clock.sleeps).toEqual([3000]);
  });

  it('gives up after maxRetries and reports the last answer with its Retry-After', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(429, { 'Retry-After': '0' });
      response.end('busy');
    });
    const { client } = clientFor(server, { maxRetries: 3 });
    const error = (await rejection(client.get().resource('pods').do())) as StatusError;
    expect(isTooManyRequests(error)).toBe(true);
    expect(error.retryAfterSeconds).toBe(0);
    expect(server.requests).toHaveLength(4);
  });

  it('retries at most 10 times by default', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(503, { 'Retry-After': '1' });
      response.end();
    });
    const { client, clock } = clientFor(server);
    await rejection(client.get().resource('pods').do());
    expect(server.requests).toHaveLength(11);
    expect(clock.sleeps).toEqual(Array(10).fill(1000));
  });

  it('does not retry a 5xx without Retry-After', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(502);
      response.end();
    });
    const { client } = clientFor(server);
    await rejection(client.get().resource('pods').do());
    expect(server.requests).toHaveLength(1);
  });

  it('adds the configured backoff when it is longer than Retry-After', async () => {
    const server = await serve((_request, response) => {
      if (server.requests.length < 3) {
        response.writeHead(429, { 'Retry-After': '1' });
        response.end();
      } else {
        sendJson(response, 200, {});
      }
    });
    const clock = recordingClock();
    const client = new RESTClient(
      { host: server.url, qps: -1 },
      { groupVersion: 'v1', clock, retryBackoffMs: (attempt) => attempt * 800 },
    );
    await client.get().resource('pods').do();
    expect(clock.sleeps).toEqual([1000, 1600]);
  });

  it('retries a GET whose connection was reset', async () => {
    const server = await serve((_request, response, raw) => {
      if (server.requests.length === 1) raw.socket.destroy();
      else sendJson(response, 200, { items: [] });
    });
    const { client, clock } = clientFor(server);
    expect(await client.get().resource('pods').do()).toEqual({ items: [] });
    expect(server.requests).toHaveLength(2);
    expect(clock.sleeps).toEqual([1000]);
  });

  it('never retries a POST whose connection was reset', async () => {
    const server = await serve((_request, _response, raw) => {
      raw.socket.destroy();
    });
    const { client, clock } = clientFor(server);
    const error = await rejection(client.post().resource('pods').body({}).do());
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ code: 'ECONNRESET', method: 'POST' });
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect(server.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  // client-go retries resets only: a refused connection is reported at once, by do() and
  // by watch() alike.
  it.each(['do', 'watch'] as const)(
    '%s() reports a refused connection without retrying',
    async (call) => {
      const server = await serve(() => {});
      const { port } = server;
      await server.close();
      const clock = recordingClock();
      const client = new RESTClient(
        { host: `http://127.0.0.1:${port}`, qps: -1, maxRetries: 2 },
        { groupVersion: 'v1', clock },
      );
      const error = await rejection(client.get().resource('pods')[call]());
      expect(error).toMatchObject({ name: 'TransportError', code: 'ECONNREFUSED' });
      expect(clock.sleeps).toEqual([]);
    },
  );

  it('never retries a stream whose connection was reset', async () => {
    const server = await serve((_request, _response, raw) => {
      raw.socket.destroy();
    });
    const { client, clock } = clientFor(server);
    const error = await rejection(
      client.get().resource('pods').name('p').subresource('log').stream(),
    );
    expect(error).toMatchObject({ name: 'TransportError', code: 'ECONNRESET' });
    expect(server.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('retries a stream after a Retry-After answer', async () => {
    const server = await serve(retryAfterOnce(503, '2'));
    const { client, clock } = clientFor(server);
    const body = await client.get().resource('pods').name('p').subresource('log').stream();
    body.resume();
    expect(server.requests).toHaveLength(2);
    expect(clock.sleeps).toEqual([2000]);
  });

  it('retries a watch (any verb) whose connection was reset, then returns an empty watch', async () => {
    const server = await serve((_request, _response, raw) => {
      raw.socket.destroy();
    });
    const { client, clock } = clientFor(server, { maxRetries: 2 });
    const watch = await client.post().resource('pods').watch();
    const events: unknown[] = [];
    for await (const event of watch) events.push(event);
    expect(events).toEqual([]);
    expect(server.requests).toHaveLength(3);
    expect(clock.sleeps).toEqual([1000, 1000]);
  });

  /**
   * Waits until `sent` requests reached the server and the next one waits for a token of a
   * 1 qps limiter, checks that nothing more was sent meanwhile, then moves the clock a second.
   */
  async function stepToNextToken(server: StubServer, clock: FakeClock, sent: number) {
    await eventually(() => server.requests.length === sent);
    await eventually(() => clock.pending === 1);
    await nextTurn();
    expect(server.requests).toHaveLength(sent);
    clock.step(1000);
  }

  it('does not rate limit the first request of a watch, only its retries', async () => {
    const clock = new FakeClock();
    const server = await serve((request, response) => {
      if (server.requests.length === 2) {
        response.writeHead(429, { 'Retry-After': '0' });
        response.end();
      } else if (request.url?.includes('watch=true')) {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end();
      } else {
        sendJson(response, 200, {});
      }
    });
    const client = new RESTClient(
      { host: server.url, qps: 1, burst: 1 },
      { groupVersion: 'v1', clock },
    );
    // The one token goes to this request; the watch is sent without one.
    await client.get().resource('pods').do();
    const watching = client.get().resource('pods').watch();
    // Its retry after the 429 waits for the next token, a second later.
    await stepToNextToken(server, clock, 2);
    for await (const _event of await watching) {
      // the server ends the watch at once
    }
    expect(server.requests).toHaveLength(3);
  });

  it('waits for the rate limiter before every attempt, retries included', async () => {
    const clock = new FakeClock();
    const server = await serve(retryAfterOnce(429, '0'));
    const client = new RESTClient(
      { host: server.url, qps: 1, burst: 1 },
      { groupVersion: 'v1', clock },
    );
    const done = client.get().resource('pods').do();
    // The retry needs a second token, which arrives one second later.
    await stepToNextToken(server, clock, 1);
    await done;
    expect(server.requests).toHaveLength(2);
  });
});

describe('rate limiting', () => {
  it('holds a client to its QPS', async () => {
    const clock = new FakeClock();
    const server = await serve((_request, response) => sendJson(response, 200, {}));
    const client = new RESTClient(
      { host: server.url, qps: 2, burst: 3 },
      { groupVersion: 'v1', clock },
    );
    const all = Array.from({ length: 9 }, () => client.get().resource('pods').do());
    await eventually(() => server.requests.length === 3);
    await nextTurn();
    for (const [step, expected] of [
      [500, 4],
      [500, 5],
      [1000, 7],
      [1000, 9],
    ] as const) {
      clock.step(step);
      await eventually(() => server.requests.length === expected);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(server.requests).toHaveLength(expected);
    }
    await Promise.all(all);
  });

  it('shares one limiter between clients', async () => {
    const clock = new FakeClock();
    const server = await serve((_request, response) => sendJson(response, 200, {}));
    const shared = new RESTClient({ host: server.url, qps: 1, burst: 2 }, { clock }).rateLimiter;
    if (!shared) throw new Error('expected a limiter');
    const first = new RESTClient({ host: server.url, rateLimiter: shared }, { groupVersion: 'v1' });
    const second = new RESTClient(
      { host: server.url, rateLimiter: shared },
      { groupVersion: 'v1' },
    );
    expect(second.rateLimiter).toBe(first.rateLimiter);
    const requests = [first, second, first].map((client) => client.get().resource('pods').do());
    await eventually(() => server.requests.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.requests).toHaveLength(2);
    clock.step(1000);
    await Promise.all(requests);
  });
});

describe('timeouts and cancellation', () => {
  it('times out a request that gets no answer', async () => {
    const server = await serve(() => {});
    const { client } = clientFor(server, { timeoutMs: 100 });
    const error = await rejection(client.get().resource('pods').do());
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ timedOut: true, code: 'ETIMEDOUT' });
    await server.requests[0]?.closed;
  });

  it('aborts a request when its signal aborts, closing the connection', async () => {
    const server = await serve(() => {});
    const { client } = clientFor(server);
    const controller = new AbortController();
    const done = client.get().resource('pods').signal(controller.signal).do();
    await eventually(() => server.requests.length === 1);
    controller.abort();
    const error = await rejection(done);
    expect(error).toMatchObject({ name: 'AbortError' });
    await server.requests[0]?.closed;
  });

  it('aborts a retry wait', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(503, { 'Retry-After': '60' });
      response.end();
    });
    const client = new RESTClient({ host: server.url, qps: -1 }, { groupVersion: 'v1' });
    const controller = new AbortController();
    const done = client.get().resource('pods').signal(controller.signal).do();
    await eventually(() => server.requests.length === 1);
    controller.abort(new Error('stop waiting'));
    await expect(done).rejects.toThrow('stop waiting');
  });
});

describe('credentials', () => {
  it('re-reads a bearer token file when it changes, at most every recheck interval', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubets-token-'));
    try {
      const tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, 'first-token\n');
      const server = await serve((_request, response) => sendJson(response, 200, {}));
      const clock = new FakeClock();
      const client = new RESTClient(
        { host: server.url, qps: -1, bearerTokenFile: tokenFile, bearerToken: 'static' },
        { groupVersion: 'v1', clock },
      );
      await client.get().resource('pods').do();
      writeFileSync(tokenFile, 'second-token-rotated\n');
      // Within the interval the file is not looked at.
      await client.get().resource('pods').do();
      clock.step(defaultTokenFileRecheckMs);
      await client.get().resource('pods').do();
      rmSync(tokenFile);
      clock.step(defaultTokenFileRecheckMs);
      // While the file is missing (mid-rotation) the last good token is kept.
      await client.get().resource('pods').do();
      expect(server.requests.map((request) => request.headers.authorization)).toEqual([
        'Bearer first-token',
        'Bearer first-token',
        'Bearer second-token-rotated',
        'Bearer second-token-rotated',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails with a CredentialsError when the token file was never readable', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, {}));
    const { client } = clientFor(server, { bearerTokenFile: '/nonexistent/kubets/token' });
    const error = await rejection(client.get().resource('pods').do());
    expect(error).toBeInstanceOf(CredentialsError);
    expect((error as Error).message).toContain('/nonexistent/kubets/token');
    expect(server.requests).toHaveLength(0);
  });

  it('sends impersonation headers and basic auth', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, {}));
    const { client } = clientFor(server, {
      username: 'admin',
      password: 'pw',
      impersonate: {
        user: 'jane',
        uid: '42',
        groups: ['devs', 'ops'],
        extra: { scopes: ['view', 'edit'], 'example.com/team': ['a'] },
      },
    });
    await client.get().resource('pods').do();
    const request = server.requests[0];
    expect(request?.headers).toMatchObject({
      authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}`,
      'impersonate-user': 'jane',
      'impersonate-uid': '42',
      'impersonate-group': 'devs, ops',
      'impersonate-extra-scopes': 'view, edit',
      // Node lowercases received header names, escape included.
      'impersonate-extra-example.com%2fteam': 'a',
    });
  });

  it('asks the auth provider before every attempt', async () => {
    let calls = 0;
    const server = await serve(retryAfterOnce(429, '0'));
    const { client } = clientFor(server, {
      bearerToken: 'ignored',
      authProvider: {
        credentials: async () => ({ headers: { Authorization: `Bearer dynamic-${++calls}` } }),
      },
    });
    await client.get().resource('pods').do();
    expect(server.requests.map((request) => request.headers.authorization)).toEqual([
      'Bearer dynamic-1',
      'Bearer dynamic-2',
    ]);
  });

  it('wraps a failing auth provider in a CredentialsError', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, {}));
    const { client } = clientFor(server, {
      authProvider: {
        credentials: async () => {
          throw new Error('plugin exited with 1');
        },
      },
    });
    const error = await rejection(client.get().resource('pods').do());
    expect(error).toBeInstanceOf(CredentialsError);
    expect((error as Error).message).toBe('the auth provider failed: plugin exited with 1');
  });
});

describe('warnings', () => {
  it('passes Warning headers to the handler, and stays silent without one', async () => {
    const server = await serve((_request, response) => {
      response.setHeader('Warning', [
        '299 - "v1beta1 Foo is deprecated"',
        '299 - "unknown field \\"spec.x\\""',
      ]);
      sendJson(response, 200, {});
    });
    const warnings: Warning[] = [];
    const { client } = clientFor(server, { warningHandler: (warning) => warnings.push(warning) });
    await client.get().resource('foos').do();
    expect(warnings.map((warning) => warning.text)).toEqual([
      'v1beta1 Foo is deprecated',
      'unknown field "spec.x"',
    ]);
    await clientFor(server).client.get().resource('foos').do();
  });
});

describe('watch()', () => {
  function event(type: string, name: string): string {
    return `${JSON.stringify({ type, object: { metadata: { name } } })}\n`;
  }

  it('streams events as the server sends them, and ends when the server closes', async () => {
    let sendRest: () => void = () => {};
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      const first = event('ADDED', 'a');
      response.write(first.slice(0, 10));
      response.write(first.slice(10));
      sendRest = () => {
        response.write(event('MODIFIED', 'a').slice(0, 30));
        response.end(event('MODIFIED', 'a').slice(30) + event('DELETED', 'a'));
      };
    });
    const { client } = clientFor(server);
    const watch = await client
      .get()
      .namespace('default')
      .resource('configmaps')
      .param('resourceVersion', '5')
      .watch<ConfigMap>();
    const seen: WatchEvent<ConfigMap>[] = [];
    for await (const received of watch) {
      seen.push(received);
      if (seen.length === 1) sendRest();
    }
    expect(seen.map((received) => received.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(server.requests[0]?.url).toBe(
      '/api/v1/namespaces/default/configmaps?resourceVersion=5&watch=true',
    );
  });

  // client-go's StreamDecoder: JSON, or no/unparseable Content-Type (taken as JSON).
  it.each([
    { contentType: 'text/html; charset=utf-8', refused: 'text/html' },
    {
      contentType: 'application/vnd.kubernetes.protobuf;stream=watch',
      refused: 'application/vnd.kubernetes.protobuf',
    },
    { contentType: 'application/json;stream=watch', refused: undefined },
    { contentType: undefined, refused: undefined },
    { contentType: 'not a media type', refused: undefined },
  ])('watch answered with Content-Type $contentType', async ({ contentType, refused }) => {
    const server = await serve((_request, response) => {
      response.writeHead(200, contentType ? { 'Content-Type': contentType } : {});
      response.end(event('ADDED', 'a'));
    });
    const { client } = clientFor(server);
    const watching = client.get().resource('pods').watch();
    if (refused) {
      const error = await rejection(watching);
      expect(error).toBeInstanceOf(ResponseDecodeError);
      expect((error as Error).message).toMatch(
        new RegExp(`: no stream serializers registered for ${refused.replace(/[.+]/g, '\\$&')}$`),
      );
      await server.requests[0]?.closed;
    } else {
      const types: string[] = [];
      for await (const received of await watching) types.push(received.type);
      expect(types).toEqual(['ADDED']);
    }
  });

  it('closes the connection when the loop is left', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write(event('ADDED', 'a'));
    });
    const { client } = clientFor(server);
    for await (const received of await client.get().resource('pods').watch()) {
      expect(received.type).toBe('ADDED');
      break;
    }
    await server.requests[0]?.closed;
  });

  it('ends quietly and closes the connection when the signal aborts', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write(event('ADDED', 'a'));
    });
    const { client } = clientFor(server);
    const controller = new AbortController();
    const watch = await client.get().resource('pods').signal(controller.signal).watch();
    const types: string[] = [];
    const loop = (async () => {
      for await (const received of watch) {
        types.push(received.type);
        if (types.length === 1) controller.abort();
      }
    })();
    await loop;
    expect(types).toEqual(['ADDED']);
    await server.requests[0]?.closed;
  });

  it('stop() ends a watch that is waiting for events', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.flushHeaders();
    });
    const { client } = clientFor(server);
    const watch = await client.get().resource('pods').watch();
    const next = watch.next();
    watch.stop();
    expect(await next).toEqual({ done: true, value: undefined });
    await server.requests[0]?.closed;
  });

  it('reports a malformed line from the server as an ERROR event', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(`${event('ADDED', 'a')}{not json}\n${event('DELETED', 'a')}`);
    });
    const { client } = clientFor(server);
    const types: string[] = [];
    for await (const received of await client.get().resource('pods').watch()) {
      types.push(received.type);
      if (received.type === 'ERROR') expect(received.object.reason).toBe('InternalError');
    }
    expect(types).toEqual(['ADDED', 'ERROR', 'DELETED']);
  });

  it('throws a StatusError when the server refuses the watch', async () => {
    const server = await serve((_request, response) =>
      sendJson(response, 410, statusBody(410, 'Expired', 'too old resource version')),
    );
    const { client } = clientFor(server);
    const error = (await rejection(
      client.get().resource('pods').param('watch', '1').watch(),
    )) as StatusError;
    expect(error.reason).toBe('Expired');
    expect(server.requests[0]?.url).toBe('/api/v1/pods?watch=1');
  });

  it('keeps a watch open past the request timeout once it has started', async () => {
    let finish: () => void = () => {};
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write(event('ADDED', 'a'));
      finish = () => response.end(event('DELETED', 'a'));
    });
    // The request timeout runs on Node's timers, faked here so that the watch's start never
    // races the 50 ms on a busy machine: time moves only when the test moves it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { client } = clientFor(server, { timeoutMs: 50 });
      const watch = await client.get().resource('pods').watch();
      vi.advanceTimersByTime(120);
      finish();
      const types: string[] = [];
      for await (const received of watch) types.push(received.type);
      expect(types).toEqual(['ADDED', 'DELETED']);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('stream()', () => {
  it('hands over bytes as they arrive', async () => {
    let writeMore: () => void = () => {};
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      response.write('line 1\n');
      writeMore = () => response.end('line 2\n');
    });
    const { client } = clientFor(server);
    const logs = await client
      .get()
      .namespace('default')
      .resource('pods')
      .name('p')
      .subresource('log')
      .param('follow', true)
      .stream();
    const received: string[] = [];
    for await (const chunk of logs) {
      received.push(String(chunk));
      if (received.length === 1) writeMore();
    }
    expect(received).toEqual(['line 1\n', 'line 2\n']);
    expect(server.requests[0]?.url).toBe('/api/v1/namespaces/default/pods/p/log?follow=true');
  });

  it('throws the Status when the server refuses', async () => {
    const server = await serve((_request, response) =>
      sendJson(response, 400, statusBody(400, 'BadRequest', 'container name must be given')),
    );
    const { client } = clientFor(server);
    await expect(
      client.get().namespace('d').resource('pods').name('p').subresource('log').stream(),
    ).rejects.toThrow('container name must be given');
  });

  it('closes the connection when the stream is destroyed', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200);
      response.write('x');
    });
    const { client } = clientFor(server);
    const logs = await client.get().absPath('/logs').stream();
    const [first] = (await once(logs, 'data')) as [Buffer];
    expect(first.toString()).toBe('x');
    logs.destroy();
    await server.requests[0]?.closed;
  });
});
