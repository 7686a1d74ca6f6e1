// client-go's rest/request_test.go, as data: each describe is one Go test, keeping its
// inputs and expectations. Go-only cases are listed in the package README.

import {
  type Clock,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isInternalError,
  isNotFound,
  isStatusError,
  isUnauthorized,
  type StatusError,
} from '@kubets/apimachinery';
import { rejectionOf, type StubServer, startStubServer } from '@kubets/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingClock } from '../test/helpers.js';
import { type Answer, okServer, scriptedServer, statusBody } from '../test/scripted-server.js';
import { RESTClient } from './client.js';
import { InvalidRequestError, isResponseDecodeError, isTransportError } from './errors.js';
import type { RequestRateLimiter } from './ratelimit.js';
import type { Request } from './request.js';
import { LogThrottle } from './throttle-log.js';

const client = new RESTClient({ host: 'https://127.0.0.1:6443', qps: -1 }, { groupVersion: 'v1' });
// Go's tests start from a bare Request, whose path is empty: absPath('/') gives the same.
const bare = () => client.get().absPath('/');

describe('TestRequestWithErrorWontChange', () => {
  it('ignores every builder call once the request has an error', () => {
    const failed = client.get().name('a/b');
    const before = JSON.stringify(failed);
    failed
      .param('foo', 'bar')
      .absPath('/abs')
      .suffix('testing')
      .namespace('new')
      .resource('foos')
      .name('bars')
      .body('foo')
      .timeout(1);
    expect(JSON.stringify(failed)).toBe(before);
  });
});

describe('URL building', () => {
  it.each<[test: string, build: () => Request, path: string]>([
    [
      'TestRequestPreservesBaseTrailingSlash',
      () => new RESTClient({ host: 'http://localhost/path/', qps: -1 }).get().absPath(),
      '/path/',
    ],
    ['TestRequestAbsPathPreservesTrailingSlash', () => client.get().absPath('/foo/'), '/foo/'],
    ['TestRequestAbsPathJoins', () => client.get().absPath('foo/bar', 'baz'), '/foo/bar/baz'],
    ['TestRequestSetsNamespace', () => bare().namespace('foo'), '/namespaces/foo'],
    [
      'TestRequestOrdersNamespaceInPath',
      () => client.get().absPath('/test/').name('bar').resource('baz').namespace('foo'),
      '/test/namespaces/foo/baz/bar',
    ],
    [
      'TestRequestOrdersSubResource',
      () =>
        client
          .get()
          .absPath('/test/')
          .name('bar')
          .resource('baz')
          .namespace('foo')
          .suffix('test')
          .subresource('a', 'b'),
      '/test/namespaces/foo/baz/bar/a/b/test',
    ],
  ])('%s', (_test, build, path) => {
    expect(build().url().pathname).toBe(path);
  });
});

describe('TestRequestSetTwiceError', () => {
  it.each<[part: string, build: () => Request]>([
    ['name', () => bare().name('bar').name('baz')],
    ['namespace', () => bare().namespace('bar').namespace('baz')],
    ['resource', () => bare().resource('bar').resource('baz')],
    ['subresource', () => bare().subresource('bar').subresource('baz')],
  ])('setting %s twice is an error', async (part, build) => {
    await expect(build().do()).rejects.toMatchObject({ name: 'InvalidRequestError', part });
  });
});

describe('TestInvalidSegments', () => {
  const setters: [part: string, set: (r: Request, s: string) => Request][] = [
    ['namespace', (r, s) => r.namespace(s)],
    ['resource', (r, s) => r.resource(s)],
    ['name', (r, s) => r.name(s)],
    ['subresource', (r, s) => r.subresource(s)],
  ];
  const rows = ['.', '..', 'test/segment', 'test%2bsegment'].flatMap((segment) =>
    setters.map(([part, set]) => [part, segment, set] as const),
  );
  it.each(rows)('%s %j is an error', async (part, segment, set) => {
    await expect(set(bare(), segment).do()).rejects.toMatchObject({ part, value: segment });
  });
});

