import { rejectionOf } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { okServer } from '../test/scripted-server.js';
import { RESTClient, restClientFor } from './client.js';
import { ConfigError, InvalidRequestError, isInvalidRequestError } from './errors.js';
import { PatchType } from './request.js';

const core = new RESTClient({ host: 'https://127.0.0.1:6443', qps: -1 }, { groupVersion: 'v1' });
const apps = restClientFor(
  { host: 'https://127.0.0.1:6443', qps: -1 },
  { group: 'apps', version: 'v1' },
);

/** A GET of one namespaced object, for the URL tests to extend. */
const getObject = (client: RESTClient, namespace: string, resource: string, name: string) =>
  client.get().namespace(namespace).resource(resource).name(name);

describe('Request URLs', () => {
  it('puts the core group under /api/v1', () => {
    const url = getObject(core, 'default', 'configmaps', 'x').url();
    expect(url.href).toBe('https://127.0.0.1:6443/api/v1/namespaces/default/configmaps/x');
  });

  it('puts other groups under /apis/<group>/<version>', () => {
    const url = getObject(apps, 'prod', 'deployments', 'web').subresource('scale').url();
    expect(url.pathname).toBe('/apis/apps/v1/namespaces/prod/deployments/web/scale');
  });

  it('lists across all namespaces for an empty namespace, and lowercases the resource', () => {
    expect(core.get().namespace('').resource('Pods').url().pathname).toBe('/api/v1/pods');
  });

  it('joins multi-part subresources and suffixes', () => {
    const url = getObject(core, 'ns', 'pods', 'p')
      .subresource('proxy')
      .suffix('metrics', 'x')
      .url();
    expect(url.pathname).toBe('/api/v1/namespaces/ns/pods/p/proxy/metrics/x');
  });

  it('keeps a base path of the host and encodes query parameters, repeated keys included', () => {
    const client = new RESTClient(
      { host: 'https://example.test/k8s/', qps: -1 },
      { groupVersion: 'v1' },
    );
    const url = client
      .get()
      .resource('pods')
      .param('labelSelector', 'app in (a,b),tier!=db')
      .params({ limit: 500, watch: false, fieldSelector: undefined, x: ['1', '2'] })
      .param('x', '3')
      .url();
    expect(url.pathname).toBe('/k8s/api/v1/pods');
    expect(url.searchParams.get('labelSelector')).toBe('app in (a,b),tier!=db');
    expect(url.searchParams.get('limit')).toBe('500');
    expect(url.searchParams.get('watch')).toBe('false');
    expect(url.searchParams.has('fieldSelector')).toBe(false);
    expect(url.searchParams.getAll('x')).toEqual(['1', '2', '3']);
    expect(url.search).toContain('labelSelector=app+in+%28a%2Cb%29%2Ctier%21%3Ddb');
  });

  it('absPath replaces the API path', () => {
    expect(core.get().absPath('/version').url().pathname).toBe('/version');
    expect(core.get().absPath('apis', 'apps', 'v1/').url().pathname).toBe('/apis/apps/v1/');
  });

  it('sends the timeout to the server as client-go does', () => {
    expect(core.get().resource('pods').timeout(1500).url().searchParams.get('timeout')).toBe(
      '1.5s',
    );
    expect(core.get().resource('pods').timeout(60_000).url().searchParams.get('timeout')).toBe(
      '1m0s',
    );
  });

  it('defaults the scheme from the TLS settings, like client-go', () => {
    expect(new RESTClient({ host: '10.0.0.1:8080', qps: -1 }).baseUrl).toBe('http://10.0.0.1:8080');
    expect(
      new RESTClient({ host: '10.0.0.1:6443', qps: -1, tls: { insecureSkipVerify: true } }).baseUrl,
    ).toBe('https://10.0.0.1:6443');
  });

  it('rejects unusable configurations', () => {
    expect(() => new RESTClient({ host: '' })).toThrow(ConfigError);
    expect(() => new RESTClient({ host: 'ftp://x' })).toThrow(/http or https/);
    expect(
      () => new RESTClient({ host: 'https://x', tls: { insecureSkipVerify: true, caData: 'pem' } }),
    ).toThrow(/insecureSkipVerify/);
    expect(() => new RESTClient({ host: 'https://x' }, { groupVersion: 'a/b/c' })).toThrow(
      /"a\/b\/c" is not a group\/version/,
    );
  });
});

