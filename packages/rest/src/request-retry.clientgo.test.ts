// client-go's rest/request_test.go, the retry tables: TestRequestStream,
// TestRetryableConditions, TestRequest{Watch,Do}WithWrapPreviousError and
// TestTryThrottleWithInfoContextDeadline, each row keeping its inputs and expectations. A
// stub server plays each row's answers on a real socket (see test/scripted-server.ts), so
// Go's transport-level errors become what a socket can do; rows that need other Go errors
// are listed in the package README.

import { createServer } from 'node:net';
import { isBadRequest, isInternalError, isUnauthorized } from '@kubets/apimachinery';
import { rejectionOf, type StubServer, startStubServer } from '@kubets/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingClock } from '../test/helpers.js';
import { type Answer, scriptedServer, statusBody } from '../test/scripted-server.js';
import { RESTClient } from './client.js';
import { InvalidRequestError, isTransportError } from './errors.js';
import { PatchType, type Request } from './request.js';

const retryAfter: Answer = { code: 500, headers: { 'Retry-After': '1' } };
const twice = (answer: Answer): Answer[] => [answer, answer];
const ok: Answer = { code: 200, body: '' };

/** Reads a stream to its end (Go's tests close the body; kubets' caller must drain it). */
async function drain(stream: NodeJS.ReadableStream): Promise<void> {
  for await (const _chunk of stream) {
    // nothing to keep
  }
}

describe('TestRequestStream', () => {
  const stub = scriptedServer();
  const containerMessage =
    'a container name must be specified for pod kube-dns-v20-mz5cv, choose one of: [kubedns dnsmasq healthz]';
  // err: undefined for a stream that opens; otherwise a check of the error.
  const rows: [
    name: string,
    maxRetries: number,
    script: Answer[],
    err?: (e: unknown) => boolean,
  ][] = [
    ['server returns an error', 0, ['garbage'], isTransportError],
    [
      'server returns 401 with a Status',
      0,
      [{ code: 401, body: statusBody({ status: 'Failure', reason: 'Unauthorized' }) }],
      isUnauthorized,
    ],
    [
      'server returns 400 with a Status',
      0,
      [
        {
          code: 400,
          body: statusBody({
            metadata: {},
            status: 'Failure',
            message: containerMessage,
            reason: 'BadRequest',
            code: 400,
          }),
        },
      ],
      (e) => isBadRequest(e) && (e as Error).message === containerMessage,
    ],
    [
      'max retries 2, server always returns a response with Retry-After header',
      2,
      [retryAfter, retryAfter, retryAfter],
      isInternalError,
    ],
    [
      'server returns EOF after attempt 1, retry aborted',
      2,
      [retryAfter, 'eof'],
      (e) => isTransportError(e) && e.code === 'ECONNRESET',
    ],
    ['max retries 2, server returns success on the final attempt', 2, [retryAfter, retryAfter, ok]],
  ];
  it.each(rows)('%s', async (_name, maxRetries, script, err) => {
    const live = stub.play(script, { maxRetries });
    const opening = live.get().resource('pods').stream();
    if (err === undefined) await drain(await opening);
    else expect(err(await rejectionOf(opening))).toBe(true);
    expect(stub.attempts()).toBe(script.length);
  });

  it('request has error: nothing is sent', async () => {
    const live = stub.play([]);
    const err = await rejectionOf(live.get().name('a/b').stream());
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect(stub.attempts()).toBe(0);
  });
});

type Method = 'Do' | 'DoRaw' | 'Stream' | 'Watch';
const callers: Record<Method, (r: Request) => Promise<unknown>> = {
  Do: (r) => r.do(),
  DoRaw: (r) => r.doRaw(),
  Stream: async (r) => drain(await r.stream()),
  Watch: async (r) => {
    for await (const _event of await r.watch()) {
      // the server's answers carry no events
    }
  },
};
type Verb = 'get' | 'post' | 'put' | 'delete' | 'patch';
const allVerbs: Verb[] = ['get', 'post', 'put', 'delete', 'patch'];
const start = (client: RESTClient, verb: Verb): Request =>
  verb === 'patch' ? client.patch(PatchType.MergePatch) : client[verb]();