describe('TestRequestParam', () => {
  it('adds and repeats query parameters', () => {
    const request = bare().param('foo', 'a');
    expect([...request.url().searchParams]).toEqual([['foo', 'a']]);
    request.param('bar', '1').param('bar', '2');
    expect(request.url().searchParams.getAll('foo')).toEqual(['a']);
    expect(request.url().searchParams.getAll('bar')).toEqual(['1', '2']);
  });
});

describe('TestRequestPreflightCheck', () => {
  const server = okServer();

  type Verb = 'get' | 'put' | 'delete' | 'post';
  const rows: {
    name: string;
    verbs: Verb[];
    namespace?: string;
    resourceName?: string;
    expectsErr: boolean;
  }[] = [
    { name: 'no namespace set', verbs: ['get', 'put', 'delete', 'post'], expectsErr: false },
    {
      name: 'empty resource name and namespace',
      verbs: ['get', 'put', 'delete'],
      namespace: '',
      expectsErr: false,
    },
    {
      name: 'resource name with empty namespace',
      verbs: ['get', 'put', 'delete'],
      namespace: '',
      resourceName: 'ResourceName',
      expectsErr: true,
    },
    {
      name: 'post empty resource name and namespace',
      verbs: ['post'],
      namespace: '',
      expectsErr: true,
    },
    {
      name: 'working requests',
      verbs: ['get', 'put', 'delete', 'post'],
      namespace: 'Namespace',
      resourceName: 'ResourceName',
      expectsErr: false,
    },
  ];
  it.each(rows.flatMap((row) => row.verbs.map((verb) => ({ ...row, verb }))))(
    '$name: $verb',
    async ({ verb, namespace, resourceName, expectsErr }) => {
      let request = server.client[verb]().resource('pods');
      if (namespace !== undefined) request = request.namespace(namespace);
      if (resourceName !== undefined) request = request.name(resourceName);
      const sent = request.do();
      if (expectsErr) expect(await rejectionOf(sent)).toBeInstanceOf(InvalidRequestError);
      else await sent;
    },
  );
});

describe('TestTransformUnstructuredError', () => {
  let server: StubServer;
  let live: RESTClient;
  let answer: { code: number; body: string } = { code: 200, body: '{}' };
  beforeAll(async () => {
    // No Content-Type, as in Go's rows: the client's default (JSON) applies.
    server = await startStubServer((_request, response) => {
      response.writeHead(answer.code);
      response.end(answer.body);
    });
    live = new RESTClient({ host: server.url, qps: -1 }, { groupVersion: 'v1' });
  });
  afterAll(() => server.close());

  // transformed: the Status the error ends up carrying when the body's Status wins;
  // otherwise the generic error must satisfy errFn, name the resource and name, and carry
  // the UnexpectedServerResponse cause.
  type Row = {
    resource?: string;
    name?: string;
    verb: 'post' | 'put' | 'get';
    code: number;
    body: string;
    errFn: (err: unknown) => boolean;
    transformed?: { status: string; code: number };
  };
  const failure404 = { status: 'Failure', code: 404 };
  // Go's rows that GET a 400 with `body`, the Status it carries when that body wins.
  const badRequest = (body: string, transformed?: Row['transformed']): Row => ({
    verb: 'get',
    code: 400,
    body,
    errFn: isBadRequest,
    ...(transformed ? { transformed } : {}),
  });
  const rows: Row[] = [
    { resource: 'foo', name: 'bar', verb: 'post', code: 409, body: '', errFn: isAlreadyExists },
    { resource: 'foo', name: 'bar', verb: 'put', code: 409, body: '', errFn: isConflict },
    { resource: 'foo', name: 'bar', verb: 'get', code: 404, body: '', errFn: isNotFound },
    badRequest(''),
    badRequest('{"kind":"Status","apiVersion":"v1","status":"Failure","code":404}', failure404),
    badRequest('{"kind":"Status","apiVersion":"v1","status":"Success","code":404}'),
    badRequest('{}'),
    badRequest('{"kind":"Status","status":"Failure","code":404}', failure404),
    badRequest('{"status":"Failure","code":404}'),
  ];
  it.each(rows)(
    '$verb $code $body',
    async ({ resource, name, verb, code, body, errFn, transformed }) => {
      answer = { code, body };
      let request = live[verb]();
      if (resource) request = request.resource(resource);
      if (name) request = request.name(name);
      if (verb !== 'get') request = request.body({});
      const err = await rejectionOf(request.do());
      expect(isStatusError(err)).toBe(true);
      const status = (err as StatusError).status;
      if (transformed) {
        expect(status).toMatchObject(transformed);
        return;
      }
      expect(errFn(err)).toBe(true);
      expect(status.details?.causes?.[0]?.reason).toBe('UnexpectedServerResponse');
      if (name) expect((err as Error).message).toContain(name);
      if (resource) expect((err as Error).message).toContain(resource);
    },
  );
});

