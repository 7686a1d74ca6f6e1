import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import {
  closedPort,
  type HandlerAnswer,
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

/** The bare 500 (no `reason`) kube-apiserver 1.20 answers a failed conversion with. */
export function failedConversion(message: string): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 };
}

/** Each version's printer columns (`kubectl get`): v1 shows `spec.ip` and `spec.port`, v1alpha1 `spec.hostPort`. */
const HOST_COLUMNS = {
  v1: [
    { name: 'IP', type: 'string', jsonPath: '.spec.ip' },
    { name: 'Port', type: 'integer', jsonPath: '.spec.port' },
  ],
  v1alpha1: [{ name: 'Host Port', type: 'string', jsonPath: '.spec.hostPort' }],
};

/**
 * A CRD `hosts.<group>` serving v1 (stored) and v1alpha1, converting through the webhook at `url`
 * (whose CA is `caBundle`); each version has its own printer columns.
 */
export function hostsCrd(group: string, url: string, caBundle: string): Record<string, unknown> {
  const version = (name: 'v1' | 'v1alpha1') => ({
    name,
    served: true,
    storage: name === 'v1',
    schema: { openAPIV3Schema: OPEN },
    additionalPrinterColumns: HOST_COLUMNS[name],
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `hosts.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'hosts', singular: 'host', kind: 'Host' },
      versions: [version('v1'), version('v1alpha1')],
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

  /** Creates the Hosts CRD converting through `url`; answers its group and its collections in `ns`. */
  const createHostsCrd = async (
    url: string,
    ns: string,
  ): Promise<{ group: string; v1: string; alpha: string }> => {
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
    const v1 = `/apis/${group}/v1/namespaces/${ns}/hosts`;
    const alpha = `/apis/${group}/v1alpha1/namespaces/${ns}/hosts`;
    for (const collection of [v1, alpha]) {
      await eventually(async () => (await call('GET', collection)).status === 200, true);
    }
    return { group, v1, alpha };
  };

  /**
   * A new namespace and a Hosts CRD converting through `handler` (by default
   * {@link convertHosts}) at its own path of the test webhook server.
   */
  const convertingHosts = async (
    handler: (request: ReviewRequest) => HandlerAnswer = (request) => ({
      conversion: convertHosts(request),
    }),
  ) => {
    const ns = await newNamespace('conversion');
    const path = `/${ns}/convert`;
    hooks.handle(path, handler);
    return { ns, path, ...(await createHostsCrd(hooks.url(path), ns)) };
  };

  const host = (group: string, version: string, name: string, spec: object) => ({
    apiVersion: `${group}/${version}`,
    kind: 'Host',
    metadata: { name, labels: { app: 'hosts' } },
    spec,
  });

  /**
   * A Hosts CRD whose webhook is down (nothing listens at its port), with `lonely` stored at
   * v1: its collections, and the Status a conversion through it answers.
   */
  const lonelyHostBehindDownWebhook = async () => {
    const ns = await newNamespace('conversion');
    const port = await closedPort();
    const url = `https://127.0.0.1:${port}/convert`;
    const { group, v1, alpha } = await createHostsCrd(url, ns);
    const created = await call('POST', v1, {
      body: host(group, 'v1', 'lonely', { ip: '10.0.0.3', port: 22 }),
    });
    expect(created.status).toBe(201);
    const refusal = failedConversion(
      `conversion webhook for ${group}/v1, Kind=Host failed: Post "${url}?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
    return { v1, alpha, refusal };
  };

  it('stores an object written or patched at another version through the webhook and reads it at both', async () => {
    const { path, group, v1, alpha } = await convertingHosts();

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
    const { ns, group } = await convertingHosts();
    const res = await call('POST', `/apis/${group}/v1alpha1/namespaces/${ns}/hosts`, {
      body: host(group, 'v1alpha1', 'broken', { hostPort: 'bad' }),
    });
    expect(res.status).toBe(500);
    expect(res.json).toEqual(
      failedConversion(
        `conversion webhook for ${group}/v1alpha1, Kind=Host failed: hostPort "bad" has no port`,
      ),
    );
  });

  it('fails reads at the other version when the webhook is down', async () => {
    const { alpha, refusal } = await lonelyHostBehindDownWebhook();
    const res = await call('GET', `${alpha}/lonely`);
    expect(res.status).toBe(500);
    expect(res.json).toEqual(refusal);
  });

  it('converts the objects of a watch at the other version through the webhook', async () => {
    const { group, v1, alpha } = await convertingHosts();
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

  it('answers a delete at the other version with the object converted through the webhook', async () => {
    const { path, group, v1, alpha } = await convertingHosts();
    const hold = { finalizers: ['contract.kubets.io/hold'] };
    const web = await call('POST', v1, {
      body: host(group, 'v1', 'web', { ip: '10.0.0.1', port: 80 }),
    });
    expect(web.status).toBe(201);
    const held = host(group, 'v1', 'held', { ip: '10.0.0.2', port: 5432 });
    const created = await call('POST', v1, {
      body: { ...held, metadata: { ...held.metadata, ...hold } },
    });
    expect(created.status).toBe(201);
    onTestFinished(async () => {
      await call('PATCH', `${v1}/held`, {
        body: { metadata: { finalizers: null } },
        contentType: 'application/merge-patch+json',
      });
    });

    // Gone at once: the Success Status, after reading the object at v1alpha1.
    const gone = await call('DELETE', `${alpha}/web`);
    expect(gone.status).toBe(200);
    expect(gone.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'web', group, kind: 'hosts', uid: web.json.metadata.uid },
    });
    expect(
      hooks
        .calls(path)
        .some(
          (c) =>
            c.request.desiredAPIVersion === `${group}/v1alpha1` &&
            c.request.objects.some(
              (o: { metadata: { name: string } }) => o.metadata.name === 'web',
            ),
        ),
    ).toBe(true);

    // Held by a finalizer: the object marked for deletion, at v1alpha1.
    const marked = await call('DELETE', `${alpha}/held`);
    expect(marked.status).toBe(200);
    expect(marked.json).toMatchObject({
      apiVersion: `${group}/v1alpha1`,
      kind: 'Host',
      metadata: { name: 'held', finalizers: hold.finalizers, labels: { app: 'hosts' } },
      spec: { hostPort: '10.0.0.2:5432' },
    });
    expect(marked.json.metadata.deletionTimestamp).toEqual(expect.any(String));

    // A deletecollection answers the objects it lists to delete, each at v1alpha1.
    await call('POST', v1, { body: host(group, 'v1', 'db', { ip: '10.0.0.3', port: 3306 }) });
    const collection = await call('DELETE', `${alpha}?labelSelector=app%3Dhosts`);
    expect(collection.status).toBe(200);
    expect(collection.json).toMatchObject({ apiVersion: `${group}/v1alpha1`, kind: 'HostList' });
    expect(
      collection.json.items.map(
        (i: { apiVersion: string; metadata: { name: string }; spec: unknown }) => [
          i.apiVersion,
          i.metadata.name,
          i.spec,
        ],
      ),
    ).toEqual([
      [`${group}/v1alpha1`, 'db', { hostPort: '10.0.0.3:3306' }],
      [`${group}/v1alpha1`, 'held', { hostPort: '10.0.0.2:5432' }],
    ]);
    expect((await call('GET', `${v1}/db`)).status).toBe(404);
    expect((await call('GET', `${v1}/held`)).status).toBe(200);
  });

  it('fails a delete at the other version, deleting nothing, when the webhook is down', async () => {
    const { v1, alpha, refusal } = await lonelyHostBehindDownWebhook();
    const one = await call('DELETE', `${alpha}/lonely`);
    expect([one.status, one.json]).toEqual([500, refusal]);
    const all = await call('DELETE', alpha);
    expect([all.status, all.json]).toEqual([500, refusal]);
    expect((await call('GET', `${v1}/lonely`)).status).toBe(200);
  });

  it('builds Tables at the other version from the objects converted to it, with its columns', async () => {
    const { group, v1, alpha } = await convertingHosts();
    const table = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    const first = await call('POST', v1, {
      body: host(group, 'v1', 'web', { ip: '10.0.0.1', port: 80 }),
    });
    expect(first.status).toBe(201);
    const columns = (t: { columnDefinitions: { name: string }[] }) =>
      t.columnDefinitions.map((c) => c.name);
    const cells = (t: { rows: { cells: unknown[] }[] }) => t.rows.map((r) => r.cells);

    const one = await call('GET', `${alpha}/web`, { headers: table });
    expect(one.status).toBe(200);
    expect([columns(one.json), cells(one.json)]).toEqual([
      ['Name', 'Host Port'],
      [['web', '10.0.0.1:80']],
    ]);
    const atV1 = await call('GET', `${v1}/web`, { headers: table });
    expect([columns(atV1.json), cells(atV1.json)]).toEqual([
      ['Name', 'IP', 'Port'],
      [['web', '10.0.0.1', 80]],
    ]);
    const list = await call('GET', `${alpha}?includeObject=Object`, { headers: table });
    expect(list.status).toBe(200);
    expect(cells(list.json)).toEqual([['web', '10.0.0.1:80']]);
    expect(list.json.rows[0].object).toMatchObject({
      apiVersion: `${group}/v1alpha1`,
      spec: { hostPort: '10.0.0.1:80' },
    });

    const watch = await rawWatch(
      getTarget(),
      `${alpha}?watch=true&resourceVersion=${first.json.metadata.resourceVersion}`,
      { headers: table },
    );
    try {
      expect(watch.status).toBe(200);
      await call('PATCH', `${v1}/web`, {
        body: { spec: { port: 8080 } },
        contentType: 'application/merge-patch+json',
      });
      const [event] = await watch.take(1);
      expect(event?.type).toBe('MODIFIED');
      expect(event?.object.kind).toBe('Table');
      expect(cells(event?.object)).toEqual([['web', '10.0.0.1:8080']]);
    } finally {
      watch.close();
    }
  });

  it('ends a watch at the other version, without an ERROR event, when an object cannot be converted', async () => {
    // Converts Hosts, but refuses one whose ip is `unconvertible` (written at v1, the storage version).
    const { group, v1, alpha } = await convertingHosts((request) =>
      request.objects.some((o: { spec?: { ip?: string } }) => o.spec?.ip === 'unconvertible')
        ? { conversion: { result: { status: 'Failure', message: 'cannot convert' } } }
        : { conversion: convertHosts(request) },
    );
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
