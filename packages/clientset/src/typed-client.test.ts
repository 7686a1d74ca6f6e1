import {
  isConflict,
  isNotFound,
  isStatusError,
  parseFieldSelector,
  parseSelector,
} from '@kubets/apimachinery';
import { isInvalidRequestError, PatchType } from '@kubets/rest';
import {
  echo,
  type RecordedRequest,
  rejectionOf,
  type StubServer,
  sendJson,
  startStubServer,
} from '@kubets/test-utils';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Clientset } from './clientset.js';
import { defineResource } from './descriptor.js';
import { isStatus, StatusResourceClient, TypedResourceClient } from './typed-client.js';

let server: StubServer;
let clientset: Clientset;

function last(): RecordedRequest {
  const request = server.requests.at(-1);
  if (!request) throw new Error('no request received');
  return request;
}

function pod(name: string, namespace?: string): Pod {
  return { metadata: { name, ...(namespace ? { namespace } : {}) }, spec: { containers: [] } };
}

beforeEach(async () => {
  server = await startStubServer(echo);
  clientset = new Clientset({ host: server.url, qps: -1 });
});

afterEach(async () => {
  await server.close();
});

describe('URLs', () => {
  it('addresses namespaced core resources under /api/v1/namespaces/<ns>', async () => {
    await clientset.coreV1().pods('ns1').get('p1');
    expect(last().method).toBe('GET');
    expect(last().path).toBe('/api/v1/namespaces/ns1/pods/p1');
  });

  it('addresses non-core groups under /apis/<group>/<version>', async () => {
    await clientset.appsV1().deployments('ns1').get('web');
    expect(last().path).toBe('/apis/apps/v1/namespaces/ns1/deployments/web');
    await clientset.rbacV1().clusterRoles().get('admin');
    expect(last().path).toBe('/apis/rbac.authorization.k8s.io/v1/clusterroles/admin');
    await clientset.batchV1beta1().cronJobs('ns1').list();
    expect(last().path).toBe('/apis/batch/v1beta1/namespaces/ns1/cronjobs');
    await clientset.policyV1beta1().podDisruptionBudgets('ns1').list();
    expect(last().path).toBe('/apis/policy/v1beta1/namespaces/ns1/poddisruptionbudgets');
  });

  it('addresses cluster-scoped resources without a namespace', async () => {
    await clientset.coreV1().nodes().get('node-a');
    expect(last().path).toBe('/api/v1/nodes/node-a');
    await clientset.coreV1().namespaces().list();
    expect(last().path).toBe('/api/v1/namespaces');
    await clientset.storageV1().storageClasses().list();
    expect(last().path).toBe('/apis/storage.k8s.io/v1/storageclasses');
  });

  it('lists and watches across all namespaces when no namespace is given', async () => {
    await clientset.coreV1().pods().list();
    expect(last().path).toBe('/api/v1/pods');
    await clientset.appsV1().deployments('').list();
    expect(last().path).toBe('/apis/apps/v1/deployments');
  });

  it('refuses calls on one object of a namespaced resource without a namespace, sending nothing', async () => {
    const pods = clientset.coreV1().pods();
    for (const call of [
      () => pods.get('x'),
      () => pods.delete('x'),
      () => pods.patch('x', PatchType.MergePatch, {}),
      () => pods.create(pod('x')),
      () => pods.update(pod('x')),
      () => pods.deleteCollection(),
      () => pods.getLog('x'),
    ]) {
      const err = await rejectionOf(call());
      expect(isInvalidRequestError(err)).toBe(true);
      expect((err as Error).message).toMatch(/pods is namespaced: \w+ needs a namespace/);
    }
    expect(server.requests).toHaveLength(0);
  });

  it("uses the object's namespace for create/update/apply when the client has none", async () => {
    const pods = clientset.coreV1().pods();
    await pods.create(pod('a', 'ns2'));
    expect(last().path).toBe('/api/v1/namespaces/ns2/pods');
    await pods.update(pod('a', 'ns2'));
    expect(last().path).toBe('/api/v1/namespaces/ns2/pods/a');
    await pods.apply(pod('a', 'ns2'), { fieldManager: 'me' });
    expect(last().path).toBe('/api/v1/namespaces/ns2/pods/a');
  });

  it('rejects a namespace for a cluster-scoped resource', () => {
    const nodes = defineResource<Pod>({
      group: '',
      version: 'v1',
      resource: 'nodes',
      kind: 'Node',
      namespaced: false,
    });
    expect(() => new TypedResourceClient(clientset.coreV1().restClient, nodes, 'x')).toThrow(
      /nodes is cluster-scoped/,
    );
  });

  it('rejects names that are not path segments before sending', async () => {
    const err = await rejectionOf(clientset.coreV1().pods('ns').get('a/b'));
    expect(isInvalidRequestError(err)).toBe(true);
    expect(server.requests).toHaveLength(0);
  });
});