describe('TestRequestWatch', () => {
  const stub = scriptedServer();

  const retryAfter: Answer = { code: 500, headers: { 'Retry-After': '1' } };
  // err: a predicate on the error, or 'empty' for a watch that ends without an event.
  const rows: [
    name: string,
    maxRetries: number,
    script: Answer[],
    err: ((e: unknown) => boolean) | 'empty',
  ][] = [
    [
      'server returns forbidden with json content',
      0,
      [
        {
          code: 403,
          headers: { 'Content-Type': 'application/json' },
          body: statusBody({
            status: 'Failure',
            message: 'secrets is forbidden',
            reason: 'Forbidden',
            code: 403,
          }),
        },
      ],
      (e) => isForbidden(e) && (e as Error).message === 'secrets is forbidden',
    ],
    ['server returns forbidden without content', 0, [{ code: 403 }], isForbidden],
    ['server returns unauthorized', 0, [{ code: 401 }], isUnauthorized],
    [
      'server returns unauthorized (Status body)',
      0,
      [{ code: 401, body: statusBody({ status: 'Failure', reason: 'Unauthorized' }) }],
      isUnauthorized,
    ],
    ['server returns EOF error', 0, ['eof'], 'empty'],
    ['server returns connection reset by peer', 0, ['reset'], 'empty'],
    ['max retries 2, server always returns EOF error', 2, ['eof', 'eof', 'eof'], 'empty'],
    [
      'max retries 2, server always returns a response with Retry-After header',
      2,
      [retryAfter, retryAfter, retryAfter],
      isInternalError,
    ],
    // Not Go rows: client-go's Watch takes only a 200 as a watch stream (request.go); any
    // other success is an error, the body's Status when it reports a Failure.
    [
      'server returns 201 instead of 200',
      0,
      [{ code: 201, body: '' }],
      (e) => isResponseDecodeError(e) && (e as Error).message.endsWith('got status: 201'),
    ],
    [
      'server returns 201 with a Failure Status',
      0,
      [{ code: 201, body: statusBody({ status: 'Failure', reason: 'Forbidden', code: 403 }) }],
      (e) => isForbidden(e) && isStatusError(e),
    ],
  ];
  it.each(rows)('%s', async (_name, maxRetries, script, err) => {
    const live = stub.play(script, { maxRetries });
    const watching = live.get().resource('pods').watch();
    if (err === 'empty') {
      const events = [];
      for await (const event of await watching) events.push(event);
      expect(events).toEqual([]);
    } else {
      expect(err(await rejectionOf(watching))).toBe(true);
    }
    expect(stub.attempts()).toBe(script.length);
  });

  it('Request has error: nothing is sent', async () => {
    const live = stub.play([]);
    expect(await rejectionOf(live.get().name('a/b').watch())).toBeInstanceOf(InvalidRequestError);
    expect(stub.attempts()).toBe(0);
  });
});

describe('TestWatchUnknownContentType', () => {
  let server: StubServer;
  beforeAll(async () => {
    server = await startStubServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'foobar' });
      response.end(
        `${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'first' } } })}\n`,
      );
    });
  });
  afterAll(() => server.close());

  it('refuses a watch in a media type it has no stream decoder for', async () => {
    const live = new RESTClient({ host: server.url, qps: -1 }, { groupVersion: 'v1' });
    const err = await rejectionOf(live.get().absPath('path/to/watch/thing').watch());
    expect(isResponseDecodeError(err)).toBe(true);
  });
});

