import { isBadRequest, isStatusError } from '@kubets/apimachinery';
import {
  eventually,
  rejectionOf,
  type StubHandler,
  type StubServer,
  sendJson,
  startStubServer,
} from '@kubets/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { Clientset } from './clientset.js';

let server: StubServer | undefined;

async function clientsetWith(
  handler: StubHandler,
): Promise<{ clientset: Clientset; stub: StubServer }> {
  const stub = await startStubServer(handler);
  server = stub;
  return { clientset: new Clientset({ host: stub.url, qps: -1 }), stub };
}

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The requests the stub server received, as `METHOD path` lines. */
function requestLines(): string[] {
  return (server?.requests ?? []).map((r) => `${r.method} ${r.path}`);
}

/** The JSON body of the index-th request the stub server received. */
function requestBody(index: number): Record<string, unknown> {
  return JSON.parse(server?.requests[index]?.body ?? '') as Record<string, unknown>;
}

describe('pods/log', () => {
  it('streams the log with the log options as query parameters', async () => {
    const { clientset, stub } = await clientsetWith((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      response.write('line 1\n');
      setTimeout(() => response.end('line 2\n'), 10);
    });
    const stream = await clientset.coreV1().pods('ns').getLog('web', {
      container: 'app',
      tailLines: 10,
      sinceSeconds: 60,
      timestamps: true,
      previous: false,
      limitBytes: 4096,
    });
    let text = '';
    for await (const chunk of stream) text += String(chunk);
    expect(text).toBe('line 1\nline 2\n');
    const request = stub.requests[0];
    expect(request?.path).toBe('/api/v1/namespaces/ns/pods/web/log');
    expect(Object.fromEntries(request?.query ?? [])).toEqual({
      container: 'app',
      tailLines: '10',
      sinceSeconds: '60',
      timestamps: 'true',
      previous: 'false',
      limitBytes: '4096',
    });
  });

  it('a follow stream delivers lines as written and ends quietly when the signal aborts', async () => {
    let closed = false;
    const { clientset } = await clientsetWith((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      response.write('first\n');
      const timer = setInterval(() => response.write('tick\n'), 20);
      response.once('close', () => {
        clearInterval(timer);
        closed = true;
      });
    });
    const controller = new AbortController();
    const stream = await clientset
      .coreV1()
      .pods('ns')
      .getLog('web', { follow: true, signal: controller.signal });
    const chunks: string[] = [];
    for await (const chunk of stream) {
      chunks.push(String(chunk));
      if (chunks.join('').includes('tick')) controller.abort();
    }
    expect(chunks.join('')).toMatch(/^first\n(tick\n)+/);
    await eventually(() => closed);
  });

  it('sends follow=true', async () => {
    const { clientset, stub } = await clientsetWith((_request, response) => {
      response.writeHead(200);
      response.end('x');
    });
    await clientset.coreV1().pods('ns').getLogText('web', { container: 'c' });
    expect(stub.requests[0]?.query.get('follow')).toBe('false');
    const stream = await clientset.coreV1().pods('ns').getLog('web', { follow: true });
    stream.resume();
    expect(stub.requests[1]?.query.get('follow')).toBe('true');
  });

  it("rejects with the server's Status when the log cannot be read", async () => {
    const { clientset } = await clientsetWith((_request, response) => {
      sendJson(response, 400, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'BadRequest',
        code: 400,
        message: 'container "app" in pod "web" is waiting to start: ContainerCreating',
      });
    });
    const err = await rejectionOf(clientset.coreV1().pods('ns').getLogText('web'));
    expect(isStatusError(err) && isBadRequest(err)).toBe(true);
    expect((err as Error).message).toMatch(/waiting to start/);
  });

  it('getLogText reads the whole log', async () => {
    const { clientset } = await clientsetWith((_request, response) => {
      response.writeHead(200);
      response.end('héllo\nworld\n');
    });
    expect(await clientset.coreV1().pods('ns').getLogText('web')).toBe('héllo\nworld\n');
  });
});