describe('query parameters', () => {
  it('sends list options', async () => {
    await clientset.coreV1().pods('ns').list({
      labelSelector: 'app=web,tier!=db',
      fieldSelector: 'spec.nodeName=n1',
      limit: 500,
      continue: 'tok',
      resourceVersion: '0',
      resourceVersionMatch: 'NotOlderThan',
      timeoutSeconds: 30,
    });
    const query = Object.fromEntries(last().query);
    expect(query).toEqual({
      labelSelector: 'app=web,tier!=db',
      fieldSelector: 'spec.nodeName=n1',
      limit: '500',
      continue: 'tok',
      resourceVersion: '0',
      resourceVersionMatch: 'NotOlderThan',
      timeoutSeconds: '30',
    });
  });

  it('accepts parsed selectors and omits empty ones', async () => {
    await clientset
      .coreV1()
      .pods('ns')
      .list({
        labelSelector: parseSelector('b=2, a in (x,y)'),
        fieldSelector: parseFieldSelector('metadata.name=p'),
      });
    expect(last().query.get('labelSelector')).toBe('a in (x,y),b=2');
    expect(last().query.get('fieldSelector')).toBe('metadata.name=p');
    await clientset.coreV1().pods('ns').list({ labelSelector: '', continue: '' });
    expect([...last().query.keys()]).toEqual([]);
  });

  it('sends get options', async () => {
    await clientset.coreV1().configMaps('ns').get('cm', { resourceVersion: '0' });
    expect(last().url).toBe('/api/v1/namespaces/ns/configmaps/cm?resourceVersion=0');
  });

  it('sends write options: dryRun=All, fieldManager, fieldValidation', async () => {
    const created = await clientset
      .coreV1()
      .configMaps('ns')
      .create(
        { metadata: { name: 'cm' }, data: { a: '1' } },
        { dryRun: true, fieldManager: 'tests', fieldValidation: 'Strict' },
      );
    expect(last().method).toBe('POST');
    expect(last().path).toBe('/api/v1/namespaces/ns/configmaps');
    expect(Object.fromEntries(last().query)).toEqual({
      dryRun: 'All',
      fieldManager: 'tests',
      fieldValidation: 'Strict',
    });
    expect(last().headers['content-type']).toBe('application/json');
    expect(JSON.parse(last().body)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm' },
      data: { a: '1' },
    });
    expect(created.metadata?.resourceVersion).toBe('7');
  });

  it('sends timeoutMs as the timeout parameter', async () => {
    await clientset.coreV1().pods('ns').get('p', { timeoutMs: 1500 });
    expect(last().query.get('timeout')).toBe('1.5s');
  });
});

