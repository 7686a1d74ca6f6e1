import { beforeAll, describe, expect, it } from 'vitest';
import { type ContractEndpoint, type RawResponse, rawWatch } from './contract-client.js';
import { contractCalls, crdBody, expectFailure, suffix } from './contract-helpers.js';
import { bytesField, mapEntry, messageField, protobufBody } from './protobuf-encode.js';

/**
 * Reads as kubectl makes them (issue 18 item 5): Table output, the scale subresource of
 * custom resources, protobuf request bodies, OpenAPI documents of CRDs, discovery as kubectl
 * 1.34 asks for it. docs/embedded-server.md names these tests.
 */

const TABLE_V1 = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const TABLE_V1BETA1 = 'application/json;as=Table;v=v1beta1;g=meta.k8s.io';
/** What kubectl 1.34 sends for `get`. */
const KUBECTL_GET_ACCEPT = `${TABLE_V1},${TABLE_V1BETA1},application/json`;
const AGE = /^\d+[smhdy]/;

const GADGET_SCHEMA = {
  type: 'object',
  description: 'A gadget for the contract tests.',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer', description: 'How big it is.' },
        color: { type: 'string' },
        replicas: { type: 'integer' },
      },
    },
    status: {
      type: 'object',
      properties: {
        count: { type: 'integer' },
        selector: { type: 'string' },
        ready: { type: 'boolean' },
      },
    },
  },
};

/** A column as a Table describes it, `[name, type, format, priority]`; the name column has format `name`. */
const col = (name: string, priority = 0, type = 'string'): [string, string, string, number] => [
  name,
  type,
  name === 'Name' ? 'name' : '',
  priority,
];

/** A Table's columns as `[name, type, format, priority]` (descriptions are prose, not compared). */
function columnsOf(res: RawResponse): [string, string, string, number][] {
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
  return (
    res.json.columnDefinitions as { name: string; type: string; format: string; priority: number }[]
  ).map((c) => [c.name, c.type, c.format, c.priority]);
}

function cellsOf(res: RawResponse): unknown[][] {
  return (res.json.rows as { cells: unknown[] }[]).map((r) => r.cells);
}

