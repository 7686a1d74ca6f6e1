import type { RawResponse } from '../contract-client.js';
import type { Area, Earlier, HttpStep, Step } from './harness.js';

/** The namespace every step works in (each server is fresh, so one fixed name). */
export const NS = 'kdiff';

const CORE = `/api/v1/namespaces/${NS}`;
const APPS = `/apis/apps/v1/namespaces/${NS}`;
const GROUP = 'diff.kubets.test';
const CR = `/apis/${GROUP}/v1/namespaces/${NS}/widgets`;
const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const PARTIAL = 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io';
const PARTIAL_LIST = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io';

const configMap = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { a: '1' },
  ...extra,
});

const deployment = (name: string, replicas = 1) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'main', image: 'busybox:1' }] },
    },
  },
});

const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'main', image: 'busybox:1' }], ...spec },
});

/** The resourceVersion an earlier step's answer carried. */
const rv = (earlier: Earlier, id: string): string =>
  earlier.get(id)?.json?.metadata?.resourceVersion ?? '0';

const status = (res: RawResponse) => ({ status: res.status, body: res.json ?? res.text });
const metadataOnly = (res: RawResponse) => ({
  status: res.status,
  managedFields: res.json?.metadata?.managedFields,
  finalizers: res.json?.metadata?.finalizers,
});

function http(
  area: Area,
  id: string,
  method: string,
  path: string,
  rest: Omit<HttpStep, 'area' | 'id' | 'method' | 'path'> = {},
): HttpStep {
  return { area, id, method, path, ...rest };
}

const writes: Step[] = [
  http('writes', 'namespace', 'POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  }),
  http('writes', 'create configmap', 'POST', `${CORE}/configmaps`, { body: configMap('cm1') }),
  http('writes', 'create configmap again', 'POST', `${CORE}/configmaps`, {
    body: configMap('cm1'),
  }),
  http('writes', 'create with unknown fields', 'POST', `${CORE}/configmaps`, {
    body: configMap('unknown', { bogus: 1, metadata: { name: 'unknown', bogus: 'x' } }),
  }),
  http('writes', 'read back unknown fields', 'GET', `${CORE}/configmaps/unknown`),
  http('writes', 'create with resourceVersion', 'POST', `${CORE}/configmaps`, {
    body: configMap('withrv', { metadata: { name: 'withrv', resourceVersion: '5' } }),
  }),
  http('writes', 'dry-run create', 'POST', `${CORE}/configmaps?dryRun=All`, {
    body: configMap('dry'),
  }),
  http('writes', 'dry-run create left nothing', 'GET', `${CORE}/configmaps/dry`),
  http('writes', 'bad dryRun value', 'POST', `${CORE}/configmaps?dryRun=Yes`, {
    body: configMap('dry2'),
  }),
  http(
    'writes',
    'over-long fieldManager',
    'POST',
    `${CORE}/configmaps?fieldManager=${'m'.repeat(129)}`,
    {
      body: configMap('longmanager'),
    },
  ),
  http('writes', 'binaryData not base64', 'POST', `${CORE}/configmaps`, {
    body: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'bin' },
      binaryData: { k: '!!' },
    },
  }),
  http('writes', 'body of the wrong kind', 'POST', `${CORE}/configmaps`, {
    body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'wrongkind' } },
  }),
  http('writes', 'body of another apiVersion', 'POST', `${CORE}/configmaps`, {
    body: { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'wrongversion' } },
  }),
  http('writes', 'text/plain body', 'POST', `${CORE}/configmaps`, {
    body: JSON.stringify(configMap('plain')),
    contentType: 'text/plain',
  }),
  http('writes', 'invalid JSON body', 'POST', `${CORE}/configmaps`, {
    body: '{"apiVersion": "v1", "kind": ',
  }),
  http('writes', 'empty body', 'POST', `${CORE}/configmaps`, { body: '' }),
  http('writes', 'PUT on a collection', 'PUT', `${CORE}/configmaps`, { body: configMap('put') }),
  http('writes', 'POST to a named resource', 'POST', `${CORE}/configmaps/cm1`, {
    body: configMap('cm1'),
  }),
  http('writes', 'namespace mismatch', 'POST', `${CORE}/configmaps`, {
    body: configMap('other', { metadata: { name: 'other', namespace: 'default' } }),
  }),
  http('writes', 'name mismatch on PUT', 'PUT', `${CORE}/configmaps/cm1`, {
    body: configMap('cm2'),
  }),
  http('writes', 'PUT of a missing configmap', 'PUT', `${CORE}/configmaps/missing`, {
    body: configMap('missing'),
  }),
  http('writes', 'PUT with a stale resourceVersion', 'PUT', `${CORE}/configmaps/cm1`, {
    body: configMap('cm1', { metadata: { name: 'cm1', resourceVersion: '1' } }),
  }),
  http('writes', 'PUT without resourceVersion', 'PUT', `${CORE}/configmaps/cm1`, {
    body: configMap('cm1', { data: { a: '2' } }),
  }),
  http('writes', 'generateName', 'POST', `${CORE}/configmaps`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } },
  }),
  http('writes', 'generateName too long', 'POST', `${CORE}/configmaps`, {
    body: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { generateName: `${'g'.repeat(260)}-` },
    },
  }),
  http('writes', 'no name', 'POST', `${CORE}/configmaps`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} },
  }),
  http('writes', 'create pod', 'POST', `${CORE}/pods`, { body: pod('p1') }),
  http('writes', 'create pod with unknown container field', 'POST', `${CORE}/pods`, {
    body: {
      ...pod('p2'),
      spec: { containers: [{ name: 'main', image: 'busybox:1', bogus: true }] },
    },
  }),
  http('writes', 'create deployment', 'POST', `${APPS}/deployments`, { body: deployment('d1') }),
  http('writes', 'create service', 'POST', `${CORE}/services`, {
    body: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's1' },
      spec: { selector: { app: 'x' }, ports: [{ port: 80 }] },
    },
  }),
  http('writes', 'create secret', 'POST', `${CORE}/secrets`, {
    body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sec1' }, stringData: { a: 'b' } },
  }),
  http('writes', 'delete with a wrong uid precondition', 'DELETE', `${CORE}/configmaps/cm1`, {
    body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'nope' } },
  }),
  http(
    'writes',
    'delete with a stale resourceVersion precondition',
    'DELETE',
    `${CORE}/configmaps/cm1`,
    {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: '1' } },
    },
  ),
  http('writes', 'delete a missing configmap', 'DELETE', `${CORE}/configmaps/missing`),
  http('writes', 'dry-run delete', 'DELETE', `${CORE}/configmaps/cm1?dryRun=All`, {
    pick: (res) => ({ status: res.status, kind: res.json?.kind, name: res.json?.metadata?.name }),
  }),
  http(
    'writes',
    'update with a stale resourceVersion after dry-run delete',
    'GET',
    `${CORE}/configmaps/cm1`,
    {
      pick: (res) => res.status,
    },
  ),
  http('writes', 'delete configmap', 'DELETE', `${CORE}/configmaps/withrv`),
  http('writes', 'create namespaced object under a cluster path', 'POST', '/api/v1/configmaps', {
    body: configMap('clusterpath'),
  }),
  http('writes', 'create namespace with unknown field', 'POST', '/api/v1/namespaces', {
    body: {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'kdiff-other' },
      spec: { bogus: 1 },
    },
  }),
  http(
    'writes',
    'fieldValidation=Strict with an unknown field',
    'POST',
    `${CORE}/configmaps?fieldValidation=Strict`,
    {
      body: configMap('strict', { bogus: 1 }),
    },
  ),
];

