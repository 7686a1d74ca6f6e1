import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import {
  closedPort,
  type ReviewRequest,
  startTestWebhookServer,
  type TestWebhookServer,
} from './admission-webhook-server.js';
import { type ContractEndpoint, rawWatch } from './contract-client.js';
import { contractCalls, suffix } from './contract-helpers.js';

const OPEN = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/**
 * Converts Hosts between v1 (`spec.ip`, `spec.port`) and v1alpha1 (`spec.hostPort`,
 * `ip:port`); an object whose hostPort is `bad` cannot be converted.
 */
export function convertHosts(request: ReviewRequest): Record<string, unknown> {
  const desired: string = request.desiredAPIVersion;
  const toV1 = desired.endsWith('/v1');
  const convertedObjects = [];
  for (const obj of request.objects) {
    if (obj.spec?.hostPort === 'bad') {
      return { result: { status: 'Failure', message: 'hostPort "bad" has no port' } };
    }
    const spec = toV1
      ? {
          ip: String(obj.spec.hostPort).split(':')[0],
          port: Number(String(obj.spec.hostPort).split(':')[1]),
        }
      : { hostPort: `${obj.spec.ip}:${obj.spec.port}` };
    convertedObjects.push({ ...obj, apiVersion: desired, spec });
  }
  return { convertedObjects, result: { status: 'Success' } };
}

/**
 * A CRD `hosts.<group>` serving v1 (stored) and v1alpha1, converting through the webhook at `url`
 * (whose CA is `caBundle`).
 */