describe('TestTransformResponse', () => {
  const stub = scriptedServer();

  // body: the bytes doRaw() hands back for a success; errFn: extra check on a failure,
  // whose StatusError must carry the response's code (Go's APIStatus check for > 399).
  const rows: {
    answer: Exclude<Answer, string>;
    body?: string;
    errFn?: (e: unknown) => boolean;
  }[] = [
    { answer: { code: 200 }, body: '' },
    { answer: { code: 201 }, body: '' },
    { answer: { code: 500 } },
    { answer: { code: 422 } },
    { answer: { code: 409 } },
    { answer: { code: 404 } },
    { answer: { code: 401 } },
    {
      answer: { code: 401, headers: { 'Content-Type': 'application/json' }, body: 'aaaaa' },
      errFn: (e) => (e as Error).message !== 'aaaaa' && isUnauthorized(e),
    },
    {
      answer: { code: 401, headers: { 'Content-Type': 'text/any' }, body: 'aaaaa' },
      errFn: (e) =>
        (e as Error).message.includes('server has asked for the client to provide') &&
        isUnauthorized(e),
    },
    { answer: { code: 403 } },
    { answer: { code: 200, body: 'aaaaa' }, body: 'aaaaa' },
  ];
  it.each(rows)('$answer.code $answer.body', async ({ answer, body, errFn }) => {
    const live = stub.play([answer], { maxRetries: 0 });
    // Go's transformResponse hands back a success's bytes undecoded: doRaw() here; a
    // failure is what do() throws.
    if (body !== undefined) {
      const raw = await live.get().absPath('/').doRaw();
      expect(raw.statusCode).toBe(answer.code);
      expect(raw.body.toString()).toBe(body);
      return;
    }
    const err = await rejectionOf(live.get().absPath('/').do());
    expect(isStatusError(err)).toBe(true);
    expect((err as StatusError).status.code).toBe(answer.code);
    if (errFn) expect(errFn(err)).toBe(true);
  });
});

describe('TestRequestMaxRetries', () => {
  const stub = scriptedServer();
  // The server answers 429 with Retry-After once, then 200. Go's DoRaw fails on the final
  // 429; kubets' doRaw() resolves with any status, so "fails" is a final status of 429.
  const tooMany: Answer = { code: 429, headers: { 'Retry-After': '1' } };
  const rows: [name: string, maxRetries: number, fails: boolean][] = [
    ['no retrying should fail', 0, true],
    ['1 max-retry should exactly work', 1, false],
    ['5 max-retry should work', 5, false],
  ];
  it.each(rows)('%s', async (_name, maxRetries, fails) => {
    const live = stub.play([tooMany, { code: 200 }], { maxRetries });
    const raw = await live.get().absPath('/foo').doRaw();
    expect(raw.statusCode).toBe(fails ? 429 : 200);
  });
});

describe('TestRequestVersionedParams', () => {
  it('adds an options object to the parameters already set', () => {
    const request = bare().param('foo', 'a');
    expect([...request.url().searchParams]).toEqual([['foo', 'a']]);
    request.params({ follow: true, container: 'bar' });
    const params = request.url().searchParams;
    expect(params.getAll('foo')).toEqual(['a']);
    expect(params.getAll('container')).toEqual(['bar']);
    expect(params.getAll('follow')).toEqual(['true']);
  });
});

describe('TestRequestVersionedParamsFromListOptions', () => {
  it('repeats a parameter set twice and leaves unset options out', () => {
    const request = bare().params({ resourceVersion: '1', timeoutSeconds: undefined });
    expect([...request.url().searchParams]).toEqual([['resourceVersion', '1']]);
    request.params({ resourceVersion: '2', timeoutSeconds: 10 });
    const params = request.url().searchParams;
    expect(params.getAll('resourceVersion')).toEqual(['1', '2']);
    expect(params.getAll('timeoutSeconds')).toEqual(['10']);
  });
});