describe('writes', () => {
  it('update PUTs the object to its name; updateStatus to /status', async () => {
    const pods = clientset.coreV1().pods('ns');
    await pods.update({ ...pod('p'), metadata: { name: 'p', resourceVersion: '3' } });
    expect(last().method).toBe('PUT');
    expect(last().path).toBe('/api/v1/namespaces/ns/pods/p');
    expect(JSON.parse(last().body).metadata.resourceVersion).toBe('3');
    await pods.updateStatus({ ...pod('p'), status: { phase: 'Running' } });
    expect(last().method).toBe('PUT');
    expect(last().path).toBe('/api/v1/namespaces/ns/pods/p/status');
    expect(JSON.parse(last().body).status).toEqual({ phase: 'Running' });
    await pods.getStatus('p');
    expect(last().path).toBe('/api/v1/namespaces/ns/pods/p/status');
  });

  it('update needs metadata.name', async () => {
    const err = await rejectionOf(
      clientset
        .coreV1()
        .pods('ns')
        .update({ spec: { containers: [] } }),
    );
    expect(isInvalidRequestError(err)).toBe(true);
    expect(server.requests).toHaveLength(0);
  });

  it('sends each patch type with its content type', async () => {
    const deployments = clientset.appsV1().deployments('ns');
    await deployments.patch('d', PatchType.JSONPatch, [
      { op: 'replace', path: '/spec/replicas', value: 2 },
    ]);
    expect(last().method).toBe('PATCH');
    expect(last().path).toBe('/apis/apps/v1/namespaces/ns/deployments/d');
    expect(last().headers['content-type']).toBe('application/json-patch+json');
    expect(JSON.parse(last().body)).toEqual([{ op: 'replace', path: '/spec/replicas', value: 2 }]);

    await deployments.patch('d', PatchType.MergePatch, { spec: { replicas: 3 } });
    expect(last().headers['content-type']).toBe('application/merge-patch+json');

    await deployments.patch('d', PatchType.StrategicMergePatch, { spec: { replicas: 4 } });
    expect(last().headers['content-type']).toBe('application/strategic-merge-patch+json');

    await deployments.patchStatus('d', PatchType.MergePatch, { status: { replicas: 1 } });
    expect(last().path).toBe('/apis/apps/v1/namespaces/ns/deployments/d/status');
  });

  it('apply sends an apply patch with fieldManager and force, filling in apiVersion and kind', async () => {
    await clientset
      .appsV1()
      .deployments('ns')
      .apply(
        { metadata: { name: 'd' }, spec: { replicas: 2 } },
        {
          fieldManager: 'mgr',
          force: true,
        },
      );
    const request = last();
    expect(request.method).toBe('PATCH');
    expect(request.path).toBe('/apis/apps/v1/namespaces/ns/deployments/d');
    expect(request.headers['content-type']).toBe('application/apply-patch+yaml');
    expect(Object.fromEntries(request.query)).toEqual({ fieldManager: 'mgr', force: 'true' });
    expect(JSON.parse(request.body)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { replicas: 2 },
    });
  });

  it('an apply patch without fieldManager, or force on another patch type, is refused', async () => {
    const pods = clientset.coreV1().pods('ns');
    const noManager = await rejectionOf(pods.patch('p', PatchType.ApplyPatch, '{}'));
    expect(isInvalidRequestError(noManager)).toBe(true);
    const force = await rejectionOf(pods.patch('p', PatchType.MergePatch, {}, { force: true }));
    expect(isInvalidRequestError(force)).toBe(true);
    expect(server.requests).toHaveLength(0);
  });
});

describe('delete', () => {
  it('sends DeleteOptions as the body and dryRun in the query', async () => {
    await clientset
      .appsV1()
      .deployments('ns')
      .delete('d', {
        propagationPolicy: 'Foreground',
        preconditions: { uid: 'u-1', resourceVersion: '9' },
        gracePeriodSeconds: 0,
        dryRun: true,
      });
    const request = last();
    expect(request.method).toBe('DELETE');
    expect(request.path).toBe('/apis/apps/v1/namespaces/ns/deployments/d');
    expect(request.query.get('dryRun')).toBe('All');
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body)).toEqual({
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u-1', resourceVersion: '9' },
      gracePeriodSeconds: 0,
      dryRun: ['All'],
    });
  });

  it('resolves with the Status or the terminating object the server answers', async () => {
    await server.close();
    server = await startStubServer((request, response) => {
      if (request.path.endsWith('/gone')) {
        sendJson(response, 200, { kind: 'Status', apiVersion: 'v1', status: 'Success' });
      } else {
        sendJson(response, 200, {
          kind: 'Pod',
          metadata: { name: 'slow', deletionTimestamp: 'x' },
        });
      }
    });
    clientset = new Clientset({ host: server.url, qps: -1 });
    const gone = await clientset.coreV1().pods('ns').delete('gone');
    expect(isStatus(gone)).toBe(true);
    const slow = await clientset.coreV1().pods('ns').delete('slow');
    expect(isStatus(slow)).toBe(false);
    expect((slow as Pod).metadata?.deletionTimestamp).toBe('x');
  });

  it('deleteCollection sends list options in the query and delete options in the body', async () => {
    await clientset
      .coreV1()
      .pods('ns')
      .deleteCollection(
        { propagationPolicy: 'Background', gracePeriodSeconds: 5 },
        { labelSelector: 'app=web', fieldSelector: 'status.phase=Failed', limit: 10 },
      );
    const request = last();
    expect(request.method).toBe('DELETE');
    expect(request.path).toBe('/api/v1/namespaces/ns/pods');
    expect(Object.fromEntries(request.query)).toEqual({
      labelSelector: 'app=web',
      fieldSelector: 'status.phase=Failed',
      limit: '10',
    });
    expect(JSON.parse(request.body)).toEqual({
      propagationPolicy: 'Background',
      gracePeriodSeconds: 5,
    });
  });
});