const methods = Object.keys(callers) as Method[];
/** Which methods retry: every one, none, or every one but `Stream`. */
const retry = {
  always: new Set<Method>(methods),
  never: new Set<Method>(),
  exceptStream: new Set<Method>(['Do', 'DoRaw', 'Watch']),
};

/** A loopback URL nothing listens on: a port that was bound a moment ago and released. */
async function refusingHost(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${address.port}`;
}

describe('TestRetryableConditions', () => {
  const stub = scriptedServer();
  const rows: [name: string, verbs: Verb[], answer: Answer, retried: Set<Method>][] = [
    [
      'server returns {429, Retry-After}',
      allVerbs,
      { code: 429, headers: { 'Retry-After': '0' } },
      retry.always,
    ],
    [
      'server returns {503, Retry-After}',
      allVerbs,
      { code: 503, headers: { 'Retry-After': '0' } },
      retry.always,
    ],
    ['server returns 5xx, but no Retry-After', allVerbs, { code: 500 }, retry.never],
    ['server returns 429 but no Retry-After', allVerbs, { code: 429 }, retry.never],
    ['server returns connection reset error', ['get'], 'reset', retry.exceptStream],
    ['server returns EOF error', ['get'], 'eof', retry.exceptStream],
    ['server returns unexpected EOF error', ['get'], 'partial', retry.exceptStream],
    // Watch: not applicable (a watch is a GET), and kubets' watch retries any verb as Go's.
    ['server returns EOF error', ['post'], 'eof', new Set<Method>(['Watch'])],
    ['server returns OK, never retry', allVerbs, ok, retry.never],
    [
      'server returns {3xx, Retry-After}',
      allVerbs,
      { code: 301, headers: { 'Retry-After': '0' } },
      retry.never,
    ],
  ];
  const cases = rows.flatMap(([name, verbs, answer, retried]) =>
    methods.flatMap((method) =>
      verbs.map((verb) => ({ name, method, verb, answer, retried: retried.has(method) })),
    ),
  );
  it.each(cases)('$name/$method/$verb', async ({ method, verb, answer, retried }) => {
    const live = stub.play([answer, answer, answer], { maxRetries: 2 });
    await callers[method](start(live, verb).absPath('/apis')).catch(() => {});
    expect(stub.attempts()).toBe(retried ? 3 : 1);
  });

  // A refused connection never reaches a server: the retry waits tell the attempts.
  it.each(
    methods.flatMap((method) => (['get', 'post'] as const).map((verb) => ({ method, verb }))),
  )('server returns connection refused error/$method/$verb', async ({ method, verb }) => {
    const clock = recordingClock();
    const live = new RESTClient(
      { host: await refusingHost(), qps: -1, maxRetries: 2 },
      { groupVersion: 'v1', clock },
    );
    const err = await rejectionOf(callers[method](start(live, verb).absPath('/apis')));
    expect(isTransportError(err) && err.code).toBe('ECONNREFUSED');
    expect(clock.sleeps).toEqual([]);
  });
});

// client-go's testWithWrapPreviousError: `wrapped` is the previous attempt's error the final
// error must name; `expectedErr` what the final error is.
describe.each<[string, (r: Request) => Promise<unknown>]>([
  ['TestRequestWatchWithWrapPreviousError', callers.Watch],
  // Go's Do without Into is DoRaw: an empty 200 is no error until decoded.
  ['TestRequestDoWithWrapPreviousError', callers.DoRaw],
])('%s', (_test, call) => {
  const stub = scriptedServer();
  const previous = (message: string) => `- error from a previous attempt: ${message}`;
  const rows: {
    name: string;
    maxRetries: number;
    script: Answer[];
    expectedErr?: 'garbage' | 'cancel';
    contains?: string;
  }[] = [
    { name: 'success at first attempt', maxRetries: 2, script: [ok] },
    {
      name: 'success after a series of retry-after from the server',
      maxRetries: 2,
      script: [retryAfter, retryAfter, ok],
    },
    {
      name: 'success after a series of retryable errors',
      maxRetries: 2,
      script: ['eof', 'eof', ok],
    },
    {
      name: 'request errors out with a non retryable error',
      maxRetries: 2,
      script: ['garbage'],
      expectedErr: 'garbage',
    },
    {
      name: 'request times out after retries, but no previous error',
      maxRetries: 2,
      script: [retryAfter, retryAfter, 'cancel'],
      expectedErr: 'cancel',
    },
    {
      name: 'request times out after retries, and we have a relevant previous error',
      maxRetries: 3,
      script: ['eof', retryAfter, retryAfter, 'cancel'],
      expectedErr: 'cancel',
    },
    {
      name: 'interleaved retry-after responses with retryable errors',
      maxRetries: 8,
      script: [
        ...twice(retryAfter),
        'partial',
        ...twice(retryAfter),
        'eof',
        ...twice(retryAfter),
        'cancel',
      ],
      expectedErr: 'cancel',
    },
    {
      name: 'request errors out with a retryable error, followed by a non-retryable one',
      maxRetries: 3,
      script: ['eof', 'garbage'],
      expectedErr: 'garbage',
      contains: previous('socket hang up'),
    },
    {
      name: 'use the most recent error',
      maxRetries: 2,
      script: ['partial', 'eof', 'cancel'],
      expectedErr: 'cancel',
    },
  ];
  it.each(rows)('$name', async ({ maxRetries, script, expectedErr, contains }) => {
    const cancel = new AbortController();
    const live = stub.play(script, { maxRetries }, cancel);
    const sent = call(live.get().absPath('/').signal(cancel.signal));
    if (expectedErr === undefined) {
      await sent;
    } else {
      const err = await rejectionOf(sent);
      // kubets rejects with the caller's own abort reason, never wrapped (see the README).
      if (expectedErr === 'cancel') expect(err).toBe(cancel.signal.reason);
      else expect(isTransportError(err) && err.code).toBe('HPE_INVALID_CONSTANT');
      if (contains !== undefined) expect((err as Error).message).toContain(contains);
      else expect((err as Error).message).not.toContain(previous(''));
    }
    expect(stub.attempts()).toBe(script.length);
  });
});

describe('TestTryThrottleWithInfoContextDeadline', () => {
  it('rejects with the abort reason, not a rate limiter error, when already cancelled', async () => {
    const live = new RESTClient(
      { host: 'http://127.0.0.1:1', qps: 1, burst: 1 },
      { groupVersion: 'v1', clock: recordingClock() },
    );
    const cancel = new AbortController();
    cancel.abort();
    const err = await rejectionOf(live.get().absPath('/').signal(cancel.signal).do());
    expect(err).toBe(cancel.signal.reason);
    expect(String((err as Error).message)).not.toContain('client rate limiter');
  });
});

describe('TestRequestWithRetry', () => {
  // Go's internal request() with one retry, as doRaw(), which like request() hands back the
  // last answer without judging its status; the rows with an opaque (non-rewindable) body
  // are Go-only (README). Go's transform-func count is the answered attempt that ends the
  // request: kubets has no such hook, so the attempts and the outcome are compared.
  const stub = scriptedServer();
  const rows: [name: string, answer: Answer, body: string | undefined, fails: boolean][] = [
    [
      'server returns retry-after response, no request body, retry goes ahead',
      retryAfter,
      undefined,
      false,
    ],
    [
      'server returns retry-after response, bytes request body, retry goes ahead',
      retryAfter,
      '',
      false,
    ],
    ['server returns retryable err, no request body, retry goes ahead', 'partial', undefined, true],
    ['server returns retryable err, bytes request body, retry goes ahead', 'partial', '', true],
  ];
  it.each(rows)('%s', async (_name, answer, body, fails) => {
    const live = stub.play([answer, answer], { maxRetries: 1 });
    const request = live.get().absPath('/');
    if (body !== undefined) request.body(body);
    const outcome = request.doRaw().then(
      () => false,
      () => true,
    );
    expect(await outcome).toBe(fails);
    expect(stub.attempts()).toBe(2);
  });
});

// testRequestWithRetry, run by TestRequest{Do,DoRaw,Stream,Watch}WithRetry: the attempts each
// method makes for the same server answers (Go's body close counts are transport plumbing).
describe.each<[string, Method]>([
  ['TestRequestDoWithRetry', 'Do'],
  ['TestRequestDoRawWithRetry', 'DoRaw'],
  ['TestRequestStreamWithRetry', 'Stream'],
  ['TestRequestWatchWithRetry', 'Watch'],
])('%s', (_test, method) => {
  const stub = scriptedServer();
  const rows: [name: string, script: Answer[], attempts: Record<Method, number>][] = [
    [
      'server always returns retry-after response',
      [retryAfter, retryAfter, retryAfter],
      { Do: 3, DoRaw: 3, Watch: 3, Stream: 3 },
    ],
    [
      'server always returns retryable error',
      ['eof', 'eof', 'eof'],
      // Stream never retries an error.
      { Do: 3, DoRaw: 3, Watch: 3, Stream: 1 },
    ],
    [
      'server returns success on the final retry',
      [retryAfter, 'eof', ok],
      { Do: 3, DoRaw: 3, Watch: 3, Stream: 2 },
    ],
  ];
  it.each(rows)('%s', async (_name, script, attempts) => {
    const live = stub.play(script, { maxRetries: 2 });
    await callers[method](live.get().absPath('/')).catch(() => undefined);
    expect(stub.attempts()).toBe(attempts[method]);
  });
});

describe('TestConnectionResetByPeerIsRetried', () => {
  const stub = scriptedServer();
  it('retries a GET twice after "connection reset by peer" and succeeds', async () => {
    const live = stub.play(['reset', 'reset', ok], { maxRetries: 10 });
    await live.get().absPath('/').doRaw();
    expect(stub.attempts()).toBe(3);
    // Go's BackoffManager also sleeps (0 s) before the first attempt; kubets waits only
    // between attempts, one second each as client-go's retry after an error.
    expect(live.clock.sleeps).toEqual([1000, 1000]);
  });
});

describe('TestCheckRetryHandles429And5xx', () => {
  const bodies: string[] = [];
  const codes = [429, 500, 501, 504];
  let server: StubServer | undefined;
  beforeAll(async () => {
    server = await startStubServer((request, response) => {
      const attempt = bodies.push(request.body) - 1;
      const code = codes[attempt];
      if (code === undefined) response.writeHead(200).end();
      else response.writeHead(code, { 'Retry-After': '0' }).end();
    });
  });
  afterAll(() => server?.close());

  it('retries a POST on 429, 500, 501 and 504 with Retry-After, resending the whole body', async () => {
    const live = new RESTClient(
      { host: server?.url ?? '', qps: -1 },
      { groupVersion: 'v1', clock: recordingClock() },
    );
    const body = 'abcd'.repeat(1000);
    await live.post().absPath('foo', 'bar').suffix('baz').timeout(1000).body(body).doRaw();
    expect(bodies).toEqual(Array(5).fill(body));
  });
});

describe('TestCheckRetryClosesBody', () => {
  const stub = scriptedServer();
  it('retries a POST through four 429s with Retry-After: 1, waiting a second each time', async () => {
    const tooMany: Answer = {
      code: 429,
      headers: { 'Retry-After': '1' },
      body: 'Too many requests, please try again later.',
    };
    const live = stub.play([tooMany, tooMany, tooMany, tooMany, ok]);
    const response = await live
      .post()
      .absPath('foo', 'bar')
      .suffix('baz')
      .timeout(1000)
      .body('abcd'.repeat(1000))
      .doRaw();
    expect(response.statusCode).toBe(200);
    expect(stub.attempts()).toBe(5);
    // Go's BackoffManager adds a 0 s sleep before the first attempt; kubets has none.
    expect(live.clock.sleeps).toEqual([1000, 1000, 1000, 1000]);
  });
});