describe('TestVerbs', () => {
  it.each([
    ['POST', () => client.post()],
    ['PUT', () => client.put()],
    ['GET', () => client.get()],
    ['DELETE', () => client.delete()],
  ])('%s', (verb, start) => {
    expect(start().toJSON()).toMatchObject({ verb });
  });
});

describe('TestAbsPath', () => {
  // Go's Prefix (resourcePrefix) is a path that AbsPath replaces; kubets has absPath alone,
  // so the prefix is an earlier absPath call.
  const rows: [configPrefix: string, resourcePrefix: string, absPath: string, wants: string][] = [
    ['/', '', '', '/'],
    ['', '', '/', '/'],
    ['', '', '/api', '/api'],
    ['', '', '/api/', '/api/'],
    ['', '', '/apis', '/apis'],
    ['', '/foo', '/bar/foo', '/bar/foo'],
    ['', '/api/foo/123', '/bar/foo', '/bar/foo'],
    ['/p1', '', '', '/p1'],
    ['/p1', '', '/', '/p1/'],
    ['/p1', '', '/api', '/p1/api'],
    ['/p1', '', '/apis', '/p1/apis'],
    ['/p1', '/r1', '/apis', '/p1/apis'],
    ['/p1', '/api/r1', '/apis', '/p1/apis'],
    ['/p1/api/p2', '', '', '/p1/api/p2'],
    ['/p1/api/p2', '', '/', '/p1/api/p2/'],
    ['/p1/api/p2', '', '/api', '/p1/api/p2/api'],
    ['/p1/api/p2', '', '/api/', '/p1/api/p2/api/'],
    ['/p1/api/p2', '/r1', '/api/', '/p1/api/p2/api/'],
    ['/p1/api/p2', '/api/r1', '/api/', '/p1/api/p2/api/'],
  ];
  it.each(rows)(
    'host path %j, prefix %j, absPath %j → %j',
    (configPrefix, resourcePrefix, absPath, wants) => {
      const local = new RESTClient(
        { host: `http://localhost:123${configPrefix}`, qps: -1 },
        { groupVersion: 'test/v1' },
      );
      const request = local.post();
      if (resourcePrefix !== '') request.absPath(resourcePrefix);
      expect(request.absPath(absPath).url().pathname).toBe(wants);
    },
  );
});

describe('TestUnacceptableParamNames', () => {
  it('accepts "timeout" as a parameter name (no longer protected)', async () => {
    const request = bare().param('timeout', '42');
    expect(request.url().searchParams.getAll('timeout')).toEqual(['42']);
  });
});

describe('TestRequestSetsHeaders, TestStream, TestDoContext', () => {
  let server: StubServer | undefined;
  const release: (() => void)[] = [];
  let received: (() => void) | undefined;
  beforeAll(async () => {
    server = await startStubServer((request, response) => {
      if (request.path === '/block') {
        received?.();
        release.push(() => response.writeHead(200).end());
        return;
      }
      if (request.path === '/path/to/stream/thing') {
        response.writeHead(200, { 'Transfer-Encoding': 'chunked' });
        response.end('expected body');
        return;
      }
      response.writeHead(403).end();
    });
  });
  afterAll(() => {
    for (const answer of release) answer();
    server?.close();
  });
  const live = () => new RESTClient({ host: server?.url ?? '', qps: -1 }, { groupVersion: 'v1' });

  it('TestRequestSetsHeaders: do, watch and stream all send the Accept header', async () => {
    server?.requests.splice(0);
    const request = () => live().get().absPath('/path');
    await rejectionOf(request().do());
    await rejectionOf(request().watch());
    await rejectionOf(request().stream());
    // kubets speaks JSON only: Go's configurable content type is Go-only (README).
    expect(server?.requests.map((r) => r.headers.accept)).toEqual(
      Array(3).fill('application/json, */*'),
    );
  });

  it('TestStream: streams the chunked body', async () => {
    const stream = await live().get().absPath('path/to/stream/thing').stream();
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('expected body');
  });

  it('TestDoContext: cancelling while the server holds the request rejects it', async () => {
    const cancel = new AbortController();
    const arrived = new Promise<void>((resolve) => {
      received = resolve;
    });
    const sent = live().get().absPath('block').signal(cancel.signal).doRaw();
    await arrived;
    cancel.abort();
    expect(await rejectionOf(sent)).toBe(cancel.signal.reason);
  });
});