export function defineReadsContract(getTarget: () => ContractEndpoint): void {
  const { call, create, newNamespace, eventually } = contractCalls(getTarget);
  let ns: string;
  const group = `reads${suffix()}.kubets.test`;
  const crdName = `gadgets.${group}`;
  const gadgets = () => `/apis/${group}/v1/namespaces/${ns}/gadgets`;

  beforeAll(async () => {
    ns = await newNamespace('reads');
    const gadget = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' };
    await create(
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crdBody(group, gadget, {
        schema: { openAPIV3Schema: GADGET_SCHEMA },
        subresources: {
          status: {},
          scale: {
            specReplicasPath: '.spec.replicas',
            statusReplicasPath: '.status.count',
            labelSelectorPath: '.status.selector',
          },
        },
        additionalPrinterColumns: [
          { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
          { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 },
          { name: 'Ready', type: 'boolean', jsonPath: '.status.ready' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
      }),
    );
    await eventually(async () => (await call('GET', gadgets())).status === 200, true);
  });

  describe('Table output', () => {
    it('lists configmaps, secrets, pods and deployments with kube-apiserver’s columns and cells', async () => {
      await create(`/api/v1/namespaces/${ns}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'table-cm' },
        data: { a: '1', b: '2' },
        binaryData: { c: 'AA==' },
      });
      await create(`/api/v1/namespaces/${ns}/secrets`, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'table-secret' },
        type: 'Opaque',
        data: { a: 'YQ==' },
      });
      await create(`/api/v1/namespaces/${ns}/pods`, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'table-pod' },
        spec: {
          containers: [
            { name: 'main', image: 'busybox' },
            { name: 'side', image: 'x' },
          ],
        },
      });
      await create(`/apis/apps/v1/namespaces/${ns}/deployments`, {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'table-deploy' },
        spec: {
          replicas: 3,
          selector: {
            matchLabels: { app: 'web' },
            matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }],
          },
          template: {
            metadata: { labels: { app: 'web', tier: 'a' } },
            spec: {
              containers: [
                { name: 'web', image: 'nginx' },
                { name: 'log', image: 'fluent' },
              ],
            },
          },
        },
      });
      const table = (path: string) =>
        call('GET', path, { headers: { accept: KUBECTL_GET_ACCEPT } });

      const configmaps = await table(`/api/v1/namespaces/${ns}/configmaps`);
      expect(columnsOf(configmaps)).toEqual([col('Name'), col('Data'), col('Age')]);
      expect(cellsOf(configmaps)).toEqual([['table-cm', 3, expect.stringMatching(AGE)]]);

      const secrets = await table(
        `/api/v1/namespaces/${ns}/secrets?fieldSelector=metadata.name=table-secret`,
      );
      expect(columnsOf(secrets).map((c) => c[0])).toEqual(['Name', 'Type', 'Data', 'Age']);
      expect(cellsOf(secrets)).toEqual([['table-secret', 'Opaque', 1, expect.stringMatching(AGE)]]);

      const pods = await table(`/api/v1/namespaces/${ns}/pods`);
      expect(columnsOf(pods)).toEqual([
        col('Name'),
        col('Ready'),
        col('Status'),
        col('Restarts', 0, 'integer'),
        col('Age'),
        col('IP', 1),
        col('Node', 1),
        col('Nominated Node', 1),
        col('Readiness Gates', 1),
      ]);
      expect(cellsOf(pods)).toEqual([
        [
          'table-pod',
          '0/2',
          'Pending',
          0,
          expect.stringMatching(AGE),
          '<none>',
          '<none>',
          '<none>',
          '<none>',
        ],
      ]);

      const deployments = await table(`/apis/apps/v1/namespaces/${ns}/deployments`);
      expect(columnsOf(deployments)).toEqual([
        col('Name'),
        col('Ready'),
        col('Up-to-date'),
        col('Available'),
        col('Age'),
        col('Containers', 1),
        col('Images', 1),
        col('Selector', 1),
      ]);
      expect(cellsOf(deployments)).toEqual([
        [
          'table-deploy',
          '0/3',
          0,
          0,
          expect.stringMatching(AGE),
          'web,log',
          'nginx,fluent',
          'app=web,tier in (a,b)',
        ],
      ]);
    });

    it('gives one object as a Table, in v1beta1 too, with the object as asked by includeObject', async () => {
      const path = `/api/v1/namespaces/${ns}/configmaps/table-one`;
      await create(`/api/v1/namespaces/${ns}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'table-one' },
        data: { k: 'v' },
      });
      const one = await call('GET', path, { headers: { accept: TABLE_V1 } });
      expect(cellsOf(one)).toEqual([['table-one', 1, expect.stringMatching(AGE)]]);
      expect(one.json.rows[0].object).toMatchObject({
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: { name: 'table-one', namespace: ns },
      });
      expect(one.json.metadata).toEqual({
        resourceVersion: one.json.rows[0].object.metadata.resourceVersion,
      });

      const beta = await call('GET', path, { headers: { accept: TABLE_V1BETA1 } });
      expect(beta.json).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1beta1' });
      expect(beta.json.rows[0].object.apiVersion).toBe('meta.k8s.io/v1beta1');

      const whole = await call('GET', `${path}?includeObject=Object`, {
        headers: { accept: TABLE_V1 },
      });
      expect(whole.json.rows[0].object).toMatchObject({ kind: 'ConfigMap', data: { k: 'v' } });
      const none = await call('GET', `${path}?includeObject=None`, {
        headers: { accept: TABLE_V1 },
      });
      expect(none.json.rows[0].object).toBeNull();
    });

    it('refuses a Table version it does not serve with 406, unless another type is acceptable', async () => {
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      const v2 = 'application/json;as=Table;v=v2;g=meta.k8s.io';
      expectFailure(await call('GET', path, { headers: { accept: v2 } }), 406, {
        reason: 'NotAcceptable',
        message:
          'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      });
      const fallback = await call('GET', path, { headers: { accept: `${v2},application/json` } });
      expect(fallback.status).toBe(200);
      expect(fallback.json.kind).toBe('ConfigMapList');
    });

    it('watches as Tables of one row, the first with the columns, the later ones without', async () => {
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      const first = await create(path, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'watch-a' },
      });
      const watch = await rawWatch(
        getTarget(),
        `${path}?watch=true&resourceVersion=${first.json.metadata.resourceVersion}`,
        { headers: { accept: KUBECTL_GET_ACCEPT } },
      );
      try {
        expect(watch.status).toBe(200);
        await create(path, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'watch-b' },
          data: { k: 'v' },
        });
        await create(path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watch-c' } });
        const events = await watch.take(2, 30_000);
        expect(events.map((e) => e.type)).toEqual(['ADDED', 'ADDED']);
        expect(events[0]?.object).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
        expect(events[0]?.object.columnDefinitions.map((c: { name: string }) => c.name)).toEqual([
          'Name',
          'Data',
          'Age',
        ]);
        expect(events[0]?.object.rows.map((r: { cells: unknown[] }) => r.cells)).toEqual([
          ['watch-b', 1, expect.stringMatching(AGE)],
        ]);
        expect(events[1]?.object.columnDefinitions).toBeNull();
        expect(events[1]?.object.rows[0].cells[0]).toBe('watch-c');
      } finally {
        watch.close();
      }
    });

    it('prints a custom resource’s additionalPrinterColumns after its name, and CRDs by creation time', async () => {
      await create(gadgets(), {
        apiVersion: `${group}/v1`,
        kind: 'Gadget',
        metadata: { name: 'g1' },
        spec: { size: 3, color: 'red', replicas: 1 },
      });
      const res = await call('GET', gadgets(), { headers: { accept: KUBECTL_GET_ACCEPT } });
      expect(columnsOf(res)).toEqual([
        col('Name'),
        col('Size', 0, 'integer'),
        col('Color', 1),
        col('Ready', 0, 'boolean'),
        col('Age', 0, 'date'),
      ]);
      expect(res.json.columnDefinitions[1].description).toBe(
        'Custom resource definition column (in JSONPath format): .spec.size',
      );
      expect(cellsOf(res)).toEqual([['g1', 3, 'red', null, expect.stringMatching(AGE)]]);

      const crds = await call(
        'GET',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions?fieldSelector=metadata.name=${crdName}`,
        { headers: { accept: TABLE_V1 } },
      );
      expect(columnsOf(crds)).toEqual([col('Name'), col('Created At', 0, 'date')]);
      expect(cellsOf(crds)).toEqual([
        [crdName, expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)],
      ]);
    });
  });

  describe('scale subresource of custom resources', () => {
    it('reads and writes the replicas at the CRD’s paths, refusing negative counts and stale versions', async () => {
      const created = await create(gadgets(), {
        apiVersion: `${group}/v1`,
        kind: 'Gadget',
        metadata: { name: 'scaled' },
        spec: { replicas: 2 },
      });
      const scalePath = `${gadgets()}/scaled/scale`;
      const scale = await call('GET', scalePath);
      expect(scale.status).toBe(200);
      expect(scale.json).toEqual({
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        metadata: {
          name: 'scaled',
          namespace: ns,
          uid: created.json.metadata.uid,
          resourceVersion: created.json.metadata.resourceVersion,
          creationTimestamp: created.json.metadata.creationTimestamp,
        },
        spec: { replicas: 2 },
        status: { replicas: 0 },
      });
      await call('PATCH', `${gadgets()}/scaled/status`, {
        contentType: 'application/merge-patch+json',
        body: { status: { count: 2, selector: 'app=g' } },
      });
      const patched = await call('PATCH', scalePath, {
        contentType: 'application/merge-patch+json',
        body: { spec: { replicas: 5 } },
      });
      expect(patched.json).toMatchObject({
        spec: { replicas: 5 },
        status: { replicas: 2, selector: 'app=g' },
      });
      expect((await call('GET', `${gadgets()}/scaled`)).json.spec.replicas).toBe(5);

      const put = (replicas: number, resourceVersion?: string) =>
        call('PUT', scalePath, {
          body: {
            apiVersion: 'autoscaling/v1',
            kind: 'Scale',
            metadata: {
              name: 'scaled',
              namespace: ns,
              ...(resourceVersion ? { resourceVersion } : {}),
            },
            spec: { replicas },
          },
        });
      expectFailure(await put(-1), 422, {
        reason: 'Invalid',
        message: `Gadget.${group} "scaled" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer`,
        details: {
          name: 'scaled',
          group,
          kind: 'Gadget',
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: 'Invalid value: -1: should be a non-negative integer',
              field: '.spec.replicas',
            },
          ],
        },
      });
      expectFailure(await put(4, '1'), 409, { reason: 'Conflict' });
      expect((await put(4)).json.spec.replicas).toBe(4);
    });
  });

  describe('protobuf request bodies', () => {
    it('creates a ConfigMap sent as protobuf, as kubectl’s typed create sends it', async () => {
      const body = protobufBody(
        'v1',
        'ConfigMap',
        messageField(1, bytesField(1, 'from-protobuf')),
        mapEntry(2, 'greeting', 'hello'),
        mapEntry(3, 'raw', Buffer.from([0, 1, 2])),
      );
      const res = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body,
        contentType: 'application/vnd.kubernetes.protobuf',
      });
      expect(res.status).toBe(201);
      expect(res.json).toMatchObject({
        kind: 'ConfigMap',
        metadata: { name: 'from-protobuf', namespace: ns },
        data: { greeting: 'hello' },
        binaryData: { raw: 'AAEC' },
      });
    });

    it('answers a body without the protobuf prefix, and a custom resource in protobuf, with 400', async () => {
      expectFailure(
        await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
          body: 'xx',
          contentType: 'application/vnd.kubernetes.protobuf',
        }),
        400,
        {
          reason: 'BadRequest',
          message:
            'the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (7878)',
        },
      );
      expectFailure(
        await call('POST', gadgets(), {
          body: protobufBody(`${group}/v1`, 'Gadget'),
          contentType: 'application/vnd.kubernetes.protobuf',
        }),
        400,
        {
          reason: 'BadRequest',
          message: `Gadget in version "v1" cannot be handled as a Gadget: Object 'Kind' is missing in 'object has no kind field '`,
        },
      );
    });
  });

  describe('OpenAPI and discovery as kubectl reads them', () => {
    it('serves the groups the clientset knows: batch, autoscaling, networking, policy, rbac, storage', async () => {
      const ALL = 'create delete deletecollection get list patch update watch'.split(' ');
      // [groupVersion, resource, shortNames, categories, namespaced] as kube-apiserver 1.20 lists them.
      const expected: [string, string, string[] | undefined, string[] | undefined, boolean][] = [
        ['batch/v1', 'jobs', undefined, ['all'], true],
        ['batch/v1beta1', 'cronjobs', ['cj'], ['all'], true],
        ['autoscaling/v1', 'horizontalpodautoscalers', ['hpa'], ['all'], true],
        ['networking.k8s.io/v1', 'ingressclasses', undefined, undefined, false],
        ['networking.k8s.io/v1', 'ingresses', ['ing'], undefined, true],
        ['networking.k8s.io/v1', 'networkpolicies', ['netpol'], undefined, true],
        ['policy/v1beta1', 'poddisruptionbudgets', ['pdb'], undefined, true],
        ['rbac.authorization.k8s.io/v1', 'clusterrolebindings', undefined, undefined, false],
        ['rbac.authorization.k8s.io/v1', 'clusterroles', undefined, undefined, false],
        ['rbac.authorization.k8s.io/v1', 'rolebindings', undefined, undefined, true],
        ['rbac.authorization.k8s.io/v1', 'roles', undefined, undefined, true],
        ['storage.k8s.io/v1', 'csidrivers', undefined, undefined, false],
        ['storage.k8s.io/v1', 'csinodes', undefined, undefined, false],
        ['storage.k8s.io/v1', 'storageclasses', ['sc'], undefined, false],
        ['storage.k8s.io/v1', 'volumeattachments', undefined, undefined, false],
      ];
      for (const [groupVersion, resource, shortNames, categories, namespaced] of expected) {
        const list = await call('GET', `/apis/${groupVersion}`);
        expect(list.status, groupVersion).toBe(200);
        const found = (list.json.resources as Record<string, unknown>[]).find(
          (r) => r.name === resource,
        );
        expect(found, `${groupVersion} ${resource}`).toMatchObject({ namespaced, verbs: ALL });
        expect(found?.shortNames).toEqual(shortNames);
        expect(found?.categories).toEqual(categories);
      }
    });

    it('publishes a CRD’s schema in /openapi/v2 under its reversed-group name', async () => {
      const name = `${group.split('.').reverse().join('.')}.v1.Gadget`;
      await eventually(async () => {
        const res = await call('GET', '/openapi/v2');
        return res.status === 200 && res.json.definitions?.[name] !== undefined;
      }, true);
      const schema = (await call('GET', '/openapi/v2')).json.definitions[name];
      expect(schema['x-kubernetes-group-version-kind']).toEqual([
        { group, version: 'v1', kind: 'Gadget' },
      ]);
      expect(schema.description).toBe('A gadget for the contract tests.');
      expect(schema.properties.spec.properties.size).toMatchObject({
        type: 'integer',
        description: 'How big it is.',
      });
      expect(Object.keys(schema.properties)).toEqual(
        expect.arrayContaining(['apiVersion', 'kind', 'metadata', 'spec', 'status']),
      );
    });

    it('answers kubectl 1.34’s request for aggregated discovery with the APIGroupList 1.20 serves', async () => {
      const res = await call('GET', '/apis', {
        headers: {
          accept:
            'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json',
        },
      });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json.kind).toBe('APIGroupList');
      expect(res.json.groups.map((g: { name: string }) => g.name)).toEqual(
        expect.arrayContaining(['apps', 'apiextensions.k8s.io', 'coordination.k8s.io', group]),
      );
    });
  });
}