const apply: Step[] = [
  http('apply', 'apply creates', 'PATCH', `${CORE}/configmaps/ap1?fieldManager=a`, {
    body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ap1}\ndata: {x: "1", w: "2"}\n',
    contentType: APPLY,
  }),
  http(
    'apply',
    'second manager applies the same value',
    'PATCH',
    `${CORE}/configmaps/ap1?fieldManager=b`,
    {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ap1}\ndata: {x: "1"}\n',
      contentType: APPLY,
      pick: metadataOnly,
    },
  ),
  http('apply', 'second manager conflicts', 'PATCH', `${CORE}/configmaps/ap1?fieldManager=b`, {
    body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ap1}\ndata: {w: "3"}\n',
    contentType: APPLY,
  }),
  http(
    'apply',
    'second manager forces',
    'PATCH',
    `${CORE}/configmaps/ap1?fieldManager=b&force=true`,
    {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ap1}\ndata: {x: "1", w: "3"}\n',
      contentType: APPLY,
      pick: metadataOnly,
    },
  ),
  http(
    'apply',
    'first manager stops applying a shared field',
    'PATCH',
    `${CORE}/configmaps/ap1?fieldManager=a`,
    {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ap1}\n',
      contentType: APPLY,
    },
  ),
  http(
    'apply',
    'second manager releases a field',
    'PATCH',
    `${CORE}/configmaps/ap1?fieldManager=b`,
    {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ap1}\ndata: {x: "1"}\n',
      contentType: APPLY,
    },
  ),
  http(
    'apply',
    'apply reads YAML 1.1 booleans as Go does',
    'PATCH',
    `${CORE}/configmaps/ap6?fieldManager=a`,
    {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ap6}\ndata: {y: "1", on: "2"}\n',
      contentType: APPLY,
      pick: (r) => ({ status: r.status, data: r.json?.data }),
    },
  ),
  http('apply', 'apply without fieldManager', 'PATCH', `${CORE}/configmaps/ap1`, {
    body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ap1}\n',
    contentType: APPLY,
  }),
  http(
    'apply',
    'apply with force on a non-apply patch',
    'PATCH',
    `${CORE}/configmaps/ap1?force=true`,
    {
      body: { data: { z: '1' } },
      contentType: MERGE_PATCH,
    },
  ),
  http('apply', 'apply finalizers', 'PATCH', `${CORE}/configmaps/ap2?fieldManager=a`, {
    body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ap2, finalizers: [kubets.test/keep]}\n',
    contentType: APPLY,
    pick: metadataOnly,
  }),
  http('apply', 'drop the finalizer by apply', 'PATCH', `${CORE}/configmaps/ap2?fieldManager=a`, {
    body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ap2}\n',
    contentType: APPLY,
    pick: metadataOnly,
  }),
  http('apply', 'apply a deployment', 'PATCH', `${APPS}/deployments/ad1?fieldManager=a`, {
    body: JSON.stringify(deployment('ad1')),
    contentType: APPLY,
  }),
  http('apply', 'apply a second container', 'PATCH', `${APPS}/deployments/ad1?fieldManager=b`, {
    body: JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'ad1' },
      spec: {
        selector: { matchLabels: { app: 'ad1' } },
        template: {
          metadata: { labels: { app: 'ad1' } },
          spec: { containers: [{ name: 'side', image: 'busybox:2' }] },
        },
      },
    }),
    contentType: APPLY,
  }),
  http(
    'apply',
    'apply changes a container by name',
    'PATCH',
    `${APPS}/deployments/ad1?fieldManager=a`,
    {
      body: JSON.stringify({
        ...deployment('ad1'),
        spec: {
          ...deployment('ad1').spec,
          template: {
            metadata: { labels: { app: 'ad1' } },
            spec: { containers: [{ name: 'main', image: 'busybox:3' }] },
          },
        },
      }),
      contentType: APPLY,
    },
  ),
  http(
    'apply',
    'apply to deployment status',
    'PATCH',
    `${APPS}/deployments/ad1/status?fieldManager=s`,
    {
      body: JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'ad1' },
        status: { observedGeneration: 1 },
      }),
      contentType: APPLY,
    },
  ),
  http(
    'apply',
    'apply to deployment scale',
    'PATCH',
    `${APPS}/deployments/ad1/scale?fieldManager=s`,
    {
      body: JSON.stringify({
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: { name: 'ad1' },
        spec: { replicas: 2 },
      }),
      contentType: APPLY,
    },
  ),
  http('apply', 'dry-run apply', 'PATCH', `${CORE}/configmaps/ap3?fieldManager=a&dryRun=All`, {
    body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ap3}\ndata: {x: "1"}\n',
    contentType: APPLY,
  }),
  http('apply', 'dry-run apply left nothing', 'GET', `${CORE}/configmaps/ap3`),
  http('apply', 'apply with a wrong kind', 'PATCH', `${CORE}/configmaps/ap4?fieldManager=a`, {
    body: 'apiVersion: v1\nkind: Secret\nmetadata: {name: ap4}\n',
    contentType: APPLY,
  }),
  http('apply', 'apply with a wrong name', 'PATCH', `${CORE}/configmaps/ap4?fieldManager=a`, {
    body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\n',
    contentType: APPLY,
  }),
  http('apply', 'apply of invalid YAML', 'PATCH', `${CORE}/configmaps/ap4?fieldManager=a`, {
    body: 'apiVersion: v1\nkind: [\n',
    contentType: APPLY,
  }),
  http('apply', 'update after apply', 'PUT', `${CORE}/configmaps/ap1?fieldManager=u`, {
    body: (e: Earlier) =>
      configMap('ap1', {
        metadata: { name: 'ap1', resourceVersion: rv(e, 'second manager releases a field') },
        data: { x: '9' },
      }),
  }),
  http('apply', 'apply a pod', 'PATCH', `${CORE}/pods/ap5?fieldManager=a`, {
    body: JSON.stringify(
      pod('ap5', {
        containers: [{ name: 'main', image: 'busybox:1', ports: [{ containerPort: 80 }] }],
      }),
    ),
    contentType: APPLY,
  }),
];