describe('TestThrottledLogger', () => {
  it('lets one message through per 10 s, however many requests wait', () => {
    const throttle = new LogThrottle(10_000);
    let now = Date.parse('2026-01-01T00:00:00Z');
    let logged = 0;
    for (let second = 0; second < 1000; second++) {
      for (let request = 0; request < 10; request++) if (throttle.attempt(now)) logged++;
      now += 1000;
    }
    expect(logged).toBe(100);
  });

  it('a request that waited logs it: at debug over 50 ms, at info (throttled) over 1 s', async () => {
    let now = 5_000_000;
    const clock: Clock = {
      now: () => now,
      sleep: () => Promise.resolve(),
      setTimeout: () => {
        throw new Error('no timers here');
      },
    };
    let nextWaitMs = 0;
    const rateLimiter: RequestRateLimiter = {
      qps: 1,
      tryAccept: () => true,
      wait: async () => {
        now += nextWaitMs;
      },
    };
    const lines: [level: string, message: string, fields: unknown][] = [];
    const record =
      (level: string) =>
      (message: string, fields?: unknown): void => {
        lines.push([level, message, fields]);
      };
    const logger = {
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
    };
    const server = await startStubServer((_request, response) => {
      response.writeHead(200).end('{}');
    });
    try {
      const live = new RESTClient(
        { host: server.url, logger },
        { groupVersion: 'v1', clock, rateLimiter },
      );
      const send = async (waitMs: number) => {
        nextWaitMs = waitMs;
        lines.length = 0;
        await live.get().resource('pods').do();
        return lines.filter(([, message]) => message === 'Waited before sending request');
      };
      expect(await send(50)).toEqual([]);
      expect(await send(51)).toEqual([
        [
          'debug',
          'Waited before sending request',
          {
            delayMs: 51,
            reason: 'client-side throttling, not priority and fairness',
            verb: 'GET',
            url: `${server.url}/api/v1/pods`,
          },
        ],
      ]);
      expect((await send(1500)).map(([level]) => level)).toEqual(['debug', 'info']);
      // Within 10 s of the last info line: debug only.
      expect((await send(1500)).map(([level]) => level)).toEqual(['debug']);
      now += 10_000;
      expect((await send(1500)).map(([level]) => level)).toEqual(['debug', 'info']);
    } finally {
      server.close();
    }
  });
});

describe('TestDoRequestNewWay, TestDoRequestNewWayObj', () => {
  const service = {
    kind: 'Service',
    apiVersion: 'v1',
    metadata: {},
    spec: { ports: [{ protocol: 'TCP', port: 12345, targetPort: 12345 }] },
  };
  let server: StubServer | undefined;
  beforeAll(async () => {
    server = await startStubServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(service));
    });
  });
  afterAll(() => server?.close());
  const pod = { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'foo' } };
  const rows: [test: string, build: (c: RESTClient) => Request, path: string, body: string][] = [
    [
      'TestDoRequestNewWay',
      (c) => c.post().absPath('foo/bar').suffix('baz').body(Buffer.from('request body')),
      '/foo/bar/baz',
      'request body',
    ],
    [
      'TestDoRequestNewWayObj',
      (c) => c.post().suffix('baz').name('bar').resource('foo').body(pod),
      '/api/v1/foo/bar/baz',
      JSON.stringify(pod),
    ],
  ];
  it.each(rows)('%s', async (_test, build, path, body) => {
    server?.requests.splice(0);
    const live = new RESTClient({ host: server?.url ?? '', qps: -1 }, { groupVersion: 'v1' });
    expect(await build(live).timeout(1000).do()).toEqual(service);
    expect(server?.requests.map((r) => [r.method, r.path, r.query.get('timeout'), r.body])).toEqual(
      [['POST', path, '1s', body]],
    );
  });
});

