import { isNotFound, parseSelector, type WatchEvent } from '@kubets/apimachinery';
import { isInvalidRequestError, PatchType, type RequestRateLimiter } from '@kubets/rest';
import { type StubServer, sendJson, startStubServer } from '@kubets/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DynamicClient, dynamicClientFor } from './client.js';
import type { Unstructured } from './unstructured.js';

let server: StubServer;
let dynamic: DynamicClient;

const pods = { group: '', version: 'v1', resource: 'pods' };
const deployments = { group: 'apps', version: 'v1', resource: 'deployments' };

function widget(name: string, extra: Record<string, unknown> = {}): Unstructured {
  return {
    apiVersion: 'e2e.kubets.dev/v1',
    kind: 'Widget',
    metadata: { name, namespace: 'ns1' },
    ...extra,
  };
}

beforeEach(async () => {
  server = await startStubServer();
  dynamic = new DynamicClient({ host: server.url, qps: -1 });
});

afterEach(async () => {
  await server.close();
});

function last() {
  const request = server.requests.at(-1);
  if (!request) throw new Error('no request was sent');
  return request;
}

describe('DynamicClient URLs', () => {
  it('puts the core group under /api and others under /apis, namespaced or not', async () => {
    await dynamic.resource(pods).namespace('default').get('web');
    expect(last().path).toBe('/api/v1/namespaces/default/pods/web');

    await dynamic.resource(deployments).namespace('team-a').get('api');
    expect(last().path).toBe('/apis/apps/v1/namespaces/team-a/deployments/api');

    await dynamic.resource({ group: '', version: 'v1', resource: 'namespaces' }).get('team-a');
    expect(last().path).toBe('/api/v1/namespaces/team-a');

    await dynamic
      .resource({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' })
      .list();
    expect(last().path).toBe('/apis/rbac.authorization.k8s.io/v1/clusterroles');

    await dynamic.resource(deployments).namespace('').list();
    expect(last().path).toBe('/apis/apps/v1/deployments');
  });

  it('accepts a GVR as a string in kubectl or URL form', async () => {
    await dynamic.resource('deployments.v1.apps').namespace('x').list();
    expect(last().path).toBe('/apis/apps/v1/namespaces/x/deployments');
    await dynamic.resource('pods.v1.').namespace('x').list();
    expect(last().path).toBe('/api/v1/namespaces/x/pods');
    await dynamic.resource('apps/v1/replicasets').list();
    expect(last().path).toBe('/apis/apps/v1/replicasets');
    expect(() => dynamic.resource({ group: 'apps', version: '', resource: 'deployments' })).toThrow(
      'needs a version',
    );
  });

  it('reaches subresources through the extra arguments', async () => {
    await dynamic.resource(deployments).namespace('ns').get('web', {}, 'scale');
    expect(last().path).toBe('/apis/apps/v1/namespaces/ns/deployments/web/scale');
    await dynamic
      .resource(pods)
      .namespace('ns')
      .create(
        {
          apiVersion: 'policy/v1beta1',
          kind: 'Eviction',
          metadata: { name: 'p1', namespace: 'ns' },
        },
        {},
        'eviction',
      );
    expect(last().method).toBe('POST');
    expect(last().path).toBe('/api/v1/namespaces/ns/pods/p1/eviction');
  });

  it('rejects invalid names and namespaces without sending anything', async () => {
    const bad = [
      dynamic.resource(pods).namespace('a/b').get('x'),
      dynamic.resource(pods).namespace('ns').get('..'),
      dynamic.resource(pods).namespace('ns').get(''),
      dynamic
        .resource(pods)
        .namespace('ns')
        .update({ apiVersion: 'v1', kind: 'Pod', metadata: {} }),
      dynamic.resource(pods).namespace('ns').patch('', PatchType.MergePatch, {}),
      dynamic.resource(pods).namespace('ns').delete('a%2Fb'),
    ];
    for (const call of bad) await expect(call).rejects.toSatisfy(isInvalidRequestError);
    expect(server.requests).toHaveLength(0);
  });

  it('reports server errors as StatusErrors', async () => {
    server.handler = (_r, response) =>
      sendJson(response, 404, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'NotFound',
        code: 404,
        message: 'widgets.e2e.kubets.dev "nope" not found',
      });
    await expect(
      dynamic.resource('widgets.v1.e2e.kubets.dev').namespace('ns').get('nope'),
    ).rejects.toSatisfy(isNotFound);
  });
});

describe('DynamicClient verbs', () => {
  it('lists with selectors and paging, giving items the list apiVersion and kind', async () => {
    server.handler = (_r, response) =>
      sendJson(response, 200, {
        apiVersion: 'v1',
        kind: 'PodList',
        metadata: { resourceVersion: '42', continue: 'next' },
        items: [
          { metadata: { name: 'a' } },
          { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'b' } },
        ],
      });
    const list = await dynamic
      .resource(pods)
      .namespace('default')
      .list({
        labelSelector: parseSelector('app=web,tier!=db'),
        fieldSelector: 'status.phase=Pending',
        limit: 500,
        continue: 'tok',
        resourceVersion: '0',
        resourceVersionMatch: 'NotOlderThan',
      });
    const query = last().query;
    expect(query.get('labelSelector')).toBe('app=web,tier!=db');
    expect(query.get('fieldSelector')).toBe('status.phase=Pending');
    expect(query.get('limit')).toBe('500');
    expect(query.get('continue')).toBe('tok');
    expect(query.get('resourceVersion')).toBe('0');
    expect(query.get('resourceVersionMatch')).toBe('NotOlderThan');
    expect(query.has('signal')).toBe(false);
    expect(list.metadata).toEqual({ resourceVersion: '42', continue: 'next' });
    expect(list.items.map((i) => [i.apiVersion, i.kind, i.metadata.name])).toEqual([
      ['v1', 'Pod', 'a'],
      ['v1', 'Pod', 'b'],
    ]);
  });

  it('fills items of a custom resource list too, and copes with null items', async () => {
    server.handler = (_r, response) =>
      sendJson(response, 200, {
        apiVersion: 'e2e.kubets.dev/v1',
        kind: 'WidgetList',
        metadata: {},
        items: null,
      });
    expect((await dynamic.resource('widgets.v1.e2e.kubets.dev').list()).items).toEqual([]);
    server.handler = (_r, response) =>
      sendJson(response, 200, {
        apiVersion: 'e2e.kubets.dev/v1',
        kind: 'WidgetList',
        metadata: {},
        items: [{ metadata: { name: 'w' } }],
      });
    const list = await dynamic.resource('widgets.v1.e2e.kubets.dev').list();
    expect(list.items[0]).toMatchObject({ apiVersion: 'e2e.kubets.dev/v1', kind: 'Widget' });
  });

  it('decodes a watch into Unstructured events', async () => {
    server.handler = (_r, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write(`${JSON.stringify({ type: 'ADDED', object: widget('w1') })}\n`);
      response.write(
        `${JSON.stringify({ type: 'MODIFIED', object: widget('w1', { spec: { size: 2 } }) })}\n`,
      );
      response.end(`${JSON.stringify({ type: 'DELETED', object: widget('w1') })}\n`);
    };
    const events: WatchEvent<Unstructured>[] = [];
    const watch = await dynamic
      .resource('widgets.v1.e2e.kubets.dev')
      .namespace('ns1')
      .watch({ resourceVersion: '10', allowWatchBookmarks: true, timeoutSeconds: 30 });
    for await (const event of watch) events.push(event);
    expect(last().path).toBe('/apis/e2e.kubets.dev/v1/namespaces/ns1/widgets');
    expect(last().query.get('watch')).toBe('true');
    expect(last().query.get('resourceVersion')).toBe('10');
    expect(last().query.get('allowWatchBookmarks')).toBe('true');
    expect(last().query.get('timeoutSeconds')).toBe('30');
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    const modified = events[1];
    expect(modified?.type === 'MODIFIED' && modified.object.spec).toEqual({ size: 2 });
  });

  it('creates and updates with JSON bodies and create options', async () => {
    const created = await dynamic
      .resource('widgets.v1.e2e.kubets.dev')
      .namespace('ns1')
      .create(widget('w1'), { fieldManager: 'me', dryRun: true, fieldValidation: 'Strict' });
    expect(created.metadata.name).toBe('w1');
    expect(last().method).toBe('POST');
    expect(last().path).toBe('/apis/e2e.kubets.dev/v1/namespaces/ns1/widgets');
    expect(last().headers['content-type']).toBe('application/json');
    expect(JSON.parse(last().body)).toEqual(widget('w1'));
    expect(last().query.getAll('dryRun')).toEqual(['All']);
    expect(last().query.get('fieldManager')).toBe('me');
    expect(last().query.get('fieldValidation')).toBe('Strict');

    await dynamic.resource('widgets.v1.e2e.kubets.dev').namespace('ns1').update(widget('w1'));
    expect([last().method, last().path]).toEqual([
      'PUT',
      '/apis/e2e.kubets.dev/v1/namespaces/ns1/widgets/w1',
    ]);

    await dynamic
      .resource('widgets.v1.e2e.kubets.dev')
      .namespace('ns1')
      .updateStatus(widget('w1', { status: { ready: true } }));
    expect([last().method, last().path]).toEqual([
      'PUT',
      '/apis/e2e.kubets.dev/v1/namespaces/ns1/widgets/w1/status',
    ]);
  });

  it('fills apiVersion from the GVR and kind from the resource options on create, update and apply', async () => {
    const bare = { metadata: { name: 'w1', namespace: 'ns1' } };
    const typed = dynamic
      .resource('widgets.v1.e2e.kubets.dev', { kind: 'Widget' })
      .namespace('ns1');
    const writes = [
      () => typed.create(bare),
      () => typed.update(bare),
      () => typed.updateStatus(bare),
      () => typed.apply('w1', bare, { fieldManager: 'me' }),
    ];
    for (const write of writes) {
      await write();
      expect(JSON.parse(last().body)).toEqual(widget('w1'));
    }
    // Without a kind only the apiVersion is known; bodies for other subresources stay as sent.
    await dynamic.resource('widgets.v1.e2e.kubets.dev').namespace('ns1').create(bare);
    expect(JSON.parse(last().body)).toEqual({ apiVersion: 'e2e.kubets.dev/v1', ...bare });
    await typed.update(bare, {}, 'scale');
    expect(JSON.parse(last().body)).toEqual(bare);
  });

  it('patches with the patch type as content type, and applies with fieldManager and force', async () => {
    const widgets = dynamic.resource('widgets.v1.e2e.kubets.dev').namespace('ns1');
    await widgets.patch('w1', PatchType.MergePatch, { spec: { size: 3 } });
    expect([last().method, last().path]).toEqual([
      'PATCH',
      '/apis/e2e.kubets.dev/v1/namespaces/ns1/widgets/w1',
    ]);
    expect(last().headers['content-type']).toBe('application/merge-patch+json');
    expect(JSON.parse(last().body)).toEqual({ spec: { size: 3 } });

    await widgets.patch('w1', PatchType.JSONPatch, '[{"op":"remove","path":"/spec/size"}]');
    expect(last().headers['content-type']).toBe('application/json-patch+json');
    expect(last().body).toBe('[{"op":"remove","path":"/spec/size"}]');

    await widgets.apply('w1', widget('w1', { spec: { size: 4 } }), {
      fieldManager: 'kubets',
      force: true,
    });
    expect(last().headers['content-type']).toBe('application/apply-patch+yaml');
    expect(last().query.get('fieldManager')).toBe('kubets');
    expect(last().query.get('force')).toBe('true');

    await widgets.applyStatus('w1', widget('w1', { status: { ok: true } }), {
      fieldManager: 'kubets',
    });
    expect(last().path).toBe('/apis/e2e.kubets.dev/v1/namespaces/ns1/widgets/w1/status');
    expect(last().query.has('force')).toBe(false);

    const requests = server.requests.length;
    await expect(widgets.apply('w1', widget('w1'), { fieldManager: '' })).rejects.toThrow(
      'fieldManager',
    );
    expect(server.requests).toHaveLength(requests);
  });

  it('sends delete options as a JSON body', async () => {
    const widgets = dynamic.resource('widgets.v1.e2e.kubets.dev').namespace('ns1');
    await widgets.delete('w1', {
      propagationPolicy: 'Foreground',
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u-1', resourceVersion: '7' },
      dryRun: true,
    });
    expect([last().method, last().path]).toEqual([
      'DELETE',
      '/apis/e2e.kubets.dev/v1/namespaces/ns1/widgets/w1',
    ]);
    expect(last().headers['content-type']).toBe('application/json');
    expect(JSON.parse(last().body)).toEqual({
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Foreground',
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u-1', resourceVersion: '7' },
      dryRun: ['All'],
    });
    expect([...last().query.keys()]).toEqual([]);

    await widgets.delete('w2');
    expect(JSON.parse(last().body)).toEqual({ kind: 'DeleteOptions', apiVersion: 'v1' });

    await widgets.deleteCollection(
      { propagationPolicy: 'Background' },
      { labelSelector: 'app=web' },
    );
    expect([last().method, last().path]).toEqual([
      'DELETE',
      '/apis/e2e.kubets.dev/v1/namespaces/ns1/widgets',
    ]);
    expect(last().query.get('labelSelector')).toBe('app=web');
    expect(JSON.parse(last().body)).toEqual({
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Background',
    });
  });

  it('shares one rate limiter across every group-version', async () => {
    let waits = 0;
    const limiter: RequestRateLimiter = {
      qps: 1,
      tryAccept: () => true,
      wait: async () => {
        waits++;
      },
    };
    const limited = dynamicClientFor({ host: server.url, rateLimiter: limiter });
    await limited.resource(pods).namespace('a').get('x');
    await limited.resource(deployments).namespace('a').get('y');
    await limited.resource('widgets.v1.e2e.kubets.dev').list();
    expect(waits).toBe(3);

    const own = new DynamicClient({ host: server.url, qps: 5, burst: 10 });
    expect(own.rateLimiter).toBeDefined();
    const core = own.restClient({ group: '', version: 'v1' });
    const apps = own.restClient({ group: 'apps', version: 'v1' });
    expect(core).not.toBe(apps);
    expect(core.rateLimiter).toBe(own.rateLimiter);
    expect(apps.rateLimiter).toBe(own.rateLimiter);
    expect(own.restClient({ group: 'apps', version: 'v1' })).toBe(apps);
  });

  it('stops a request when its signal aborts', async () => {
    server.handler = () => undefined; // never answers
    const controller = new AbortController();
    const pending = dynamic
      .resource(pods)
      .namespace('ns')
      .get('slow', { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(new Error('cancelled'));
    await expect(pending).rejects.toThrow('cancelled');
  });
});