const subresources: Step[] = [
  http('subresources', 'get deployment scale', 'GET', `${APPS}/deployments/d1/scale`),
  http('subresources', 'scale a deployment', 'PUT', `${APPS}/deployments/d1/scale`, {
    body: {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'd1', namespace: NS },
      spec: { replicas: 3 },
    },
  }),
  http('subresources', 'deployment after scale', 'GET', `${APPS}/deployments/d1`, {
    pick: (res) => ({
      replicas: res.json?.spec?.replicas,
      generation: res.json?.metadata?.generation,
    }),
  }),
  http('subresources', 'negative scale', 'PUT', `${APPS}/deployments/d1/scale`, {
    body: {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'd1', namespace: NS },
      spec: { replicas: -1 },
    },
  }),
  http('subresources', 'scale of a missing deployment', 'GET', `${APPS}/deployments/none/scale`),
  http(
    'subresources',
    'put scale of a missing deployment',
    'PUT',
    `${APPS}/deployments/none/scale`,
    {
      body: {
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: { name: 'none', namespace: NS },
        spec: { replicas: 1 },
      },
    },
  ),
  http('subresources', 'merge patch scale', 'PATCH', `${APPS}/deployments/d1/scale`, {
    body: { spec: { replicas: 2 } },
    contentType: MERGE_PATCH,
  }),
  http('subresources', 'status update', 'PUT', `${APPS}/deployments/d1/status`, {
    body: (e: Earlier) => ({
      ...deployment('d1', 5),
      metadata: {
        name: 'd1',
        resourceVersion: rv(e, 'merge patch scale'),
        labels: { changed: 'yes' },
      },
      status: { replicas: 7, observedGeneration: 3 },
    }),
  }),
  http('subresources', 'main resource ignores status', 'PUT', `${APPS}/deployments/d1`, {
    body: (e: Earlier) => ({
      ...deployment('d1', 2),
      metadata: { name: 'd1', resourceVersion: rv(e, 'status update') },
      status: { replicas: 1 },
    }),
  }),
  http('subresources', 'pod log without a node', 'GET', `${CORE}/pods/p1/log`, {
    newer:
      'pod logs come from the log store tests fill (no kubelet): 1.20 answers 204 for a pod on no node',
  }),
  http('subresources', 'pod exec', 'POST', `${CORE}/pods/p1/exec?command=ls&stdout=true`),
  http('subresources', 'pod binding', 'POST', `${CORE}/pods/p1/binding`, {
    body: {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'p1' },
      target: { kind: 'Node', name: 'node1' },
    },
  }),
  http('subresources', 'pod after binding', 'GET', `${CORE}/pods/p1`, {
    pick: (res) => ({
      nodeName: res.json?.spec?.nodeName,
      conditions: res.json?.status?.conditions,
    }),
  }),
  http('subresources', 'second binding', 'POST', `${CORE}/pods/p1/binding`, {
    body: {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'p1' },
      target: { kind: 'Node', name: 'node2' },
    },
  }),
  http('subresources', 'pod log on a node', 'GET', `${CORE}/pods/p1/log`, {
    newer:
      'pod logs come from the log store tests fill (no kubelet): 1.20 answers 404 for a node it cannot reach',
  }),
  http('subresources', 'eviction', 'POST', `${CORE}/pods/p2/eviction`, {
    body: {
      apiVersion: 'policy/v1beta1',
      kind: 'Eviction',
      metadata: { name: 'p2', namespace: NS },
    },
  }),
  http('subresources', 'eviction of a missing pod', 'POST', `${CORE}/pods/none/eviction`, {
    body: {
      apiVersion: 'policy/v1beta1',
      kind: 'Eviction',
      metadata: { name: 'none', namespace: NS },
    },
  }),
  http('subresources', 'namespace status', 'GET', `/api/v1/namespaces/${NS}/status`, {
    pick: (res) => ({ status: res.status, phase: res.json?.status?.phase, kind: res.json?.kind }),
  }),
  http('subresources', 'namespace finalize', 'PUT', '/api/v1/namespaces/kdiff-other/finalize', {
    body: {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'kdiff-other' },
      spec: { finalizers: [] },
    },
  }),
  http(
    'subresources',
    'deletecollection configmaps',
    'DELETE',
    `${CORE}/configmaps?labelSelector=none%3Dmatch`,
  ),
  http('subresources', 'deletecollection services', 'DELETE', `${CORE}/services`),
  http('subresources', 'deletecollection namespaces', 'DELETE', '/api/v1/namespaces'),
  http('subresources', 'service clusterIP change', 'PUT', `${CORE}/services/s1`, {
    body: (e: Earlier) => ({
      ...e.get('create service')?.json,
      spec: {
        ...e.get('create service')?.json?.spec,
        clusterIP: '10.0.0.99',
        clusterIPs: ['10.0.0.99'],
      },
    }),
  }),
  http('subresources', 'pod status update', 'PUT', `${CORE}/pods/p2/status`, {
    body: (e: Earlier) => ({
      ...e.get('create pod with unknown container field')?.json,
      status: { phase: 'Running' },
    }),
    pick: (res) => ({
      status: res.status,
      phase: res.json?.status?.phase,
      message: res.json?.message,
    }),
  }),
];

