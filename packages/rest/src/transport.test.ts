import { type StubServer, sendJson, startStubServer } from '@kubets/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESTClient } from './client.js';
import { TransportError } from './errors.js';
import {
  agentFor,
  isConnectionRefused,
  isRetryableConnectionError,
  isRetryableWatchError,
  networkErrorMessage,
} from './transport.js';

describe('connection pooling', () => {
  let server: StubServer;
  const clientPorts: number[] = [];
  beforeAll(async () => {
    server = await startStubServer((_request, response, raw) => {
      clientPorts.push(raw.socket.remotePort ?? 0);
      sendJson(response, 200, {});
    });
  });
  afterAll(() => server.close());

  it('shares one keep-alive agent between clients with the same TLS settings', () => {
    expect(agentFor('https:', { ca: 'A' })).toBe(agentFor('https:', { ca: Buffer.from('A') }));
    expect(agentFor('https:', { ca: 'A' })).not.toBe(agentFor('https:', { ca: 'B' }));
    expect(agentFor('https:', { ca: 'A' })).not.toBe(
      agentFor('https:', { ca: 'A', insecureSkipVerify: true }),
    );
    expect(agentFor('http:', {})).toBe(agentFor('http:', {}));
  });

  it('reuses the connection for consecutive requests', async () => {
    const first = new RESTClient({ host: server.url, qps: -1 }, { groupVersion: 'v1' });
    const second = new RESTClient({ host: server.url, qps: -1 }, { groupVersion: 'v1' });
    await first.get().resource('pods').do();
    await second.get().resource('pods').do();
    await first.get().resource('pods').do();
    expect(new Set(clientPorts).size).toBe(1);
  });
});

const withCode = (code?: string) => Object.assign(new Error('x'), code ? { code } : {});

describe('isRetryableConnectionError and isRetryableWatchError', () => {
  // client-go: request retries IsConnectionReset/IsProbableEOF; Watch also IsTimeout; a
  // refused connection is neither.
  it.each([
    { code: 'ECONNRESET', request: true, watch: true },
    { code: 'EPIPE', request: true, watch: true },
    { code: 'ECONNABORTED', request: true, watch: true },
    { code: 'ETIMEDOUT', request: false, watch: true },
    // HTTP/2: the session or stream went away before an answer.
    { code: 'ERR_HTTP2_GOAWAY_SESSION', request: true, watch: true },
    { code: 'ERR_HTTP2_SESSION_ERROR', request: true, watch: true },
    { code: 'ERR_HTTP2_STREAM_ERROR', request: true, watch: true },
    { code: 'ERR_HTTP2_STREAM_CANCEL', request: true, watch: true },
    { code: 'ERR_HTTP2_INVALID_SESSION', request: true, watch: true },
    { code: 'ERR_HTTP2_PING_CANCEL', request: true, watch: true },
    { code: 'ERR_HTTP2_PING_TIMEOUT', request: true, watch: true },
    { code: 'ERR_HTTP2_INVALID_HEADER_VALUE', request: false, watch: false },
    { code: 'ECONNREFUSED', request: false, watch: false },
    { code: 'ENOTFOUND', request: false, watch: false },
    { code: undefined, request: false, watch: false },
  ])('$code: request $request, watch $watch', ({ code, request, watch }) => {
    expect(isRetryableConnectionError(withCode(code))).toBe(request);
    expect(isRetryableWatchError(withCode(code))).toBe(watch);
  });
});

describe('isConnectionRefused', () => {
  const transportError = (cause: unknown, code?: string) =>
    new TransportError(
      'GET http://127.0.0.1:1/api: failed',
      { method: 'GET', url: 'http://127.0.0.1:1/api', ...(code ? { code } : {}) },
      { cause },
    );

  it.each([
    { what: 'a Node error ECONNREFUSED', err: withCode('ECONNREFUSED'), refused: true },
    {
      what: 'a TransportError with the code',
      err: transportError(withCode('ECONNREFUSED'), 'ECONNREFUSED'),
      refused: true,
    },
    {
      what: 'a TransportError whose cause has the code',
      err: transportError(withCode('ECONNREFUSED')),
      refused: true,
    },
    { what: 'a reset connection', err: transportError(withCode('ECONNRESET')), refused: false },
    {
      what: 'another error whose cause is refused',
      err: new Error('wrapped', { cause: withCode('ECONNREFUSED') }),
      refused: false,
    },
    { what: 'no error', err: undefined, refused: false },
  ])('$what: $refused', ({ err, refused }) => {
    expect(isConnectionRefused(err)).toBe(refused);
  });

  it('recognises a request to a port nothing listens on', async () => {
    const server = await startStubServer((_request, response) => sendJson(response, 200, {}));
    const url = server.url;
    await server.close();
    const client = new RESTClient({ host: url, qps: -1 }, { groupVersion: 'v1' });
    const err = await client
      .get()
      .resource('pods')
      .do()
      .catch((e: unknown) => e);
    expect(isConnectionRefused(err)).toBe(true);
  });
});

describe('networkErrorMessage', () => {
  it.each([
    {
      error: Object.assign(new Error('Stream closed with error code NGHTTP2_REFUSED_STREAM'), {
        code: 'ERR_HTTP2_STREAM_ERROR',
      }),
      message: 'Stream closed with error code NGHTTP2_REFUSED_STREAM (ERR_HTTP2_STREAM_ERROR)',
    },
    {
      error: Object.assign(new Error('ERR_HTTP2_PING_TIMEOUT: no answer'), {
        code: 'ERR_HTTP2_PING_TIMEOUT',
      }),
      message: 'ERR_HTTP2_PING_TIMEOUT: no answer',
    },
    {
      error: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      message: 'read ECONNRESET',
    },
    { error: 'plain', message: 'plain' },
  ])('$message', ({ error, message }) => {
    expect(networkErrorMessage(error)).toBe(message);
  });
});
