import { expect, it } from 'vitest';
import type { ContractEndpoint, RawResponse } from './contract-client.js';
import {
  contractCalls,
  crdBody,
  createOpenCrd,
  expectFailure,
  suffix,
} from './contract-helpers.js';

/**
 * Writes as kube-apiserver 1.20 answers them where the differential harness found the in-memory
 * server answering otherwise: who owns what after a create or update (the field manager sees the
 * decoded, defaulted body, before admission, strategies and allocation), key order below
 * `metadata`, server-side apply's details, subresources and custom resources.
 */

const APPLY = { contentType: 'application/apply-patch+yaml' };
// biome-ignore lint/suspicious/noExplicitAny: FieldsV1 trees are walked freely in these tests.
type Fields = Record<string, any>;

/** The FieldsV1 of each managedFields entry, by manager. */
function fieldsOf(res: RawResponse): Record<string, Fields> {
  const list = (res.json.metadata.managedFields ?? []) as { manager: string; fieldsV1: Fields }[];
  return Object.fromEntries(list.map((e) => [e.manager, e.fieldsV1]));
}

const deployment = (name: string, containers = [{ name: 'main', image: 'busybox:1' }]) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers } },
  },
});

/** Registers the tests in the caller's describe block. */
export function defineWritesRound2Contract(getTarget: () => ContractEndpoint): void {
  const calls = contractCalls(getTarget);
  const { call, create, newNamespace } = calls;

  it('owns what a create’s defaulted body holds, not what admission, the strategy or the allocator add', async () => {
    const ns = await newNamespace('own-create');
    const namespace = await create('/api/v1/namespaces?fieldManager=m', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: `own-ns-${suffix()}` },
    });
    // The phase is the decoder's default; the kubernetes finalizer the strategy's.
    expect(fieldsOf(namespace).m).toEqual({ 'f:status': { 'f:phase': {} } });
    expect(namespace.json.spec).toEqual({ finalizers: ['kubernetes'] });
    const pod = await create(`/api/v1/namespaces/${ns}/pods?fieldManager=m`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'busybox:1' }] },
    });
    const podSpec = fieldsOf(pod).m?.['f:spec'];
    // Set by the Priority and DefaultTolerationSeconds admission plugins, after the manager.
    expect(Object.keys(podSpec)).not.toContain('f:priority');
    expect(Object.keys(podSpec)).not.toContain('f:preemptionPolicy');
    expect(Object.keys(podSpec)).not.toContain('f:tolerations');
    expect(pod.json.spec.priority).toBe(0);
    expect(pod.json.spec.tolerations).toHaveLength(2);
    expect(podSpec['f:securityContext']).toEqual({});
    const service = await create(`/api/v1/namespaces/${ns}/services?fieldManager=m`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { selector: { app: 'x' }, ports: [{ port: 80 }] },
    });
    expect(fieldsOf(service).m?.['f:spec']).toEqual({
      // Keyed by port and protocol; the allocated clusterIP(s) are no one's.
      'f:ports': {
        '.': {},
        'k:{"port":80,"protocol":"TCP"}': {
          '.': {},
          'f:port': {},
          'f:protocol': {},
          'f:targetPort': {},
        },
      },
      'f:selector': { '.': {}, 'f:app': {} },
      'f:sessionAffinity': {},
      'f:type': {},
    });
    const created = await create(
      `/apis/apps/v1/namespaces/${ns}/deployments?fieldManager=m`,
      deployment('d'),
    );
    const spec = fieldsOf(created).m?.['f:spec'];
    // A LabelSelector is atomic: one leaf. A pointer to a struct is new, so listed itself.
    expect(spec['f:selector']).toEqual({});
    expect(spec['f:strategy']).toEqual({
      'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} },
      'f:type': {},
    });
  });

  it('returns a built-in object’s structs below metadata in their Go field order', async () => {
    const ns = await newNamespace('own-order');
    const service = await create(`/api/v1/namespaces/${ns}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { selector: { app: 'x' }, ports: [{ targetPort: 80, port: 80 }] },
    });
    expect(Object.keys(service.json.spec)).toEqual([
      'ports',
      'selector',
      'clusterIP',
      'clusterIPs',
      'type',
      'sessionAffinity',
    ]);
    expect(Object.keys(service.json.spec.ports[0])).toEqual(['protocol', 'port', 'targetPort']);
    const created = await create(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment('d'));
    const template = created.json.spec.template;
    expect(Object.keys(template.metadata)).toEqual(['creationTimestamp', 'labels']);
    expect(Object.keys(template.spec.containers[0])).toEqual([
      'name',
      'image',
      'resources',
      'terminationMessagePath',
      'terminationMessagePolicy',
      'imagePullPolicy',
    ]);
  });

  it('keeps the live managedFields when an update’s body has none: it takes the key it changed, not the map', async () => {
    const ns = await newNamespace('own-keep');
    const path = `/api/v1/namespaces/${ns}/configmaps/c`;
    const applied = await call('PATCH', `${path}?fieldManager=a`, {
      ...APPLY,
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {x: "1", z: "2"}\n',
    });
    expect(applied.status).toBe(201);
    const body = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', resourceVersion: applied.json.metadata.resourceVersion },
      data: { x: '9', z: '2' },
    };
    const updated = await call('PUT', `${path}?fieldManager=u`, { body });
    expect(updated.status).toBe(200);
    expect(fieldsOf(updated)).toEqual({
      a: { 'f:data': { 'f:z': {} } },
      u: { 'f:data': { 'f:x': {} } },
    });
  });

  it('records what a /status or main write sent, though the endpoint takes only its own part', async () => {
    const ns = await newNamespace('own-status');
    const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const created = await create(`${base}?fieldManager=m`, deployment('d'));
    const status = await call('PUT', `${base}/d/status?fieldManager=s`, {
      body: {
        ...deployment('d'),
        metadata: { name: 'd', labels: { changed: 'yes' } },
        status: { replicas: 7, observedGeneration: 3 },
      },
    });
    expect(status.status).toBe(200);
    expect(status.json.metadata.labels).toBeUndefined();
    expect(status.json.status).toEqual({ observedGeneration: 3, replicas: 7 });
    expect(fieldsOf(status).s).toEqual({
      'f:metadata': { 'f:labels': { '.': {}, 'f:changed': {} } },
      'f:status': { 'f:observedGeneration': {}, 'f:replicas': {} },
    });
    const main = await call('PUT', `${base}/d?fieldManager=w`, {
      body: {
        ...deployment('d'),
        metadata: { name: 'd', resourceVersion: status.json.metadata.resourceVersion },
        status: { replicas: 1 },
      },
    });
    expect(main.status).toBe(200);
    expect(main.json.status).toEqual(status.json.status);
    // w sent replicas 1 (owned now) and no observedGeneration (which no one owns any more).
    expect(fieldsOf(main)).toEqual({
      m: fieldsOf(created).m,
      s: { 'f:metadata': { 'f:labels': { '.': {}, 'f:changed': {} } } },
      w: { 'f:status': { 'f:replicas': {} } },
    });
    // One manager throughout: what it sent and was not taken stays its own.
    await create(`${base}?fieldManager=one`, deployment('e'));
    const statusWrite = await call('PUT', `${base}/e/status?fieldManager=one`, {
      body: {
        ...deployment('e'),
        metadata: { name: 'e', labels: { changed: 'yes' } },
        status: { replicas: 7, observedGeneration: 3 },
      },
    });
    const mainWrite = await call('PUT', `${base}/e?fieldManager=one`, {
      body: {
        ...deployment('e'),
        metadata: { name: 'e', resourceVersion: statusWrite.json.metadata.resourceVersion },
        status: { replicas: 1 },
      },
    });
    expect(mainWrite.status).toBe(200);
    const one = fieldsOf(mainWrite).one;
    expect([one?.['f:metadata'], one?.['f:status']]).toEqual([
      { 'f:labels': { '.': {}, 'f:changed': {} } },
      { 'f:replicas': {} },
    ]);
  });

  it('finalizes a namespace: an empty finalizer list is left out, and its owner loses it', async () => {
    const name = `own-fin-${suffix()}`;
    await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const res = await call('PUT', `/api/v1/namespaces/${name}/finalize`, {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name }, spec: { finalizers: [] } },
    });
    expect(res.status).toBe(200);
    expect(res.json.spec).toEqual({});
    expect(res.json.metadata.managedFields.map((e: Fields) => e.fieldsV1)).toEqual([
      { 'f:status': { 'f:phase': {} } },
    ]);
  });

  it('applies finalizers as a set, keeps the live order of keyed lists, and reads YAML 1.1 booleans as go-yaml does', async () => {
    const ns = await newNamespace('own-apply');
    const cmPath = `/api/v1/namespaces/${ns}/configmaps`;
    const fin = await call('PATCH', `${cmPath}/f?fieldManager=a`, {
      ...APPLY,
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: f, finalizers: [kubets.test/keep]}\n',
    });
    expect(fieldsOf(fin).a).toEqual({
      'f:metadata': { 'f:finalizers': { 'v:"kubets.test/keep"': {} } },
    });
    await call('PATCH', `${cmPath}/f?fieldManager=a`, {
      ...APPLY,
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: f}\n',
    });
    // `y` and `on` are both `true` to YAML 1.1: one key, the last value.
    const yaml = await call('PATCH', `${cmPath}/bools?fieldManager=a`, {
      ...APPLY,
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bools}\ndata: {y: "1", on: "2"}\n',
    });
    expect([yaml.status, yaml.json.data]).toEqual([201, { true: '2' }]);
    const path = `/apis/apps/v1/namespaces/${ns}/deployments/d`;
    const first = await call('PATCH', `${path}?fieldManager=a`, {
      ...APPLY,
      body: JSON.stringify(deployment('d')),
    });
    expect(first.status).toBe(201);
    const second = await call('PATCH', `${path}?fieldManager=b`, {
      ...APPLY,
      body: JSON.stringify({
        ...deployment('d', [{ name: 'side', image: 'busybox:2' }]),
        spec: {
          selector: { matchLabels: { app: 'd' } },
          template: {
            metadata: { labels: { app: 'd' } },
            spec: { containers: [{ name: 'side', image: 'busybox:2' }] },
          },
        },
      }),
    });
    expect(second.status).toBe(200);
    expect(second.json.spec.template.spec.containers.map((c: Fields) => c.name)).toEqual([
      'main',
      'side',
    ]);
    // Atomic in an Apply too.
    expect(fieldsOf(second).b?.['f:spec']['f:selector']).toEqual({});
  });

  it('conflicts with before-first-apply when an apply through /scale changes the replicas', async () => {
    const ns = await newNamespace('own-scale');
    await create(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment('d'));
    const scale = (replicas: number, query = '') =>
      call('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/d/scale?fieldManager=s${query}`, {
        ...APPLY,
        body: JSON.stringify({
          apiVersion: 'autoscaling/v1',
          kind: 'Scale',
          metadata: { name: 'd' },
          spec: { replicas },
        }),
      });
    expectFailure(await scale(2), 409, {
      reason: 'Conflict',
      message:
        'Apply failed with 1 conflict: conflict with "before-first-apply" using autoscaling/v1: .spec.replicas',
      details: {
        causes: [
          {
            reason: 'FieldManagerConflict',
            message: 'conflict with "before-first-apply" using autoscaling/v1',
            field: '.spec.replicas',
          },
        ],
      },
    });
    const same = await scale(1);
    expect([same.status, same.json.spec]).toEqual([200, { replicas: 1 }]);
  });

  it('answers a PUT naming the uid of an object deleted since with etcd’s precondition conflict', async () => {
    const ns = await newNamespace('own-gone');
    const created = await create(`/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
    });
    await call('DELETE', `/api/v1/namespaces/${ns}/configmaps/c`);
    const uid = created.json.metadata.uid;
    const res = await call('PUT', `/api/v1/namespaces/${ns}/configmaps/c`, {
      body: { ...created.json, metadata: { ...created.json.metadata, resourceVersion: '' } },
    });
    expectFailure(res, 409, {
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on configmaps "c": StorageError: invalid object, Code: 4, Key: /registry/configmaps/${ns}/c, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${uid}, UID in object meta: `,
    });
  });

  it('defaults a CRD’s listKind and conversion; a CR apply lists no "." for declared fields; /scale without its replicas is a 500', async () => {
    const ns = await newNamespace('own-crd');
    const group = `own${suffix()}.contract.kubets.io`;
    const names = { plural: 'widgets', singular: 'widget', kind: 'Widget' };
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            size: { type: 'integer' },
            replicas: { type: 'integer' },
          },
        },
        status: { type: 'object', properties: { replicas: { type: 'integer' } } },
      },
    };
    const crd = await create(
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crdBody(group, names, {
        schema: { openAPIV3Schema: schema },
        subresources: {
          status: {},
          scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
        },
      }),
    );
    expect(crd.json.spec.names).toEqual({ ...names, listKind: 'WidgetList' });
    expect(crd.json.spec.conversion).toEqual({ strategy: 'None' });
    expect(Object.keys(crd.json.spec)).toEqual([
      'group',
      'names',
      'scope',
      'versions',
      'conversion',
    ]);
    const collection = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    await calls.eventually(async () => (await call('GET', collection)).status === 200, true);
    const applied = await call('PATCH', `${collection}/w?fieldManager=a`, {
      ...APPLY,
      body: JSON.stringify({
        apiVersion: `${group}/v1`,
        kind: 'Widget',
        metadata: { name: 'w' },
        spec: { size: 3 },
      }),
    });
    expect(applied.status).toBe(201);
    // `spec` is a field the schema declares: not listed itself.
    expect(fieldsOf(applied).a).toEqual({ 'f:spec': { 'f:size': {} } });
    expectFailure(await call('GET', `${collection}/w/scale`), 500, {
      reason: 'InternalError',
      message: 'Internal error occurred: the spec replicas field ".spec.replicas" does not exist',
      details: { causes: [{ message: 'the spec replicas field ".spec.replicas" does not exist' }] },
    });
  });

  it('answers a cluster-scoped custom resource under a namespace path with the plain-text 404', async () => {
    const ns = await newNamespace('own-cluster');
    const names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' };
    const { group } = await createOpenCrd(calls, 'ownc', names, ns);
    const clusterNames = { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' };
    const body = crdBody(group, clusterNames, {
      schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    });
    (body.spec as Fields).scope = 'Cluster';
    await create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', body);
    await calls.eventually(
      async () => (await call('GET', `/apis/${group}/v1/gizmos`)).status === 200,
      true,
    );
    for (const method of ['GET', 'POST']) {
      const res = await call(method, `/apis/${group}/v1/namespaces/${ns}/gizmos`, {
        ...(method === 'POST'
          ? { body: { apiVersion: `${group}/v1`, kind: 'Gizmo', metadata: { name: 'g' } } }
          : {}),
      });
      expect([res.status, res.text]).toEqual([404, '404 page not found\n']);
    }
  });
}