describe('Request validation', () => {
  const ok = okServer();

  const cases: [string, (c: RESTClient) => Promise<unknown>, string, string, RegExp][] = [
    [
      'namespace twice',
      (c) => c.get().namespace('a').namespace('b').do(),
      'namespace',
      'b',
      /namespace already set to "a", cannot change to "b"/,
    ],
    [
      'resource twice',
      (c) => c.get().resource('pods').resource('secrets').do(),
      'resource',
      'secrets',
      /resource already set to "pods"/,
    ],
    [
      'name twice',
      (c) => c.get().resource('pods').name('a').name('b').do(),
      'name',
      'b',
      /resource name already set to "a"/,
    ],
    [
      'subresource twice',
      (c) => c.get().resource('pods').name('a').subresource('log').subresource('exec').do(),
      'subresource',
      'exec',
      /subresource already set to "log"/,
    ],
    [
      'empty name',
      (c) => c.get().resource('pods').name('').do(),
      'name',
      '',
      /resource name may not be empty/,
    ],
    [
      'name with a slash',
      (c) => c.get().resource('pods').name('a/b').do(),
      'name',
      'a/b',
      /invalid name "a\/b": may not contain '\/'/,
    ],
    [
      'name with a percent',
      (c) => c.get().resource('pods').name('100%').do(),
      'name',
      '100%',
      /may not contain '%'/,
    ],
    [
      'namespace ..',
      (c) => c.get().namespace('..').resource('pods').watch(),
      'namespace',
      '..',
      /invalid namespace "..": may not be '..'/,
    ],
    ['resource .', (c) => c.delete().resource('.').stream(), 'resource', '.', /may not be '.'/],
    [
      'subresource part with a slash',
      (c) => c.get().resource('pods').name('a').subresource('x', 'y/z').doRaw(),
      'subresource',
      'y/z',
      /invalid subresource "y\/z"/,
    ],
    // client-go's requestPreflightCheck, run by Do/DoRaw only.
    ...(['get', 'put', 'delete'] as const).map((verb): (typeof cases)[number] => [
      `${verb.toUpperCase()} of a name in the empty namespace`,
      (c) => c[verb]().namespace('').resource('pods').name('a').do(),
      'namespace',
      '',
      /^an empty namespace may not be set when a resource name is provided$/,
    ]),
    [
      'a create in the empty namespace',
      (c) => c.post().namespace('').resource('pods').body({}).doRaw(),
      'namespace',
      '',
      /^an empty namespace may not be set during creation$/,
    ],
  ];

  it('sends what the empty-namespace check allows: lists, PATCH, watch and stream', async () => {
    const before = ok.server.requests.length;
    await ok.client.get().namespace('').resource('pods').do();
    await ok.client
      .patch(PatchType.MergePatch)
      .namespace('')
      .resource('pods')
      .name('a')
      .body({})
      .do();
    const watch = await ok.client.get().namespace('').resource('pods').name('a').watch();
    watch.stop();
    const stream = await ok.client.get().namespace('').resource('pods').name('a').stream();
    stream.destroy();
    expect(ok.server.requests.slice(before).map((request) => request.url)).toEqual([
      '/api/v1/pods',
      '/api/v1/pods/a',
      '/api/v1/pods/a?watch=true',
      '/api/v1/pods/a',
    ]);
  });

  it('ignores path, query, body and timeout calls once the request has failed', () => {
    const failed = ok.client.get().resource('pods').name('a/b');
    const before = failed.url().href;
    failed.suffix('x').absPath('/y').param('p', '1').params({ q: '2' }).timeout(1000).body('{}');
    expect(failed.url().href).toBe(before);
    expect(failed.toJSON()).not.toHaveProperty('bodyBytes');
  });

  for (const [title, send, part, value, message] of cases) {
    it(`rejects ${title} when the request is sent, without sending it`, async () => {
      const before = ok.server.requests.length;
      const error = await rejectionOf(send(ok.client));
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect(isInvalidRequestError(error)).toBe(true);
      expect(error).toMatchObject({ part, value, message: expect.stringMatching(message) });
      expect(ok.server.requests.length).toBe(before);
    });
  }

  it('keeps the first mistake', async () => {
    await expect(
      ok.client.get().namespace('a/b').namespace('c').resource('pods').do(),
    ).rejects.toMatchObject({ part: 'namespace', value: 'a/b' });
  });

  it('sends the patch type as Content-Type', async () => {
    await ok.client
      .patch(PatchType.StrategicMergePatch)
      .resource('nodes')
      .name('n1')
      .body({ spec: {} })
      .do();
    expect(ok.server.requests.at(-1)?.headers['content-type']).toBe(
      'application/strategic-merge-patch+json',
    );
    expect(PatchType).toEqual({
      JSONPatch: 'application/json-patch+json',
      MergePatch: 'application/merge-patch+json',
      StrategicMergePatch: 'application/strategic-merge-patch+json',
      ApplyPatch: 'application/apply-patch+yaml',
    });
  });
});
