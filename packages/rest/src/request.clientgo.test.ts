// client-go's rest/request_test.go, as data: each describe is one Go test, keeping its
// inputs and expectations. Go-only cases are listed in the package README.

import {
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isNotFound,
  isStatusError,
  type StatusError,
} from '@kubets/apimachinery';
import { rejectionOf, type StubServer, sendJson, startStubServer } from '@kubets/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESTClient } from './client.js';
import { InvalidRequestError } from './errors.js';
import type { Request } from './request.js';

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
  let server: StubServer;
  let live: RESTClient;
  beforeAll(async () => {
    server = await startStubServer((_request, response) => sendJson(response, 200, {}));
    live = new RESTClient({ host: server.url, qps: -1 }, { groupVersion: 'v1' });
  });
  afterAll(() => server.close());

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
      let request = live[verb]().resource('pods');
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
  const rows: {
    resource?: string;
    name?: string;
    verb: 'post' | 'put' | 'get';
    code: number;
    body: string;
    errFn: (err: unknown) => boolean;
    transformed?: { status: string; code: number };
  }[] = [
    { resource: 'foo', name: 'bar', verb: 'post', code: 409, body: '', errFn: isAlreadyExists },
    { resource: 'foo', name: 'bar', verb: 'put', code: 409, body: '', errFn: isConflict },
    { resource: 'foo', name: 'bar', verb: 'get', code: 404, body: '', errFn: isNotFound },
    { verb: 'get', code: 400, body: '', errFn: isBadRequest },
    {
      verb: 'get',
      code: 400,
      body: '{"kind":"Status","apiVersion":"v1","status":"Failure","code":404}',
      errFn: isBadRequest,
      transformed: { status: 'Failure', code: 404 },
    },
    {
      verb: 'get',
      code: 400,
      body: '{"kind":"Status","apiVersion":"v1","status":"Success","code":404}',
      errFn: isBadRequest,
    },
    { verb: 'get', code: 400, body: '{}', errFn: isBadRequest },
    {
      verb: 'get',
      code: 400,
      body: '{"kind":"Status","status":"Failure","code":404}',
      errFn: isBadRequest,
      transformed: { status: 'Failure', code: 404 },
    },
    { verb: 'get', code: 400, body: '{"status":"Failure","code":404}', errFn: isBadRequest },
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