const reads: Step[] = [
  http('reads', 'get a missing configmap', 'GET', `${CORE}/configmaps/nope`),
  http('reads', 'list configmaps', 'GET', `${CORE}/configmaps`),
  http('reads', 'PartialObjectMetadataList', 'GET', `${CORE}/configmaps`, {
    headers: { accept: PARTIAL_LIST },
  }),
  http('reads', 'PartialObjectMetadata', 'GET', `${CORE}/configmaps/gen-x`, {
    headers: { accept: PARTIAL },
  }),
  http('reads', 'PartialObjectMetadata of one', 'GET', `${CORE}/configmaps/ap1`, {
    headers: { accept: PARTIAL },
  }),
  http('reads', 'PartialObjectMetadataList v1beta1', 'GET', `${CORE}/configmaps`, {
    headers: { accept: 'application/json;as=PartialObjectMetadataList;v=v1beta1;g=meta.k8s.io' },
  }),
  http('reads', 'PartialObjectMetadata as a list', 'GET', `${CORE}/configmaps/ap1`, {
    headers: { accept: PARTIAL_LIST },
  }),
  http('reads', 'Table list', 'GET', `${CORE}/configmaps`, { headers: { accept: TABLE } }),
  http('reads', 'Table of pods', 'GET', `${CORE}/pods`, { headers: { accept: TABLE } }),
  http('reads', 'protobuf', 'GET', `${CORE}/configmaps/ap1`, {
    headers: { accept: 'application/vnd.kubernetes.protobuf' },
    pick: (res) => ({ status: res.status, contentType: res.headers['content-type'] }),
  }),
  http('reads', 'yaml', 'GET', `${CORE}/configmaps/ap1`, {
    headers: { accept: 'application/yaml' },
    pick: (res) => ({
      status: res.status,
      contentType: res.headers['content-type'],
      text: res.text,
    }),
  }),
  http('reads', 'html', 'GET', `${CORE}/configmaps/ap1`, { headers: { accept: 'text/html' } }),
  http('reads', 'any', 'GET', `${CORE}/configmaps/ap1`, {
    headers: { accept: '*/*' },
    pick: (res) => ({ status: res.status, contentType: res.headers['content-type'] }),
  }),
  http('reads', 'response headers', 'GET', `${CORE}/configmaps/ap1`, {
    pick: (res) =>
      Object.keys(res.headers)
        .filter((h) => !['date', 'audit-id', 'content-length', 'connection'].includes(h))
        .sort()
        .map((h) => `${h}: ${/^x-kubernetes-pf/.test(h) ? '<uid>' : res.headers[h]}`),
  }),
  http('reads', 'limit=0', 'GET', `${CORE}/configmaps?limit=0`, {
    pick: (r) => ({
      status: r.status,
      n: r.json?.items?.length,
      cont: r.json?.metadata?.continue ?? null,
    }),
  }),
  http('reads', 'limit=-1', 'GET', `${CORE}/configmaps?limit=-1`, {
    pick: (r) => ({ status: r.status, n: r.json?.items?.length, message: r.json?.message }),
  }),
  http('reads', 'limit=abc', 'GET', `${CORE}/configmaps?limit=abc`, { pick: status }),
  http('reads', 'limit=1', 'GET', `${CORE}/configmaps?limit=1`),
  http('reads', 'continue', 'GET', `${CORE}/configmaps?limit=1&continue=`, {
    pick: (r) => ({ status: r.status, n: r.json?.items?.length }),
  }),
  http('reads', 'continue without limit', 'GET', `${CORE}/configmaps?continue=abc`, {
    pick: status,
  }),
  http(
    'reads',
    'continue with resourceVersion',
    'GET',
    `${CORE}/configmaps?limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhIn0&resourceVersion=1`,
    { pick: status },
  ),
  http(
    'reads',
    'resourceVersionMatch without resourceVersion',
    'GET',
    `${CORE}/configmaps?resourceVersionMatch=NotOlderThan`,
    { pick: status },
  ),
  http(
    'reads',
    'resourceVersionMatch bogus',
    'GET',
    `${CORE}/configmaps?resourceVersionMatch=Bogus&resourceVersion=1`,
    { pick: status },
  ),
  http(
    'reads',
    'resourceVersionMatch Exact at 0',
    'GET',
    `${CORE}/configmaps?resourceVersionMatch=Exact&resourceVersion=0`,
    { pick: status },
  ),
  http('reads', 'labelSelector bad', 'GET', `${CORE}/configmaps?labelSelector=a%3D%3D%3Db`, {
    pick: status,
  }),
  http('reads', 'fieldSelector unknown', 'GET', `${CORE}/configmaps?fieldSelector=data.a%3D1`, {
    pick: status,
  }),
  http('reads', 'api', 'GET', '/api', {
    pick: (r) => ({ status: r.status, versions: r.json?.versions }),
  }),
  http('reads', 'api/v1 configmaps', 'GET', '/api/v1', {
    pick: (r) =>
      r.json?.resources?.filter(
        (x: { name: string }) => x.name.startsWith('configmaps') || x.name.startsWith('pods'),
      ),
  }),
  http('reads', 'apis/apps/v1', 'GET', '/apis/apps/v1', {
    pick: (r) =>
      r.json?.resources?.map((x: { name: string; verbs: string[] }) => [x.name, x.verbs.join(',')]),
  }),
  http('reads', 'cluster-scoped under a namespace', 'GET', `/api/v1/namespaces/${NS}/namespaces`, {
    pick: status,
  }),
  http('reads', 'unknown resource', 'GET', `${CORE}/bogus`, { pick: status }),
  http('reads', 'openapi v2 ConfigMap', 'GET', '/openapi/v2', {
    pick: (r) => r.json?.definitions?.['io.k8s.api.core.v1.ConfigMap'],
  }),
  http('reads', 'openapi v3 root', 'GET', '/openapi/v3', {
    pick: (r) => r.status,
    newer: '/openapi/v3 is served, as 1.23+ do (1.20: 404)',
  }),
  http(
    'reads',
    'watch without events ends',
    'GET',
    `${CORE}/configmaps?watch=true&timeoutSeconds=1&resourceVersion=${'999999999'}`,
    {
      pick: (r) => ({ status: r.status, contentType: r.headers['content-type'] }),
    },
  ),
];

