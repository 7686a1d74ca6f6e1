// client-go's rest/client_test.go and rest/config_test.go, as data: each describe is one Go
// test, keeping its inputs and expectations. Go-only cases are listed in the package README.

import { isBadRequest, isNotFound, isStatusError } from '@kubets/apimachinery';
import {
  type RecordedRequest,
  rejectionOf,
  type StubServer,
  startStubServer,
} from '@kubets/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusBody } from '../test/scripted-server.js';
import { RESTClient } from './client.js';
import type { Config } from './config.js';
import { isResponseDecodeError } from './errors.js';
import { TokenBucketRateLimiter } from './ratelimit.js';
import { PatchType } from './request.js';

// testServerEnv: every answer carries a Success Status, whatever its code.
const successStatus = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' };

/** A server answering `code` with the Success Status (Go's FakeHandler), recording requests. */
function statusServer(): {
  answer(code: number): RESTClient;
  readonly requests: RecordedRequest[];
} {
  const state = { code: 200 };
  let server: StubServer | undefined;
  beforeAll(async () => {
    server = await startStubServer((_request, response) => {
      response.writeHead(state.code, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(successStatus));
    });
  });
  afterAll(() => server?.close());
  return {
    answer(code) {
      state.code = code;
      server?.requests.splice(0);
      return new RESTClient({ host: server?.url ?? '', qps: -1 }, { groupVersion: 'v1' });
    },
    get requests() {
      return server?.requests ?? [];
    },
  };
}

describe('TestDoRequestSuccess, TestDoRequestNotCreated, TestDoRequestAcceptedNoContentReturned, TestBadRequest', () => {
  const stub = statusServer();
  // Go reads each answer with Do().Raw(): the body whatever the code, and an error for a
  // non-2xx code. kubets' doRaw() gives the body and do() the verdict; a 0-length body is
  // an error only once decoded (Go's Into, kubets' do()).
  const rows: [test: string, code: number, body: unknown, outcome: 'ok' | 'empty' | 'bad'][] = [
    ['TestDoRequestSuccess', 200, successStatus, 'ok'],
    ['TestDoRequestNotCreated', 202, successStatus, 'ok'],
    // A 204 carries no body (Node's server drops it, as Go's does).
    ['TestDoRequestAcceptedNoContentReturned', 204, undefined, 'empty'],
    // A Success Status on a 400 is still a failed request.
    ['TestBadRequest', 400, successStatus, 'bad'],
  ];
  it.each(rows)('%s: GET answered %i', async (_test, code, body, outcome) => {
    const client = stub.answer(code);
    const raw = await client.get().suffix('test').doRaw();
    expect(raw.statusCode).toBe(code);
    expect(raw.body.length === 0 ? undefined : JSON.parse(raw.body.toString())).toEqual(body);
    const decoded = client.get().suffix('test').do();
    if (outcome === 'ok') expect(await decoded).toEqual(body);
    else if (outcome === 'empty')
      expect(isResponseDecodeError(await rejectionOf(decoded))).toBe(true);
    else expect(isBadRequest(await rejectionOf(decoded))).toBe(true);
    expect(stub.requests.map((r) => [r.method, r.path])).toEqual([
      ['GET', '/api/v1/test'],
      ['GET', '/api/v1/test'],
    ]);
  });
});

describe('TestDoRequestFailed', () => {
  const status = {
    code: 404,
    status: 'Failure',
    reason: 'NotFound',
    message: ' "" not found',
    details: {},
  };
  let server: StubServer | undefined;
  beforeAll(async () => {
    server = await startStubServer((_request, response) => {
      response.writeHead(404, { 'Content-Type': 'application/json' });
      response.end(statusBody({ metadata: {}, ...status }));
    });
  });
  afterAll(() => server?.close());

  it("rejects with the server's Status", async () => {
    const client = new RESTClient({ host: server?.url ?? '', qps: -1 }, { groupVersion: 'v1' });
    const err = await rejectionOf(client.get().do());
    expect(isNotFound(err)).toBe(true);
    if (!isStatusError(err)) throw new Error('expected a StatusError');
    expect(err.status).toMatchObject(status);
  });
});

describe('TestHTTPMethods', () => {
  const client = new RESTClient({ host: 'http://127.0.0.1:1', qps: -1 }, { groupVersion: 'v1' });
  it.each([
    ['POST', () => client.post()],
    ['GET', () => client.get()],
    ['PUT', () => client.put()],
    ['DELETE', () => client.delete()],
    ['PATCH', () => client.patch(PatchType.JSONPatch)],
  ])('%s', (verb, start) => {
    expect(start().toJSON()).toMatchObject({ verb });
  });
});

describe('TestRESTClientLimiter', () => {
  const custom = new TokenBucketRateLimiter(11, 12);
  const rows: [
    name: string,
    config: Partial<Config>,
    limiter: [number, number] | 'custom' | undefined,
  ][] = [
    ['with no QPS', {}, [5, 10]],
    ['with QPS:10', { qps: 10 }, [10, 10]],
    ['with QPS:-1', { qps: -1 }, undefined],
    ['with RateLimiter', { rateLimiter: custom }, 'custom'],
  ];
  describe.each([
    ['Versioned', { groupVersion: 'v1' }],
    ['Unversioned', {}],
  ])('%s', (_kind, options) => {
    it.each(rows)('%s', (_name, config, limiter) => {
      const client = new RESTClient({ host: '127.0.0.1', ...config }, options);
      if (limiter === 'custom') expect(client.rateLimiter).toBe(custom);
      else if (limiter === undefined) expect(client.rateLimiter).toBeUndefined();
      else expect(client.rateLimiter).toMatchObject({ qps: limiter[0], burst: limiter[1] });
    });
  });
});