export function hostsCrd(group: string, url: string, caBundle: string): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `hosts.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'hosts', singular: 'host', kind: 'Host' },
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: OPEN } },
        { name: 'v1alpha1', served: true, storage: false, schema: { openAPIV3Schema: OPEN } },
      ],
      conversion: {
        strategy: 'Webhook',
        webhook: { clientConfig: { url, caBundle }, conversionReviewVersions: ['v1'] },
      },
    },
  };
}

/**
 * Conversion webhooks: a CRD serving v1 (stored) and v1alpha1 with `conversion: {strategy:
 * Webhook}` calling the test's own webhook server on 127.0.0.1.
 */
export function defineConversionWebhooksContract(getTarget: () => ContractEndpoint): void {
  const calls = contractCalls(getTarget);
  const { call, create, newNamespace, eventually } = calls;
  let hooks: TestWebhookServer;
  beforeAll(async () => {
    hooks = await startTestWebhookServer();
  });
  afterAll(async () => {
    await hooks?.stop();
  });

  /** Creates the Hosts CRD converting through `url`; answers its group. */
  const createHostsCrd = async (url: string, ns: string): Promise<string> => {
    const group = `conv${suffix()}.contract.kubets.io`;
    await create(
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      hostsCrd(group, url, hooks.caBundle),
    );
    onTestFinished(async () => {
      await call(
        'DELETE',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/hosts.${group}`,
      );
    });
    for (const version of ['v1', 'v1alpha1']) {
      const collection = `/apis/${group}/${version}/namespaces/${ns}/hosts`;
      await eventually(async () => (await call('GET', collection)).status === 200, true);
    }
    return group;
  };

  const host = (group: string, version: string, name: string, spec: object) => ({
    apiVersion: `${group}/${version}`,
    kind: 'Host',
    metadata: { name, labels: { app: 'hosts' } },
    spec,
  });

  it('stores an object written or patched at another version through the webhook and reads it at both', async () => {
    const ns = await newNamespace('conversion');
    const path = `/${ns}/convert`;
    hooks.handle(path, (request) => ({ conversion: convertHosts(request) }));
    const group = await createHostsCrd(hooks.url(path), ns);
    const alpha = `/apis/${group}/v1alpha1/namespaces/${ns}/hosts`;
    const v1 = `/apis/${group}/v1/namespaces/${ns}/hosts`;

    const created = await call('POST', alpha, {
      body: host(group, 'v1alpha1', 'web', { hostPort: '10.0.0.1:80' }),
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      apiVersion: `${group}/v1alpha1`,
      metadata: { name: 'web', labels: { app: 'hosts' } },
      spec: { hostPort: '10.0.0.1:80' },
    });
    const toStorage = hooks
      .calls(path)
      .find((c) => c.request.desiredAPIVersion === `${group}/v1`)?.request;
    expect(toStorage?.objects[0]).toMatchObject({
      apiVersion: `${group}/v1alpha1`,
      spec: { hostPort: '10.0.0.1:80' },
    });
    expect(hooks.calls(path)[0]?.apiVersion).toBe('apiextensions.k8s.io/v1');

    const atV1 = await call('GET', `${v1}/web`);
    expect(atV1.json).toMatchObject({
      apiVersion: `${group}/v1`,
      spec: { ip: '10.0.0.1', port: 80 },
    });
    expect(atV1.json.metadata.uid).toBe(created.json.metadata.uid);
    const atAlpha = await call('GET', `${alpha}/web`);
    expect(atAlpha.json).toMatchObject({
      apiVersion: `${group}/v1alpha1`,
      spec: { hostPort: '10.0.0.1:80' },
    });
    const list = await call('GET', alpha);
    expect(list.json.items.map((i: { spec: unknown }) => i.spec)).toEqual([
      { hostPort: '10.0.0.1:80' },
    ]);

    // Written at the storage version, read at the other one.
    const direct = await call('POST', v1, {
      body: host(group, 'v1', 'db', { ip: '10.0.0.2', port: 5432 }),
    });
    expect(direct.status).toBe(201);
    expect(direct.json.spec).toEqual({ ip: '10.0.0.2', port: 5432 });
    expect((await call('GET', `${alpha}/db`)).json.spec).toEqual({ hostPort: '10.0.0.2:5432' });

    // A patch at the other version applies to the object as that version shows it.
    const patched = await call('PATCH', `${alpha}/db`, {
      body: { spec: { hostPort: '10.0.0.2:6432' } },
      contentType: 'application/merge-patch+json',
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({
      apiVersion: `${group}/v1alpha1`,
      spec: { hostPort: '10.0.0.2:6432' },
    });
    expect((await call('GET', `${v1}/db`)).json.spec).toEqual({ ip: '10.0.0.2', port: 6432 });
  });

  it("answers the webhook's failure as a bare 500 naming the kind", async () => {
    const ns = await newNamespace('conversion');
    const path = `/${ns}/convert`;
    hooks.handle(path, (request) => ({ conversion: convertHosts(request) }));
    const group = await createHostsCrd(hooks.url(path), ns);
    const res = await call('POST', `/apis/${group}/v1alpha1/namespaces/${ns}/hosts`, {
      body: host(group, 'v1alpha1', 'broken', { hostPort: 'bad' }),
    });
    expect(res.status).toBe(500);
    expect(res.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `conversion webhook for ${group}/v1alpha1, Kind=Host failed: hostPort "bad" has no port`,
      code: 500,
    });
  });

  it('fails reads at the other version when the webhook is down', async () => {
    const ns = await newNamespace('conversion');
    const port = await closedPort();
    const url = `https://127.0.0.1:${port}/convert`;
    const group = await createHostsCrd(url, ns);
    const created = await call('POST', `/apis/${group}/v1/namespaces/${ns}/hosts`, {
      body: host(group, 'v1', 'lonely', { ip: '10.0.0.3', port: 22 }),
    });
    expect(created.status).toBe(201);
    const res = await call('GET', `/apis/${group}/v1alpha1/namespaces/${ns}/hosts/lonely`);
    expect(res.status).toBe(500);
    expect(res.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `conversion webhook for ${group}/v1, Kind=Host failed: Post "${url}?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
      code: 500,
    });
  });

  it('converts the objects of a watch at the other version through the webhook', async () => {
    const ns = await newNamespace('conversion');
    const path = `/${ns}/convert`;
    hooks.handle(path, (request) => ({ conversion: convertHosts(request) }));
    const group = await createHostsCrd(hooks.url(path), ns);
    const v1 = `/apis/${group}/v1/namespaces/${ns}/hosts`;
    const alpha = `/apis/${group}/v1alpha1/namespaces/${ns}/hosts`;
    const first = await call('POST', v1, {
      body: host(group, 'v1', 'web', { ip: '10.0.0.1', port: 80 }),
    });
    expect(first.status).toBe(201);
    const watch = await rawWatch(
      getTarget(),
      `${alpha}?watch=true&resourceVersion=${first.json.metadata.resourceVersion}`,
    );
    try {
      expect(watch.status).toBe(200);
      await call('PATCH', `${v1}/web`, {
        body: { spec: { port: 8080 } },
        contentType: 'application/merge-patch+json',
      });
      await call('POST', v1, { body: host(group, 'v1', 'db', { ip: '10.0.0.2', port: 5432 }) });
      await call('DELETE', `${v1}/web`);
      const events = await watch.take(3);
      expect(
        events.map((e) => [e.type, e.object.apiVersion, e.object.metadata.name, e.object.spec]),
      ).toEqual([
        ['MODIFIED', `${group}/v1alpha1`, 'web', { hostPort: '10.0.0.1:8080' }],
        ['ADDED', `${group}/v1alpha1`, 'db', { hostPort: '10.0.0.2:5432' }],
        ['DELETED', `${group}/v1alpha1`, 'web', { hostPort: '10.0.0.1:8080' }],
      ]);
      expect(events[0]?.object.metadata.labels).toEqual({ app: 'hosts' });
    } finally {
      watch.close();
    }
  });

  it('ends a watch at the other version, without an ERROR event, when an object cannot be converted', async () => {
    const ns = await newNamespace('conversion');
    const path = `/${ns}/convert`;
    // Converts Hosts, but refuses one whose ip is `unconvertible` (written at v1, the storage version).
    hooks.handle(path, (request) =>
      request.objects.some((o: { spec?: { ip?: string } }) => o.spec?.ip === 'unconvertible')
        ? { conversion: { result: { status: 'Failure', message: 'cannot convert' } } }
        : { conversion: convertHosts(request) },
    );
    const group = await createHostsCrd(hooks.url(path), ns);
    const v1 = `/apis/${group}/v1/namespaces/${ns}/hosts`;
    const alpha = `/apis/${group}/v1alpha1/namespaces/${ns}/hosts`;
    const first = await call('POST', v1, {
      body: host(group, 'v1', 'web', { ip: '10.0.0.1', port: 80 }),
    });
    const watch = await rawWatch(
      getTarget(),
      `${alpha}?watch=true&resourceVersion=${first.json.metadata.resourceVersion}`,
    );
    try {
      expect(watch.status).toBe(200);
      await call('POST', v1, { body: host(group, 'v1', 'bad', { ip: 'unconvertible', port: 1 }) });
      expect(await watch.next()).toBe('closed');
    } finally {
      watch.close();
    }
  });
}