const patches: Step[] = [
  http('patches', 'json patch test fails', 'PATCH', `${CORE}/configmaps/ap1`, {
    body: [{ op: 'test', path: '/data/x', value: 'nope' }],
    contentType: JSON_PATCH,
  }),
  http('patches', 'json patch remove missing path', 'PATCH', `${CORE}/configmaps/ap1`, {
    body: [{ op: 'remove', path: '/data/missing' }],
    contentType: JSON_PATCH,
  }),
  // On a Secret no later step reads: 1.20 adds the key, which every later read would show.
  http('patches', 'json patch replace missing path', 'PATCH', `${CORE}/secrets/sec1`, {
    newer:
      'RFC 6902: replace needs the target to exist; 1.20 (json-patch 4.9) adds it, later releases refuse it',
    body: [{ op: 'replace', path: '/data/missing', value: 'dg==' }],
    contentType: JSON_PATCH,
  }),
  http('patches', 'json patch bad op', 'PATCH', `${CORE}/configmaps/ap1`, {
    body: [{ op: 'frob', path: '/data/x' }],
    contentType: JSON_PATCH,
  }),
  http('patches', 'json patch not a list', 'PATCH', `${CORE}/configmaps/ap1`, {
    body: { op: 'add' },
    contentType: JSON_PATCH,
  }),
  http('patches', 'json patch add to missing parent', 'PATCH', `${CORE}/configmaps/ap1`, {
    body: [{ op: 'add', path: '/metadata/labels/a', value: 'b' }],
    contentType: JSON_PATCH,
  }),
  http('patches', 'json patch ok', 'PATCH', `${CORE}/configmaps/ap1`, {
    body: [
      { op: 'add', path: '/data/new', value: 'v' },
      { op: 'test', path: '/data/new', value: 'v' },
    ],
    contentType: JSON_PATCH,
  }),
  http('patches', 'merge patch invalid JSON', 'PATCH', `${CORE}/configmaps/ap1`, {
    newer: '1.20 answers 500 `Invalid JSON Patch` without a reason; 1.21+ a 400 BadRequest',
    body: '{"data": ',
    contentType: MERGE_PATCH,
  }),
  http('patches', 'merge patch wrong type', 'PATCH', `${CORE}/configmaps/ap1`, {
    body: { data: 5 },
    contentType: MERGE_PATCH,
  }),
  http('patches', 'merge patch list body', 'PATCH', `${CORE}/configmaps/ap1`, {
    body: [1, 2],
    contentType: MERGE_PATCH,
  }),
  http('patches', 'bogus content type', 'PATCH', `${CORE}/configmaps/ap1`, {
    body: { data: { a: 'b' } },
    contentType: 'application/bogus+json',
  }),
  http('patches', 'strategic merge of a configmap', 'PATCH', `${CORE}/configmaps/ap1`, {
    body: { data: { s: 'm' }, metadata: { labels: { l: 'v' } } },
    contentType: STRATEGIC,
  }),
  http('patches', 'strategic merge of tolerations', 'PATCH', `${CORE}/pods/p1`, {
    body: { spec: { tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }] } },
    contentType: STRATEGIC,
    pick: (r) => ({
      status: r.status,
      tolerations: r.json?.spec?.tolerations,
      message: r.json?.message,
    }),
  }),
  http('patches', 'patch of a missing object', 'PATCH', `${CORE}/configmaps/missing`, {
    body: { data: { a: 'b' } },
    contentType: MERGE_PATCH,
  }),
  http('patches', 'patch with a stale resourceVersion', 'PATCH', `${CORE}/configmaps/ap1`, {
    body: { metadata: { resourceVersion: '1' }, data: { a: 'b' } },
    contentType: MERGE_PATCH,
  }),
  http('patches', 'patch changing the name', 'PATCH', `${CORE}/configmaps/ap1`, {
    body: { metadata: { name: 'renamed' } },
    contentType: MERGE_PATCH,
  }),
  http('patches', 'patch changing the uid', 'PATCH', `${CORE}/configmaps/ap1`, {
    body: { metadata: { uid: '00000000-0000-0000-0000-000000000000' } },
    contentType: MERGE_PATCH,
  }),
  http('patches', 'merge patch null removes', 'PATCH', `${CORE}/configmaps/ap1`, {
    body: { data: { s: null } },
    contentType: MERGE_PATCH,
  }),
  http('patches', 'strategic merge of containers', 'PATCH', `${APPS}/deployments/d1`, {
    body: { spec: { template: { spec: { containers: [{ name: 'side', image: 'busybox:2' }] } } } },
    contentType: STRATEGIC,
    pick: (r) => ({ status: r.status, containers: r.json?.spec?.template?.spec?.containers }),
  }),
  http('patches', 'empty patch', 'PATCH', `${CORE}/configmaps/ap1`, {
    body: {},
    contentType: MERGE_PATCH,
  }),
  http('patches', 'dry-run patch', 'PATCH', `${CORE}/configmaps/ap1?dryRun=All`, {
    body: { data: { dry: 'run' } },
    contentType: MERGE_PATCH,
  }),
];

const widgetSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer', minimum: 0 },
        color: { type: 'string', enum: ['red', 'blue'] },
        replicas: { type: 'integer' },
        zeta: { type: 'string' },
        alpha: { type: 'string' },
      },
    },
    status: {
      type: 'object',
      properties: { ready: { type: 'boolean' }, replicas: { type: 'integer' } },
    },
  },
};

const crd = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: widgetSchema },
        subresources: {
          status: {},
          scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
        },
      },
    ],
    ...extra,
  },
});

const widget = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Widget',
  metadata: { name, labels: { z: '1', a: '2' } },
  spec,
});

const customResources: Step[] = [
  http('custom resources', 'create CRD', 'POST', CRD_PATH, {
    body: crd(`widgets.${GROUP}`),
    pick: (r) => ({ status: r.status, spec: r.json?.spec }),
  }),
  http('custom resources', 'CRD served', 'GET', CR, {
    until: (r) => r.status === 200,
    pick: (r) => r.status,
  }),
  http('custom resources', 'CRD name mismatch', 'POST', CRD_PATH, {
    body: crd('gadgets.diff.kubets.test'),
  }),
  http('custom resources', 'CRD with two storage versions', 'POST', CRD_PATH, {
    body: {
      ...crd(`things.${GROUP}`),
      spec: {
        group: GROUP,
        scope: 'Namespaced',
        names: { plural: 'things', singular: 'thing', kind: 'Thing' },
        versions: ['v1', 'v2'].map((name) => ({
          name,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object' } },
        })),
      },
    },
  }),
  http('custom resources', 'create CR keys unsorted', 'POST', CR, {
    body: widget('w1', { zeta: 'z', size: 1, alpha: 'a', color: 'red' }),
  }),
  http('custom resources', 'get CR keys sorted', 'GET', `${CR}/w1`),
  http('custom resources', 'list CRs', 'GET', CR),
  http('custom resources', 'CR validation order', 'POST', CR, {
    body: widget('w2', { size: -1, color: 'green', zeta: 5 }),
  }),
  http('custom resources', 'CR status validation', 'PUT', `${CR}/w1/status`, {
    body: (e: Earlier) => ({ ...e.get('get CR keys sorted')?.json, status: { ready: 'yes' } }),
  }),
  http('custom resources', 'CR strategic merge', 'PATCH', `${CR}/w1`, {
    body: { spec: { size: 2 } },
    contentType: STRATEGIC,
  }),
  http('custom resources', 'CR merge patch', 'PATCH', `${CR}/w1`, {
    body: { spec: { size: 2 } },
    contentType: MERGE_PATCH,
  }),
  http(
    'custom resources',
    'CR field selector on a spec field',
    'GET',
    `${CR}?fieldSelector=spec.size%3D2`,
    { pick: status },
  ),
  http(
    'custom resources',
    'CR field selector on metadata.name',
    'GET',
    `${CR}?fieldSelector=metadata.name%3Dw1`,
    {
      pick: (r) => ({ status: r.status, n: r.json?.items?.length }),
    },
  ),
  http('custom resources', 'CR under a cluster path', 'GET', `/apis/${GROUP}/v1/widgets`, {
    pick: (r) => ({ status: r.status, n: r.json?.items?.length }),
  }),
  http('custom resources', 'CR scale', 'GET', `${CR}/w1/scale`),
  http('custom resources', 'CR apply', 'PATCH', `${CR}/w3?fieldManager=a`, {
    body: JSON.stringify(widget('w3', { size: 3 })),
    contentType: APPLY,
  }),
  http('custom resources', 'CR PartialObjectMetadataList', 'GET', CR, {
    headers: { accept: PARTIAL_LIST },
  }),
  http('custom resources', 'CR Table', 'GET', CR, { headers: { accept: TABLE } }),
  http(
    'custom resources',
    'v1beta1 CRD',
    'POST',
    '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions',
    {
      body: {
        apiVersion: 'apiextensions.k8s.io/v1beta1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `gizmos.${GROUP}` },
        spec: {
          group: GROUP,
          version: 'v1',
          scope: 'Cluster',
          names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
        },
      },
      pick: (r) => ({ status: r.status, spec: r.json?.spec, message: r.json?.message }),
    },
  ),
  http('custom resources', 'v1beta1 CRD read at v1', 'GET', `${CRD_PATH}/gizmos.${GROUP}`, {
    pick: (r) => ({ status: r.status, spec: r.json?.spec }),
  }),
  http('custom resources', 'v1beta1 CRD served', 'GET', `/apis/${GROUP}/v1/gizmos`, {
    until: (r) => r.status === 200,
    pick: (r) => r.status,
  }),
  http('custom resources', 'create gizmo', 'POST', `/apis/${GROUP}/v1/gizmos`, {
    body: {
      apiVersion: `${GROUP}/v1`,
      kind: 'Gizmo',
      metadata: { name: 'g1' },
      anything: { b: 1, a: 2 },
    },
  }),
  http(
    'custom resources',
    'cluster-scoped CR under a namespace path',
    'GET',
    `/apis/${GROUP}/v1/namespaces/${NS}/gizmos`,
    { pick: status },
  ),
  http(
    'custom resources',
    'create cluster-scoped CR under a namespace path',
    'POST',
    `/apis/${GROUP}/v1/namespaces/${NS}/gizmos`,
    {
      body: { apiVersion: `${GROUP}/v1`, kind: 'Gizmo', metadata: { name: 'g2' } },
      pick: status,
    },
  ),
  http('custom resources', 'CR deletecollection', 'DELETE', `${CR}?labelSelector=none%3Dmatch`),
];

