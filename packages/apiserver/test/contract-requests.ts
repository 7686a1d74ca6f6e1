import { expect, it } from 'vitest';
import type { ContractEndpoint, RawRequestOptions } from './contract-client.js';
import { cm, contractCalls, createOpenCrd } from './contract-helpers.js';

/**
 * How kube-apiserver 1.20 answers requests a client gets slightly wrong: unknown fields,
 * options it refuses, bodies and patches that do not decode or apply, methods a path does not
 * take, media types it does not produce; and the pod subresources the scheduler and kubectl
 * use. Each answer here was taken from kube-apiserver 1.20 (`diff:kube-apiserver`).
 */

const METHOD_NOT_ALLOWED = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server does not allow this method on the requested resource',
  reason: 'MethodNotAllowed',
  details: {},
  code: 405,
};

/** The 422 a JSON patch that does not apply gets: the patch library's text is not passed on. */
const PATCH_DOES_NOT_APPLY = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server rejected our request due to an error in our request',
  reason: 'Invalid',
  details: {},
  code: 422,
};

/** A 422 `<Options>.meta.k8s.io "" is invalid` with these causes. */
function invalidOptions(
  kind: string,
  causes: { reason: string; message: string; field: string }[],
) {
  const lines = causes.map((c) => `${c.field}: ${c.message}`);
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${kind}.meta.k8s.io "" is invalid: ${lines.length === 1 ? lines[0] : `[${lines.join(', ')}]`}`,
    reason: 'Invalid',
    details: { group: 'meta.k8s.io', kind, causes },
    code: 422,
  };
}

const DRY_RUN_YES = {
  reason: 'FieldValueNotSupported',
  message: 'Unsupported value: []string{"Yes"}: supported values: "All"',
  field: 'dryRun',
};

/** Registers the tests in the caller's describe block. */
export function defineRequestsContract(getTarget: () => ContractEndpoint): void {
  const calls = contractCalls(getTarget);
  const { call, create, newNamespace } = calls;

  it('drops fields a built-in object does not have, at the top, in metadata and deeper', async () => {
    const ns = await newNamespace('unknown-fields');
    const created = await create(`/api/v1/namespaces/${ns}/configmaps`, {
      ...cm('c', { data: { a: '1' } }),
      bogus: 1,
      metadata: { name: 'c', bogus: 'x' },
    });
    expect(created.json.bogus).toBeUndefined();
    expect(created.json.metadata.bogus).toBeUndefined();
    expect(created.json.metadata.managedFields[0].fieldsV1).toEqual({
      'f:data': { '.': {}, 'f:a': {} },
    });
    const pod = await create(`/api/v1/namespaces/${ns}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'main', image: 'busybox:1', bogus: true }], bogus: 2 },
    });
    expect(pod.json.spec.containers[0].bogus).toBeUndefined();
    expect(pod.json.spec.bogus).toBeUndefined();
    // Updates and patches drop them too.
    const put = await call('PUT', `/api/v1/namespaces/${ns}/configmaps/c`, {
      body: { ...created.json, extra: { a: 1 } },
    });
    expect(put.status).toBe(200);
    expect(put.json.extra).toBeUndefined();
    const patched = await call('PATCH', `/api/v1/namespaces/${ns}/configmaps/c`, {
      body: { extra: 1, data: { b: '2' } },
      contentType: 'application/merge-patch+json',
    });
    expect(patched.json.extra).toBeUndefined();
    expect(patched.json.data).toEqual({ a: '1', b: '2' });
    expect((await call('GET', `/api/v1/namespaces/${ns}/configmaps/c`)).json.extra).toBeUndefined();
  });

  it('answers a create with metadata.resourceVersion set with 500 (storage refuses it), ignores one that is not a number', async () => {
    const ns = await newNamespace('create-rv');
    const res = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      body: cm('c', { metadata: { resourceVersion: '5' } }),
    });
    expect({ status: res.status, body: res.json }).toEqual({
      status: 500,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'resourceVersion should not be set on objects to be created',
        code: 500,
      },
    });
    for (const resourceVersion of ['0', 'abc']) {
      const ok = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: cm(`ok-${resourceVersion}`, { metadata: { resourceVersion } }),
      });
      expect(ok.status).toBe(201);
    }
  });

  it('records a generateName as the creator’s field', async () => {
    const ns = await newNamespace('generate-name');
    const res = await create(`/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { generateName: 'gen-' },
    });
    expect(res.json.metadata.managedFields[0].fieldsV1).toEqual({
      'f:metadata': { 'f:generateName': {} },
    });
  });

  it('answers a dry-run create without a resourceVersion and stores nothing', async () => {
    const ns = await newNamespace('dry-create');
    const res = await call('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, {
      body: cm('c'),
    });
    expect(res.status).toBe(201);
    expect(res.json.metadata.resourceVersion).toBeUndefined();
    expect(res.json.metadata.uid).toEqual(expect.any(String));
    expect((await call('GET', `/api/v1/namespaces/${ns}/configmaps/c`)).status).toBe(404);
  });

  it('refuses bad write options before the body: dryRun values, fieldManager length, force off apply', async () => {
    const ns = await newNamespace('write-options');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    await create(path, cm('c'));
    const long = 'm'.repeat(129);
    const tooLong = {
      reason: 'FieldValueTooLong',
      message: 'Too long: must have at most 128 bytes',
      field: 'fieldManager',
    };
    const merge = 'application/merge-patch+json';
    const cases: [string, string, RawRequestOptions, object][] = [
      [
        'POST',
        `${path}?dryRun=Yes`,
        { body: cm('d') },
        invalidOptions('CreateOptions', [DRY_RUN_YES]),
      ],
      [
        'POST',
        `${path}?fieldManager=${long}&dryRun=Yes`,
        { body: 'not json' },
        invalidOptions('CreateOptions', [tooLong, DRY_RUN_YES]),
      ],
      [
        'PUT',
        `${path}/c?dryRun=Yes`,
        { body: cm('c') },
        invalidOptions('UpdateOptions', [DRY_RUN_YES]),
      ],
      [
        'PATCH',
        `${path}/c?force=true`,
        { body: {}, contentType: merge },
        invalidOptions('PatchOptions', [
          {
            reason: 'FieldValueForbidden',
            message: 'Forbidden: may not be specified for non-apply patch',
            field: 'force',
          },
        ]),
      ],
      [
        'PATCH',
        `${path}/c?fieldManager=${long}`,
        { body: {}, contentType: merge },
        invalidOptions('PatchOptions', [tooLong]),
      ],
      [
        'PATCH',
        `${path}/c`,
        { body: 'apiVersion: v1', contentType: 'application/apply-patch+yaml' },
        invalidOptions('PatchOptions', [
          {
            reason: 'FieldValueRequired',
            message: 'Required value: is required for apply patch',
            field: 'fieldManager',
          },
        ]),
      ],
      ['DELETE', `${path}/c?dryRun=Yes`, {}, invalidOptions('DeleteOptions', [DRY_RUN_YES])],
    ];
    for (const [method, url, options, expected] of cases) {
      const res = await call(method, url, options);
      expect({ method, url, body: res.json }).toEqual({ method, url, body: expected });
    }
    expect((await call('GET', `${path}/c`)).status).toBe(200);
  });

  it('answers bodies that do not decode as kube-apiserver’s decoder does', async () => {
    const ns = await newNamespace('bodies');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const badRequest = (message: string) => ({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'BadRequest',
      code: 400,
    });
    const unrecognized = (summary: string) =>
      badRequest(
        `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input (${summary})`,
      );
    const cases: [string, RawRequestOptions, number, object][] = [
      ['short', { body: '{"kind": ' }, 400, unrecognized('{"kind": ')],
      ['empty', { body: '' }, 400, unrecognized('<empty>')],
      [
        'long',
        { body: '{"apiVersion": "v1", "kind": "ConfigMap", ' },
        400,
        unrecognized('{"apiVersion": "v1", "kind": " ...'),
      ],
      [
        'binaryData',
        {
          body: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'b' },
            binaryData: { k: '!!' },
          },
        },
        400,
        badRequest(
          'ConfigMap in version "v1" cannot be handled as a ConfigMap: v1.ConfigMap.BinaryData: decode base64: illegal base64 data at input byte 0, error found in #10 byte of ...|:{"k":"!!"}}|..., bigger context ...|ap","metadata":{"name":"b"},"binaryData":{"k":"!!"}}|...',
        ),
      ],
      [
        'another kind',
        { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'w' } } },
        400,
        badRequest(
          'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
        ),
      ],
      [
        'text/plain',
        { body: JSON.stringify(cm('t')), contentType: 'text/plain' },
        415,
        {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message:
            'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
          reason: 'UnsupportedMediaType',
          code: 415,
        },
      ],
    ];
    for (const [name, options, status, expected] of cases) {
      const res = await call('POST', path, options);
      expect({ name, status: res.status, body: res.json }).toEqual({
        name,
        status,
        body: expected,
      });
    }
  });

  it('answers methods a built-in path does not take with go-restful’s 405', async () => {
    const ns = await newNamespace('methods');
    await create(`/api/v1/namespaces/${ns}/configmaps`, cm('c'));
    const cases: [string, string][] = [
      ['PUT', `/api/v1/namespaces/${ns}/configmaps`],
      ['POST', `/api/v1/namespaces/${ns}/configmaps/c`],
      ['POST', '/api/v1/configmaps'],
      ['DELETE', `/api/v1/namespaces/${ns}/services`],
      ['DELETE', '/api/v1/namespaces'],
    ];
    for (const [method, path] of cases) {
      const res = await call(method, path, { body: cm('c') });
      expect({ method, path, body: res.json }).toEqual({ method, path, body: METHOD_NOT_ALLOWED });
    }
  });

  it('answers JSON patches that do not apply, merge patches that are not objects, and patch media types', async () => {
    const ns = await newNamespace('patch-errors');
    const path = `/api/v1/namespaces/${ns}/configmaps/c`;
    await create(`/api/v1/namespaces/${ns}/configmaps`, cm('c', { data: { x: '1' } }));
    const json = 'application/json-patch+json';
    for (const patch of [
      [{ op: 'test', path: '/data/x', value: 'nope' }],
      [{ op: 'remove', path: '/data/missing' }],
      [{ op: 'frob', path: '/data/x' }],
      [{ op: 'add', path: '/metadata/labels/a', value: 'b' }],
    ]) {
      const res = await call('PATCH', path, { body: patch, contentType: json });
      expect({ patch, body: res.json }).toEqual({ patch, body: PATCH_DOES_NOT_APPLY });
    }
    const list = await call('PATCH', path, {
      body: [1, 2],
      contentType: 'application/merge-patch+json',
    });
    const cause = `Invalid value: "[1,2]": couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;
    expect(list.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: ` "" is invalid: patch: ${cause}`,
      reason: 'Invalid',
      details: { causes: [{ reason: 'FieldValueInvalid', message: cause, field: 'patch' }] },
      code: 422,
    });
    const wrongType = await call('PATCH', path, {
      body: { data: 5 },
      contentType: 'application/merge-patch+json',
    });
    expect(wrongType.json).toMatchObject({
      status: 'Failure',
      reason: 'Invalid',
      message: expect.stringMatching(
        /^ "" is invalid: patch: Invalid value: "\{.*"data\\":5.*ReadMapCB: expect \{ or n, but found 5/,
      ),
      details: { causes: [{ reason: 'FieldValueInvalid', field: 'patch' }] },
      code: 422,
    });
    expect((await call('GET', path)).json.data).toEqual({ x: '1' });
    const uid = await call('PATCH', path, {
      body: { metadata: { uid: '00000000-0000-0000-0000-000000000000' } },
      contentType: 'application/merge-patch+json',
    });
    const immutable = {
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "00000000-0000-0000-0000-000000000000": field is immutable',
      field: 'metadata.uid',
    };
    expect(uid.json).toMatchObject({
      message: `ConfigMap "c" is invalid: metadata.uid: ${immutable.message}`,
      details: { name: 'c', kind: 'ConfigMap', causes: [immutable, immutable] },
      code: 422,
    });
    const bogus = await call('PATCH', path, { body: {}, contentType: 'application/bogus+json' });
    expect(bogus.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: '415: Unsupported Media Type',
      reason: 'UnsupportedMediaType',
      details: {},
      code: 415,
    });
    const names = { plural: 'patchables', singular: 'patchable', kind: 'Patchable' };
    const { group, collection } = await createOpenCrd(calls, 'patches', names, ns);
    await create(collection, {
      apiVersion: `${group}/v1`,
      kind: 'Patchable',
      metadata: { name: 'p' },
    });
    for (const contentType of [
      'application/strategic-merge-patch+json',
      'application/bogus+json',
    ]) {
      const res = await call('PATCH', `${collection}/p`, { body: {}, contentType });
      expect({ contentType, body: res.json }).toEqual({
        contentType,
        body: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message:
            'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
          reason: 'UnsupportedMediaType',
          code: 415,
        },
      });
    }
  });

  it('names a Deployment’s scale as a Scale: a negative replica count, a missing Deployment read through it', async () => {
    const ns = await newNamespace('scale-errors');
    await create(`/apis/apps/v1/namespaces/${ns}/deployments`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: {
        selector: { matchLabels: { app: 'd' } },
        template: {
          metadata: { labels: { app: 'd' } },
          spec: { containers: [{ name: 'main', image: 'busybox:1' }] },
        },
      },
    });
    const scale = (name: string, replicas: number) => ({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name, namespace: ns },
      spec: { replicas },
    });
    const negative = await call('PUT', `/apis/apps/v1/namespaces/${ns}/deployments/d/scale`, {
      body: scale('d', -1),
    });
    const message = 'Invalid value: -1: must be greater than or equal to 0';
    expect(negative.json).toMatchObject({
      message: `Scale.autoscaling "d" is invalid: spec.replicas: ${message}`,
      details: {
        name: 'd',
        group: 'autoscaling',
        kind: 'Scale',
        causes: [{ reason: 'FieldValueInvalid', message, field: 'spec.replicas' }],
      },
      code: 422,
    });
    for (const [method, kind] of [
      ['GET', 'deployments/scale'],
      ['PUT', 'deployments'],
    ] as const) {
      const res = await call(method, `/apis/apps/v1/namespaces/${ns}/deployments/none/scale`, {
        ...(method === 'PUT' ? { body: scale('none', 1) } : {}),
      });
      expect({ method, body: res.json }).toEqual({
        method,
        body: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `${kind}.apps "none" not found`,
          reason: 'NotFound',
          details: { name: 'none', group: 'apps', kind },
          code: 404,
        },
      });
    }
  });

  it('binds a pod to a node once, evicts pods, and refuses exec on a pod with no node', async () => {
    const ns = await newNamespace('pod-actions');
    const pods = `/api/v1/namespaces/${ns}/pods`;
    const pod = (name: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { containers: [{ name: 'main', image: 'busybox:1' }] },
    });
    await create(pods, pod('p'));
    await create(pods, pod('q'));
    const created = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      code: 201,
    };
    const exec = await call('POST', `${pods}/p/exec?command=ls&stdout=true`);
    expect(exec.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'pod p does not have a host assigned',
      reason: 'BadRequest',
      code: 400,
    });
    const binding = (node: string) => ({
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'p' },
      target: { kind: 'Node', name: node },
    });
    const bound = await call('POST', `${pods}/p/binding`, { body: binding('node-a') });
    expect({ status: bound.status, body: bound.json }).toEqual({ status: 201, body: created });
    const after = await call('GET', `${pods}/p`);
    expect(after.json.spec.nodeName).toBe('node-a');
    expect(after.json.status.conditions).toEqual([
      {
        type: 'PodScheduled',
        status: 'True',
        lastProbeTime: null,
        lastTransitionTime: expect.stringMatching(/Z$/),
      },
    ]);
    const again = await call('POST', `${pods}/p/binding`, { body: binding('node-b') });
    expect(again.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "node-a"',
      reason: 'Conflict',
      details: { name: 'p', kind: 'pods/binding' },
      code: 409,
    });
    const eviction = (name: string) => ({
      apiVersion: 'policy/v1beta1',
      kind: 'Eviction',
      metadata: { name, namespace: ns },
    });
    const evicted = await call('POST', `${pods}/q/eviction`, { body: eviction('q') });
    expect({ status: evicted.status, body: evicted.json }).toEqual({ status: 201, body: created });
    expect((await call('GET', `${pods}/q`)).status).toBe(404);
    const missing = await call('POST', `${pods}/none/eviction`, { body: eviction('none') });
    expect(missing.json).toMatchObject({
      message: 'pods "none" not found',
      details: { name: 'none', kind: 'pods' },
      code: 404,
    });
  });

  it('refuses what a GET cannot be answered in: a PartialObjectMetadataList of one object, HTML (406)', async () => {
    const ns = await newNamespace('accept');
    await create(`/api/v1/namespaces/${ns}/configmaps`, cm('c'));
    const one = await call('GET', `/api/v1/namespaces/${ns}/configmaps/c`, {
      headers: { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' },
    });
    expect(one.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)',
      reason: 'NotAcceptable',
      code: 406,
    });
    const html = await call('GET', `/api/v1/namespaces/${ns}/configmaps/c`, {
      headers: { accept: 'text/html' },
    });
    expect(html.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: '406: Not Acceptable',
      reason: 'NotAcceptable',
      details: {},
      code: 406,
    });
    for (const accept of ['*/*', 'application/json, */*', 'application/*, application/json']) {
      const res = await call('GET', `/api/v1/namespaces/${ns}/configmaps/c`, {
        headers: { accept },
      });
      expect({ accept, status: res.status }).toEqual({ accept, status: 200 });
    }
  });

  it('lists pods’ subresources by name in discovery, with storage version hashes and no singular names', async () => {
    const v1 = await call('GET', '/api/v1');
    // biome-ignore lint/suspicious/noExplicitAny: discovery JSON
    const resources = v1.json.resources as any[];
    const configmaps = resources.find((r) => r.name === 'configmaps');
    expect(configmaps).toEqual({
      name: 'configmaps',
      singularName: '',
      namespaced: true,
      kind: 'ConfigMap',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['cm'],
      storageVersionHash: 'qFsyl6wFWjQ=',
    });
    const served = ['attach', 'binding', 'eviction', 'exec', 'log', 'status'];
    const pods = resources
      .filter((r) => r.name.startsWith('pods/') && served.includes(r.name.slice(5)))
      .map((r) => r.name);
    expect(pods).toEqual(served.map((s) => `pods/${s}`));
    expect(resources.find((r) => r.name === 'pods/eviction')).toEqual({
      name: 'pods/eviction',
      singularName: '',
      namespaced: true,
      group: 'policy',
      version: 'v1beta1',
      kind: 'Eviction',
      verbs: ['create'],
    });
    const apps = await call('GET', '/apis/apps/v1');
    const deployments = (apps.json.resources as { name: string }[])
      .map((r) => r.name)
      .filter((n) => n.startsWith('deployments'));
    expect(deployments).toEqual(['deployments', 'deployments/scale', 'deployments/status']);
  });

  it('lists custom resources with an empty continue, and refuses field selectors other than metadata’s', async () => {
    const ns = await newNamespace('cr-lists');
    const names = { plural: 'listables', singular: 'listable', kind: 'Listable' };
    const { group, collection } = await createOpenCrd(calls, 'lists', names, ns);
    await create(collection, {
      apiVersion: `${group}/v1`,
      kind: 'Listable',
      metadata: { name: 'l' },
      spec: { size: 2 },
    });
    const list = await call('GET', collection);
    expect(Object.keys(list.json.metadata)).toEqual(['continue', 'resourceVersion']);
    expect(list.json.metadata.continue).toBe('');
    const bad = await call('GET', `${collection}?fieldSelector=spec.size%3D2`);
    expect({ status: bad.status, message: bad.json.message }).toEqual({
      status: 400,
      message: 'field label not supported: spec.size',
    });
  });

  it('keeps a Service’s cluster IP once set (422)', async () => {
    const ns = await newNamespace('cluster-ip');
    const created = await create(`/api/v1/namespaces/${ns}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { selector: { app: 's' }, ports: [{ port: 80 }] },
    });
    const moved = created.json.spec.clusterIP === '10.0.0.99' ? '10.0.0.98' : '10.0.0.99';
    const res = await call('PUT', `/api/v1/namespaces/${ns}/services/s`, {
      body: {
        ...created.json,
        spec: { ...created.json.spec, clusterIP: moved, clusterIPs: [moved] },
      },
    });
    const message = `Invalid value: []string{"${moved}"}: may not change once set`;
    expect(res.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Service "s" is invalid: spec.clusterIPs[0]: ${message}`,
      reason: 'Invalid',
      details: {
        name: 's',
        kind: 'Service',
        causes: [{ reason: 'FieldValueInvalid', message, field: 'spec.clusterIPs[0]' }],
      },
      code: 422,
    });
  });

  it('answers bad list options: a limit that is not a number (400), resourceVersionMatch values (422)', async () => {
    const ns = await newNamespace('list-options');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const limit = await call('GET', `${path}?limit=abc`);
    expect({ status: limit.status, message: limit.json.message }).toEqual({
      status: 400,
      message: 'strconv.ParseInt: parsing "abc": invalid syntax',
    });
    const bogus = await call('GET', `${path}?resourceVersionMatch=Bogus&resourceVersion=1`);
    const message = 'Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""';
    expect(JSON.parse(bogus.text).details).toEqual({
      group: 'meta.k8s.io',
      kind: 'ListOptions',
      causes: [{ reason: 'FieldValueNotSupported', message, field: 'resourceVersionMatch' }],
    });
    expect(Object.keys(JSON.parse(bogus.text).details)).toEqual(['group', 'kind', 'causes']);
  });

  it('refuses a CRD not named <plural>.<group> (422)', async () => {
    const group = `named${Date.now().toString(36)}.contract.kubets.io`;
    const res = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `others.${group}` },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural: 'things', singular: 'thing', kind: 'Thing' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object' } },
            },
          ],
        },
      },
    });
    const message = `Invalid value: "others.${group}": must be spec.names.plural+"."+spec.group`;
    expect(res.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `CustomResourceDefinition.apiextensions.k8s.io "others.${group}" is invalid: metadata.name: ${message}`,
      reason: 'Invalid',
      details: {
        name: `others.${group}`,
        group: 'apiextensions.k8s.io',
        kind: 'CustomResourceDefinition',
        causes: [{ reason: 'FieldValueInvalid', message, field: 'metadata.name' }],
      },
      code: 422,
    });
  });

  it('publishes each resource’s PATCH with its dryRun parameter in /openapi/v2 (what kubectl 1.20 checks before --dry-run=server)', async () => {
    const res = await call('GET', '/openapi/v2');
    const patch = res.json.paths['/api/v1/namespaces/{namespace}/configmaps/{name}']?.patch;
    expect(patch['x-kubernetes-group-version-kind']).toEqual({
      group: '',
      kind: 'ConfigMap',
      version: 'v1',
    });
    expect(patch['x-kubernetes-action']).toBe('patch');
    // biome-ignore lint/suspicious/noExplicitAny: OpenAPI JSON
    const dryRun = patch.parameters.find((p: any) => p.name === 'dryRun');
    expect(dryRun).toMatchObject({
      name: 'dryRun',
      in: 'query',
      type: 'string',
      uniqueItems: true,
    });
    const apps = res.json.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']?.patch;
    expect(apps['x-kubernetes-group-version-kind']).toEqual({
      group: 'apps',
      kind: 'Deployment',
      version: 'v1',
    });
  });
}
