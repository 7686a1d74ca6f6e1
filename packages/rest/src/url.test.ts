// Hostile input in a request path (issue #15): a name, namespace, resource, subresource,
// API group or version either makes the request fail before anything is sent, with an
// error naming the bad part, or reaches exactly the path that names it. The stub server
// records the path as it arrived on the wire.
import { rejectionOf } from '@kubets/test-utils';
import {
  decodedPathSegments,
  hostileGroups,
  hostileSegments,
  hostileVersions,
  notFoundServerForFile,
  type ObjectPathPart,
  objectPathParts,
} from '@kubets/test-utils/hostile-segments';
import { describe, expect, it } from 'vitest';
import { RESTClient } from './client.js';
import { isInvalidRequestError } from './errors.js';
import type { Request } from './request.js';

const server = await notFoundServerForFile();
const core = new RESTClient({ host: server.url, qps: -1, maxRetries: 0 }, { groupVersion: 'v1' });

function build(part: ObjectPathPart, value: string): Request {
  const values = { namespace: 'a', resource: 'configmaps', name: 'cm', subresource: undefined };
  const request = core
    .delete()
    .namespace(part === 'namespace' ? value : values.namespace)
    .resource(part === 'resource' ? value : values.resource)
    .name(part === 'name' ? value : values.name);
  return part === 'subresource' ? request.subresource(value) : request;
}

function expectedSegments(part: ObjectPathPart, value: string): string[] {
  return [
    'api',
    'v1',
    'namespaces',
    part === 'namespace' ? value : 'a',
    part === 'resource' ? value.toLowerCase() : 'configmaps',
    part === 'name' ? value : 'cm',
    ...(part === 'subresource' ? [value] : []),
  ];
}

describe.each(objectPathParts)('a hostile %s', (part) => {
  it.each(hostileSegments)('$label', async ({ value, refused }) => {
    const outcome = await rejectionOf(build(part, value).do());
    if (refused) {
      expect(isInvalidRequestError(outcome)).toBe(true);
      expect(outcome).toMatchObject({ part, value });
      expect((outcome as Error).message).toContain(`invalid ${part}`);
      expect(server.requests).toHaveLength(0);
      return;
    }
    // Sent: the server answered 404 for exactly this object, and nothing else was asked.
    expect(outcome).toMatchObject({ status: { code: 404 } });
    expect(server.requests).toHaveLength(1);
    const sent = server.requests[0];
    expect(sent?.method).toBe('DELETE');
    expect(decodedPathSegments(sent?.url ?? '')).toEqual(expectedSegments(part, value));
    expect(sent?.query.toString()).toBe('');
  });
});

describe('hostile API groups and versions', () => {
  it.each(hostileGroups)('group: $label', ({ value, refused }) => {
    const make = () =>
      new RESTClient({ host: server.url }, { groupVersion: { group: value, version: 'v1' } });
    if (refused) {
      expect(make).toThrow(expect.objectContaining({ part: 'group', value }));
      expect(make).toThrow(/invalid API group/);
    } else {
      expect(make().get().resource('things').url().pathname).toBe(
        value === '' ? '/api/v1/things' : `/apis/${value}/v1/things`,
      );
    }
  });

  it.each(hostileVersions)('version: $label', ({ value, refused }) => {
    const make = () =>
      new RESTClient({ host: server.url }, { groupVersion: { group: 'apps', version: value } });
    if (refused) {
      expect(make).toThrow(expect.objectContaining({ part: 'version', value }));
      expect(make).toThrow(/invalid API version/);
    } else {
      expect(make().get().resource('things').url().pathname).toBe(`/apis/apps/${value}/things`);
    }
  });
});

describe('a server base path', () => {
  const prefixed = new RESTClient(
    { host: 'https://127.0.0.1:6443/k8s/clusters/c1', qps: -1 },
    { groupVersion: 'apps/v1' },
  );

  it('stays under the base path whatever the name', () => {
    for (const { value, refused } of hostileSegments) {
      if (refused) continue;
      const url = prefixed.get().namespace(value).resource('deployments').name(value).url();
      expect(url.pathname.startsWith('/k8s/clusters/c1/apis/apps/v1/namespaces/')).toBe(true);
      expect(decodedPathSegments(url.pathname).slice(0, 9)).toEqual([
        'k8s',
        'clusters',
        'c1',
        'apis',
        'apps',
        'v1',
        'namespaces',
        value,
        'deployments',
      ]);
    }
  });

  it('refuses dot segments in absPath, suffix and apiPath instead of resolving them', async () => {
    for (const request of [
      prefixed.get().absPath('/apis/../../c2/version'),
      prefixed.get().absPath('..', 'c2'),
      prefixed.get().resource('pods').name('p').suffix('..', '..'),
      new RESTClient({ host: server.url }, { apiPath: '/api/../..' }).get(),
    ]) {
      await expect(request.do()).rejects.toSatisfy(isInvalidRequestError);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('escapes absPath and suffix segments instead of letting the URL parser rewrite them', () => {
    expect(prefixed.get().absPath('/version\\..\\..').url().pathname).toBe(
      '/k8s/clusters/c1/version%5C..%5C..',
    );
    expect(prefixed.get().absPath('%2e%2e', 'x').url().pathname).toBe(
      '/k8s/clusters/c1/%252e%252e/x',
    );
    expect(prefixed.get().resource('pods').name('p').suffix('a\tb').url().pathname).toBe(
      '/k8s/clusters/c1/apis/apps/v1/pods/p/a%09b',
    );
  });
});