const kubectlSteps: Step[] = [];
for (const version of ['1.20', '1.34'] as const) {
  const k = (
    id: string,
    args: string[],
    extra: { stdin?: string; compare?: 'stdout' | 'both'; newer?: string } = {},
  ): Step => ({
    area: 'kubectl',
    id: `kubectl ${version} ${id}`,
    kubectl: version,
    args: ['-n', NS, ...args],
    ...extra,
  });
  const cm = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: k${version.replace('.', '')}}\ndata: {a: "1"}\n`;
  kubectlSteps.push(
    k('create configmap dry-run=server', [
      'create',
      'configmap',
      'kc',
      '--from-literal=a=b',
      '--dry-run=server',
      '-o',
      'json',
    ]),
    k('create configmap', [
      'create',
      'configmap',
      `kc${version.replace('.', '')}`,
      '--from-literal=a=b',
      '-o',
      'yaml',
    ]),
    k('get configmaps', ['get', 'configmaps']),
    k('get configmap -o yaml', ['get', 'configmap', 'ap1', '-o', 'yaml']),
    k('apply', ['apply', '-f', '-'], { stdin: cm }),
    k('apply again', ['apply', '-f', '-'], { stdin: cm }),
    k('diff', ['diff', '-f', '-'], { stdin: cm.replace('"1"', '"2"') }),
    k(
      'apply --server-side --dry-run=server',
      ['apply', '--server-side', '--dry-run=server', '-f', '-', '-o', 'yaml'],
      { stdin: cm.replace('"1"', '"3"') },
    ),
    k('apply --server-side', ['apply', '--server-side', '-f', '-'], {
      stdin: cm.replace('"1"', '"4"'),
    }),
    k('create job', [
      'create',
      'job',
      `j${version.replace('.', '')}`,
      '--image=busybox',
      '-o',
      'json',
    ]),
    k('create role', [
      'create',
      'role',
      `r${version.replace('.', '')}`,
      '--verb=get',
      '--resource=pods',
      '-o',
      'json',
    ]),
    k('create token', ['create', 'token', 'default']),
    k('scale deployment', ['scale', 'deployment', 'd1', '--replicas=4']),
    k('get widgets', ['get', 'widgets']),
    k('describe widget', ['describe', 'widget', 'w1']),
    k('explain widget', ['explain', 'widgets.spec'], {
      // kubectl 1.34 explains from /openapi/v3 where it is served, in v3's layout.
      ...(version === '1.34'
        ? { newer: '/openapi/v3 is served: kubectl 1.34 explains in its layout' }
        : {}),
    }),
    k('explain pod.spec.restartPolicy', ['explain', 'pod.spec.restartPolicy'], {
      ...(version === '1.34'
        ? { newer: '/openapi/v3 is served: kubectl 1.34 explains in its layout' }
        : {}),
    }),
    k('api-resources apps', ['api-resources', '--api-group=apps']),
    k('delete --wait with a finalizer', [
      'delete',
      'configmap',
      `fin${version.replace('.', '')}`,
      '--timeout=2s',
    ]),
    k('get pods -o wide', ['get', 'pods', '-o', 'wide']),
    k('describe deployment', ['describe', 'deployment', 'd1']),
    k('label', ['label', 'configmap', 'ap1', `v${version.replace('.', '')}=x`]),
    k('delete configmap', ['delete', 'configmap', `kc${version.replace('.', '')}`]),
  );
}

/** A configmap with a finalizer for `kubectl delete --wait` to wait on. */
const finalizerSetup: Step[] = ['120', '134'].map((v) =>
  http('kubectl', `finalizer configmap ${v}`, 'POST', `${CORE}/configmaps`, {
    body: configMap(`fin${v}`, { metadata: { name: `fin${v}`, finalizers: ['kubets.test/keep'] } }),
    pick: (r) => r.status,
  }),
);

/** Every step, in the order they run. */
export const STEPS: readonly Step[] = [
  ...writes,
  ...apply,
  ...subresources,
  ...reads,
  ...patches,
  ...customResources,
  ...finalizerSetup,
  ...kubectlSteps,
];