describe('pods/eviction', () => {
  it('picks the Eviction version from core/v1 discovery once per client', async () => {
    const { clientset, stub } = await clientsetWith((request, response) => {
      if (request.path === '/api/v1') {
        sendJson(response, 200, {
          kind: 'APIResourceList',
          groupVersion: 'v1',
          resources: [
            { name: 'pods', namespaced: true, kind: 'Pod' },
            {
              name: 'pods/eviction',
              namespaced: true,
              group: 'policy',
              version: 'v1beta1',
              kind: 'Eviction',
            },
          ],
        });
      } else {
        sendJson(response, 201, { kind: 'Status', apiVersion: 'v1', status: 'Success', code: 201 });
      }
    });
    const pods = clientset.coreV1().pods('ns');
    await pods.evict('web', { gracePeriodSeconds: 0 });
    await clientset.coreV1().pods('ns').evict('db', { dryRun: true });
    expect(requestBody(1)).toEqual({
      apiVersion: 'policy/v1beta1',
      kind: 'Eviction',
      metadata: { name: 'web', namespace: 'ns' },
      deleteOptions: { gracePeriodSeconds: 0 },
    });
    expect(requestLines()).toEqual([
      'GET /api/v1',
      'POST /api/v1/namespaces/ns/pods/web/eviction',
      'POST /api/v1/namespaces/ns/pods/db/eviction',
    ]);
    expect(stub.requests[2]?.query.get('dryRun')).toBe('All');
    expect(requestBody(2).deleteOptions).toEqual({ dryRun: ['All'] });
  });

  it('uses policy/v1 when discovery says so, or the version given', async () => {
    const { clientset } = await clientsetWith((request, response) => {
      if (request.path === '/api/v1') {
        sendJson(response, 200, {
          resources: [{ name: 'pods/eviction', group: 'policy', version: 'v1', kind: 'Eviction' }],
        });
      } else {
        sendJson(response, 201, { kind: 'Status', status: 'Success' });
      }
    });
    await clientset.coreV1().pods('ns').evict('a');
    expect(requestBody(1).apiVersion).toBe('policy/v1');
    await clientset.coreV1().pods('ns').evict('b', { version: 'v1beta1' });
    expect(requestBody(2).apiVersion).toBe('policy/v1beta1');
  });
});

describe('other subresources', () => {
  it('scale: getScale, updateScale and patchScale use autoscaling/v1 Scale on .../scale', async () => {
    const { clientset } = await clientsetWith((request, response) => {
      sendJson(response, 200, {
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: { name: 'web', namespace: 'ns' },
        spec: { replicas: request.method === 'GET' ? 1 : 3 },
      });
    });
    const deployments = clientset.appsV1().deployments('ns');
    const scale = await deployments.getScale('web');
    expect(scale.spec?.replicas).toBe(1);
    const updated = await deployments.updateScale('web', { ...scale, spec: { replicas: 3 } });
    expect(updated.spec?.replicas).toBe(3);
    await clientset
      .appsV1()
      .statefulSets('ns')
      .patchScale('db', 'application/merge-patch+json', {
        spec: { replicas: 0 },
      });
    await clientset.coreV1().replicationControllers('ns').getScale('rc');
    expect(requestLines()).toEqual([
      'GET /apis/apps/v1/namespaces/ns/deployments/web/scale',
      'PUT /apis/apps/v1/namespaces/ns/deployments/web/scale',
      'PATCH /apis/apps/v1/namespaces/ns/statefulsets/db/scale',
      'GET /api/v1/namespaces/ns/replicationcontrollers/rc/scale',
    ]);
    expect(requestBody(1)).toMatchObject({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web' },
      spec: { replicas: 3 },
    });
  });

  it('createToken, finalize and bind', async () => {
    const { clientset } = await clientsetWith((request, response) => {
      sendJson(response, 201, JSON.parse(request.body));
    });
    const token = await clientset
      .coreV1()
      .serviceAccounts('ns')
      .createToken('builder', { spec: { audiences: ['api'], expirationSeconds: 600 } });
    expect(token.kind).toBe('TokenRequest');
    await clientset
      .coreV1()
      .namespaces()
      .finalize({ metadata: { name: 'old' }, spec: { finalizers: [] } });
    await clientset
      .coreV1()
      .pods('ns')
      .bind({ metadata: { name: 'web' }, target: { kind: 'Node', name: 'node-a' } });
    expect(requestLines()).toEqual([
      'POST /api/v1/namespaces/ns/serviceaccounts/builder/token',
      'PUT /api/v1/namespaces/old/finalize',
      'POST /api/v1/namespaces/ns/pods/web/binding',
    ]);
    expect(requestBody(0).apiVersion).toBe('authentication.k8s.io/v1');
    expect(requestBody(2)).toEqual({
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'web' },
      target: { kind: 'Node', name: 'node-a' },
    });
  });

  it('reviews are create-only and POST to the collection', async () => {
    const { clientset } = await clientsetWith((request, response) => {
      sendJson(response, 201, { ...JSON.parse(request.body), status: { allowed: true } });
    });
    const review = await clientset
      .authorizationV1()
      .subjectAccessReviews()
      .create({
        spec: { user: 'jane', resourceAttributes: { verb: 'get', resource: 'pods' } },
      });
    expect(review.status?.allowed).toBe(true);
    await clientset
      .authorizationV1()
      .localSubjectAccessReviews('ns')
      .create({ spec: { user: 'jane' } });
    await clientset
      .authenticationV1()
      .tokenReviews()
      .create({ spec: { token: 't' } });
    expect(requestLines()).toEqual([
      'POST /apis/authorization.k8s.io/v1/subjectaccessreviews',
      'POST /apis/authorization.k8s.io/v1/namespaces/ns/localsubjectaccessreviews',
      'POST /apis/authentication.k8s.io/v1/tokenreviews',
    ]);
    expect(requestBody(0)).toMatchObject({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
    });
  });
});