describe('errors', () => {
  it("rejects with rest's StatusError carrying the server's Status", async () => {
    await server.close();
    server = await startStubServer((request, response) => {
      const conflict = request.method === 'PUT';
      sendJson(response, conflict ? 409 : 404, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: conflict ? 'Conflict' : 'NotFound',
        code: conflict ? 409 : 404,
        message: conflict ? 'the object has been modified' : 'pods "p" not found',
      });
    });
    clientset = new Clientset({ host: server.url, qps: -1 });
    const notFound = await rejectionOf(clientset.coreV1().pods('ns').get('p'));
    expect(isStatusError(notFound) && isNotFound(notFound)).toBe(true);
    expect((notFound as Error).message).toBe('pods "p" not found');
    const conflict = await rejectionOf(clientset.coreV1().pods('ns').update(pod('p')));
    expect(isConflict(conflict)).toBe(true);
  });

  it('aborting the signal cancels the call', async () => {
    await server.close();
    server = await startStubServer(() => {
      // never answers
    });
    clientset = new Clientset({ host: server.url, qps: -1 });
    const controller = new AbortController();
    const pending = clientset.coreV1().pods('ns').get('p', { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 20);
    await expect(pending).rejects.toThrow('stop');
  });
});

describe('watch', () => {
  it('sends watch parameters and yields typed events', async () => {
    await server.close();
    server = await startStubServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write(`${JSON.stringify({ type: 'ADDED', object: pod('a', 'ns') })}\n`);
      response.write(`${JSON.stringify({ type: 'MODIFIED', object: pod('a', 'ns') })}\n`);
      response.end(`${JSON.stringify({ type: 'DELETED', object: pod('a', 'ns') })}\n`);
    });
    clientset = new Clientset({ host: server.url, qps: -1 });
    const watch = await clientset.coreV1().pods().watch({
      resourceVersion: '10',
      allowWatchBookmarks: true,
      sendInitialEvents: false,
      labelSelector: 'app=web',
      timeoutSeconds: 300,
    });
    const seen: string[] = [];
    for await (const event of watch) {
      if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED') {
        seen.push(`${event.type} ${event.object.metadata?.name}`);
      }
    }
    expect(seen).toEqual(['ADDED a', 'MODIFIED a', 'DELETED a']);
    expect(last().path).toBe('/api/v1/pods');
    expect(Object.fromEntries(last().query)).toEqual({
      labelSelector: 'app=web',
      resourceVersion: '10',
      timeoutSeconds: '300',
      allowWatchBookmarks: 'true',
      sendInitialEvents: 'false',
      watch: 'true',
    });
  });
});

describe('subresource guards', () => {
  it('status and scale methods of the generic client need the descriptor to list them', async () => {
    interface Widget {
      metadata?: { name?: string; namespace?: string };
      spec?: { size: number };
    }
    const widgets = defineResource<Widget>({
      group: 'example.com',
      version: 'v1',
      resource: 'widgets',
      kind: 'Widget',
      namespaced: true,
    });
    const client = clientset.resource(widgets, 'ns');
    for (const call of [
      () => client.updateStatus({ metadata: { name: 'w' } }),
      () => client.getStatus('w'),
      () => client.getScale('w'),
      () => client.updateScale('w', { spec: { replicas: 1 } }),
    ]) {
      const err = await rejectionOf(call());
      expect(isInvalidRequestError(err)).toBe(true);
      expect((err as Error).message).toMatch(/widgets has no (status|scale) subresource/);
    }
    expect(server.requests).toHaveLength(0);

    const withStatus = new StatusResourceClient(
      clientset.restClientFor({ group: 'example.com', version: 'v1' }),
      { ...widgets, subresources: ['status'] },
      'ns',
    );
    await withStatus.updateStatus({ metadata: { name: 'w' } });
    expect(last().path).toBe('/apis/example.com/v1/namespaces/ns/widgets/w/status');
  });
});