describe('TestRequestDo', () => {
  // Go's row with the path prefix "%" cannot be built: kubets escapes every segment (README).
  it('a request that remembered a mistake rejects without a body', async () => {
    expect(await rejectionOf(bare().name('a/b').doRaw())).toBeInstanceOf(InvalidRequestError);
  });

  it('a transport failure rejects without a body', async () => {
    // Nothing listens on port 1 of the loopback address: the connection is refused.
    const refused = new RESTClient(
      { host: 'http://127.0.0.1:1', qps: -1, maxRetries: 0 },
      { groupVersion: 'v1' },
    );
    expect(isTransportError(await rejectionOf(refused.get().absPath('/').doRaw()))).toBe(true);
  });
});

describe('TestWatch', () => {
  const events = [
    { type: 'ADDED', object: { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'first' } } },
    { type: 'MODIFIED', object: { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'second' } } },
    { type: 'DELETED', object: { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'last' } } },
  ];
  const state = { attempts: 0, refusals: 0 };
  let server: StubServer | undefined;
  beforeAll(async () => {
    server = await startStubServer((_request, response) => {
      if (state.attempts++ < state.refusals) {
        response.writeHead(429, { 'Retry-After': '1' }).end();
        return;
      }
      response.writeHead(200, { 'Content-Type': 'application/json' });
      for (const event of events) response.write(`${JSON.stringify(event)}\n`);
      response.end();
    });
  });
  afterAll(() => server?.close());

  it.each([
    ['no retry', 0],
    ['with retries', 3],
  ])('%s', async (_name, maxRetries) => {
    Object.assign(state, { attempts: 0, refusals: maxRetries });
    const live = new RESTClient(
      { host: server?.url ?? '', qps: -1, maxRetries },
      { groupVersion: 'v1', clock: recordingClock() },
    );
    const seen: unknown[] = [];
    for await (const event of await live.get().absPath('path/to/watch/thing').watch()) {
      seen.push(event);
    }
    expect(seen).toEqual(events);
    expect(state.attempts).toBe(maxRetries + 1);
  });
});

describe('TestRequestURI, TestRequestURIContext', () => {
  const rows: [test: string, base: string, uri: string, path: string | 'refused'][] = [
    ['TestRequestURI', '', '/test?foo=b&a=b&c=1&c=2', '/test'],
    ['TestRequestURIContext', '/context', '/test?foo=b&a=b&c=1&c=2', '/context/test'],
    // Go resolves `..` against the base path and leaves it (`/test`); kubets refuses dot
    // segments everywhere, so a request never leaves the server's base path (docs/fidelity.md).
    ['TestRequestURIContext', '/context', '../test?foo=b&a=b&c=1&c=2', 'refused'],
  ];
  it.each(rows)('%s: base %j, %j', async (_test, base, uri, path) => {
    const local = new RESTClient({ host: `https://127.0.0.1:6443${base}`, qps: -1 }, {});
    const request = local
      .get()
      .param('foo', 'a')
      .param('bar', 'b')
      .absPath('other')
      .requestURI(uri);
    if (path === 'refused') {
      expect(await rejectionOf(request.do())).toMatchObject({
        part: 'requestURI',
        value: '../test',
      });
      return;
    }
    const url = request.url();
    expect(url.pathname).toBe(path);
    expect([...url.searchParams]).toEqual([
      ['foo', 'b'],
      ['a', 'b'],
      ['c', '1'],
      ['c', '2'],
    ]);
  });

  it('decodes percent-escapes in the path and clears the parameters when the URI has none', () => {
    const request = bare().param('foo', 'a').requestURI('/api/v1/namespaces/a%20b');
    expect(request.url().pathname).toBe('/api/v1/namespaces/a%20b');
    expect([...request.url().searchParams]).toEqual([]);
  });

  it('a malformed percent-escape is an error naming the URI', async () => {
    const err = await rejectionOf(bare().requestURI('/api/%zz').do());
    expect(err).toMatchObject({
      name: 'InvalidRequestError',
      part: 'requestURI',
      value: '/api/%zz',
    });
  });
});
