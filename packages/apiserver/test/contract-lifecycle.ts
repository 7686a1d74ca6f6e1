import { beforeAll, describe, expect, it } from 'vitest';
import type { ContractTarget } from './contract.js';
import { rawWatch } from './contract-client.js';
import { cm, contractCalls, expectFailure, RFC3339, suffix } from './contract-helpers.js';

/**
 * The contract of what kube-apiserver does TO objects on write and delete (issue 18):
 * custom resources' apiVersion/kind, finalizers and propagation policies, namespace
 * termination, Secret and ConfigMap rules, graceful pod deletion. docs/embedded-server.md
 * names these tests.
 */
export function defineLifecycleContract(getTarget: () => ContractTarget): void {
  const { call, create, newNamespace, eventually } = contractCalls(getTarget);
  const mergePatch = (path: string, body: unknown) =>
    call('PATCH', path, { body, contentType: 'application/merge-patch+json' });

  describe('custom resources need apiVersion and kind', () => {
    const group = `k${suffix()}.contract.kubets.io`;
    let base: string;
    beforeAll(async () => {
      const ns = await newNamespace('crkind');
      await create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `gizmos.${group}` },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          ],
        },
      });
      base = `/apis/${group}/v1/namespaces/${ns}/gizmos`;
      await eventually(async () => (await call('GET', base)).status === 200, true);
    });

    it('answers a body without kind with the decoder’s 400, on create and update', async () => {
      const noKind = '{"metadata":{"name":"a"}}';
      const expected = `Gizmo in version "v1" cannot be handled as a Gizmo: unmarshalerDecoder: Object 'Kind' is missing in '${noKind}', error found in #10 byte of ...|ame":"a"}}|..., bigger context ...|${noKind}|...`;
      for (const method of ['POST', 'PUT']) {
        const res = await call(method, method === 'POST' ? base : `${base}/a`, { body: noKind });
        expectFailure(res, 400, { reason: 'BadRequest', message: expected });
      }
      const versionOnly = `{"apiVersion":"${group}/v1","metadata":{"name":"a"}}`;
      const res = await call('POST', base, { body: versionOnly });
      expectFailure(res, 400, {
        message: `Gizmo in version "v1" cannot be handled as a Gizmo: unmarshalerDecoder: Object 'Kind' is missing in '${versionOnly}', error found in #10 byte of ...|ame":"a"}}|..., bigger context ...|${versionOnly.slice(-50)}|...`,
      });
    });

    it('answers a body without apiVersion with 500 InternalError, as 1.20 does', async () => {
      const res = await call('POST', base, { body: { kind: 'Gizmo', metadata: { name: 'a' } } });
      expectFailure(res, 500, {
        reason: 'InternalError',
        message:
          "Internal error occurred: Object 'apiVersion' is missing in 'object has no apiVersion field'",
        details: {
          causes: [
            { message: "Object 'apiVersion' is missing in 'object has no apiVersion field'" },
          ],
        },
      });
    });

    it('refuses another apiVersion (400) or kind (422) than the URL’s', async () => {
      const version = await call('POST', base, {
        body: { apiVersion: `${group}/v2`, kind: 'Gizmo', metadata: { name: 'a' } },
      });
      expectFailure(version, 400, {
        reason: 'BadRequest',
        message: `the API version in the data (${group}/v2) does not match the expected API version (${group}/v1)`,
      });
      const kind = await call('POST', base, {
        body: { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'a' } },
      });
      expectFailure(kind, 422, {
        reason: 'Invalid',
        message: `Gadget.${group} "a" is invalid: kind: Invalid value: "Gadget": must be Gizmo`,
        details: {
          name: 'a',
          group,
          kind: 'Gadget',
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: 'Invalid value: "Gadget": must be Gizmo',
              field: 'kind',
            },
          ],
        },
      });
      const ok = await call('POST', base, {
        body: { apiVersion: `${group}/v1`, kind: 'Gizmo', metadata: { name: 'a' } },
      });
      expect(ok.status).toBe(201);
    });

    it('lets built-in objects leave out kind or apiVersion', async () => {
      const ns = await newNamespace('builtinkind');
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      expect((await call('POST', path, { body: { metadata: { name: 'a' } } })).status).toBe(201);
      const onlyVersion = { apiVersion: 'v1', metadata: { name: 'b' } };
      expect((await call('POST', path, { body: onlyVersion })).status).toBe(201);
      const onlyKind = { kind: 'ConfigMap', metadata: { name: 'c' } };
      expect((await call('POST', path, { body: onlyKind })).status).toBe(201);
    });
  });

  describe('deletion with finalizers and propagation policies', () => {
    let ns: string;
    let path: string;
    beforeAll(async () => {
      ns = await newNamespace('finalize');
      path = `/api/v1/namespaces/${ns}/configmaps`;
    });

    it('marks the object, refuses new finalizers, and removes it with the last one (DELETED)', async () => {
      await create(path, cm('held', { metadata: { finalizers: ['contract.kubets.io/a'] } }));
      const deleting = await call('DELETE', `${path}/held`);
      expect(deleting.status).toBe(200);
      expect(deleting.json.metadata).toMatchObject({
        deletionGracePeriodSeconds: 0,
        finalizers: ['contract.kubets.io/a'],
      });
      expect(deleting.json.metadata.deletionTimestamp).toMatch(RFC3339);
      const again = await call('DELETE', `${path}/held`);
      expect(again.json.metadata.resourceVersion).toBe(deleting.json.metadata.resourceVersion);

      const added = await mergePatch(`${path}/held`, {
        metadata: { finalizers: ['contract.kubets.io/a', 'contract.kubets.io/b'] },
      });
      const cause = {
        reason: 'FieldValueForbidden',
        message:
          'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"contract.kubets.io/b"}',
        field: 'metadata.finalizers',
      };
      expectFailure(added, 422, {
        reason: 'Invalid',
        message: `ConfigMap "held" is invalid: metadata.finalizers: ${cause.message}`,
        details: { name: 'held', kind: 'ConfigMap', causes: [cause, cause] },
      });

      const watch = await rawWatch(
        getTarget(),
        `${path}?watch=true&fieldSelector=metadata.name%3Dheld&resourceVersion=${deleting.json.metadata.resourceVersion}`,
      );
      try {
        const released = await mergePatch(`${path}/held`, { metadata: { finalizers: null } });
        expect(released.status).toBe(200);
        const [event] = await watch.take(1, 10_000);
        expect(event).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'held' } } });
      } finally {
        watch.close();
      }
      expect((await call('GET', `${path}/held`)).status).toBe(404);
    });

    it('adds foregroundDeletion for Foreground and orphan for Orphan (no GC removes them)', async () => {
      const policies = [
        ['fg', { propagationPolicy: 'Foreground' }, 'foregroundDeletion'],
        ['or', { propagationPolicy: 'Orphan' }, 'orphan'],
        ['od', { orphanDependents: true }, 'orphan'],
      ] as const;
      for (const [name, options, finalizer] of policies) {
        await create(path, cm(name));
        const res = await call('DELETE', `${path}/${name}`, {
          body: { apiVersion: 'v1', kind: 'DeleteOptions', ...options },
        });
        expect(res.status).toBe(200);
        expect(res.json.metadata).toMatchObject({
          deletionGracePeriodSeconds: 0,
          finalizers: [finalizer],
        });
        // envtest runs no garbage collector, and the in-memory server has none yet.
        expect((await call('GET', `${path}/${name}`)).status).toBe(200);
      }
      await create(path, cm('bg'));
      const background = await call('DELETE', `${path}/bg?propagationPolicy=Background`);
      expect(background.json).toMatchObject({ kind: 'Status', status: 'Success' });
      const bogus = await call('DELETE', `${path}/fg?propagationPolicy=Bogus`);
      expectFailure(bogus, 422, {
        reason: 'Invalid',
        message:
          'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"',
        details: { group: 'meta.k8s.io', kind: 'DeleteOptions' },
      });
    });
  });

  describe('namespace deletion', () => {
    it('goes Terminating with the kubernetes finalizer and refuses new objects (403)', async () => {
      const ns = await newNamespace('terminate');
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      await create(path, cm('held', { metadata: { finalizers: ['contract.kubets.io/a'] } }));
      const res = await call('DELETE', `/api/v1/namespaces/${ns}`);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({
        kind: 'Namespace',
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Terminating' },
      });
      expect(res.json.metadata.deletionTimestamp).toMatch(RFC3339);
      const got = await call('GET', `/api/v1/namespaces/${ns}`);
      expect(got.json.status.phase).toBe('Terminating');
      const refused = await call('POST', path, { body: cm('new') });
      expectFailure(refused, 403, {
        kind: 'Status',
        status: 'Failure',
        reason: 'Forbidden',
        code: 403,
        message: `configmaps "new" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
        details: {
          name: 'new',
          kind: 'configmaps',
          causes: [
            {
              reason: 'NamespaceTerminating',
              message: `namespace ${ns} is being terminated`,
              field: 'metadata.namespace',
            },
          ],
        },
      });
      const recreate = await call('POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
      });
      expect(recreate.status).toBe(409);
    });

    it('is emptied and removed by the namespace controller (embedded only: envtest runs no controllers)', async (ctx) => {
      if (!getTarget().namespaceController) ctx.skip();
      const ns = await newNamespace('nsctl');
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      await create(path, cm('plain'));
      await create(path, cm('held', { metadata: { finalizers: ['contract.kubets.io/a'] } }));
      await call('DELETE', `/api/v1/namespaces/${ns}`);
      expect((await call('GET', `${path}/plain`)).status).toBe(404);
      const held = await call('GET', `${path}/held`);
      expect(held.json.metadata.deletionTimestamp).toMatch(RFC3339);
      expect((await call('GET', `/api/v1/namespaces/${ns}`)).status).toBe(200);
      await mergePatch(`${path}/held`, { metadata: { finalizers: null } });
      expect((await call('GET', `/api/v1/namespaces/${ns}`)).status).toBe(404);
    });
  });

  describe('secrets and configmaps', () => {
    let ns: string;
    beforeAll(async () => {
      ns = await newNamespace('secrets');
    });

    it('defaults type to Opaque and merges stringData into data', async () => {
      const res = await create(`/api/v1/namespaces/${ns}/secrets`, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's' },
        data: { a: 'eA==' },
        stringData: { b: 'hello', a: 'over' },
      });
      expect(res.json.type).toBe('Opaque');
      expect(res.json.data).toEqual({ a: 'b3Zlcg==', b: 'aGVsbG8=' });
      expect(res.json.stringData).toBeUndefined();
    });

    it('answers data that is not base64 with the decoder’s 400', async () => {
      const body =
        '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s2"},"data":{"a":"eA="}}';
      const res = await call('POST', `/api/v1/namespaces/${ns}/secrets`, { body });
      expectFailure(res, 400, {
        reason: 'BadRequest',
        message:
          'Secret in version "v1" cannot be handled as a Secret: v1.Secret.Data: decode base64: illegal base64 data at input byte 3, error found in #10 byte of ...|{"a":"eA="}}|..., bigger context ...|Secret","metadata":{"name":"s2"},"data":{"a":"eA="}}|...',
      });
    });

    it('keeps a Secret’s type (422 on change)', async () => {
      const path = `/api/v1/namespaces/${ns}/secrets`;
      await create(path, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'typed' },
        type: 'example.com/a',
      });
      const res = await mergePatch(`${path}/typed`, { type: 'example.com/b' });
      expectFailure(res, 422, {
        reason: 'Invalid',
        message:
          'Secret "typed" is invalid: type: Invalid value: "example.com/b": field is immutable',
        details: {
          name: 'typed',
          kind: 'Secret',
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: 'Invalid value: "example.com/b": field is immutable',
              field: 'type',
            },
          ],
        },
      });
    });

    it('refuses data changes to immutable ConfigMaps and Secrets (422)', async () => {
      const forbidden = (field: string) => ({
        reason: 'FieldValueForbidden',
        message: 'Forbidden: field is immutable when `immutable` is set',
        field,
      });
      await create(`/api/v1/namespaces/${ns}/configmaps`, {
        ...cm('frozen', { data: { a: 'x' } }),
        immutable: true,
      });
      const both = await mergePatch(`/api/v1/namespaces/${ns}/configmaps/frozen`, {
        data: { a: 'y' },
        immutable: false,
      });
      expectFailure(both, 422, {
        message:
          'ConfigMap "frozen" is invalid: [immutable: Forbidden: field is immutable when `immutable` is set, data: Forbidden: field is immutable when `immutable` is set]',
        details: { causes: [forbidden('immutable'), forbidden('data')] },
      });
      await create(`/api/v1/namespaces/${ns}/secrets`, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'frozen' },
        immutable: true,
        data: { a: 'eA==' },
      });
      const data = await mergePatch(`/api/v1/namespaces/${ns}/secrets/frozen`, {
        stringData: { a: 'y' },
      });
      expectFailure(data, 422, {
        message:
          'Secret "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set',
        details: { causes: [forbidden('data')] },
      });
      const labels = await mergePatch(`/api/v1/namespaces/${ns}/secrets/frozen`, {
        metadata: { labels: { still: 'allowed' } },
      });
      expect(labels.status).toBe(200);
    });
  });

  describe('graceful pod deletion', () => {
    let ns: string;
    beforeAll(async () => {
      ns = await newNamespace('graceful');
    });
    const pod = (name: string, spec: Record<string, unknown> = {}) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { ...spec, containers: [{ name: 'c', image: 'busybox:1' }] },
    });

    it('keeps a pod on a node terminating for its grace period (no kubelet ends it)', async () => {
      const path = `/api/v1/namespaces/${ns}/pods`;
      const created = await create(path, pod('onnode', { nodeName: 'node-1' }));
      const res = await call('DELETE', `${path}/onnode`);
      expect(res.status).toBe(200);
      expect(res.json.metadata.deletionGracePeriodSeconds).toBe(30);
      expect(Date.parse(res.json.metadata.deletionTimestamp)).toBeGreaterThanOrEqual(
        Date.parse(created.json.metadata.creationTimestamp) + 30_000,
      );
      expect((await call('GET', `${path}/onnode`)).status).toBe(200);
      const shorter = await call('DELETE', `${path}/onnode?gracePeriodSeconds=10`);
      expect(shorter.json.metadata.deletionGracePeriodSeconds).toBe(10);
      const longer = await call('DELETE', `${path}/onnode?gracePeriodSeconds=60`);
      expect(longer.json.metadata).toMatchObject({
        deletionGracePeriodSeconds: 10,
        resourceVersion: shorter.json.metadata.resourceVersion,
      });
      const now = await call('DELETE', `${path}/onnode?gracePeriodSeconds=0`);
      expect(now.status).toBe(200);
      expect((await call('GET', `${path}/onnode`)).status).toBe(404);
    });

    it('takes the grace period from terminationGracePeriodSeconds or the request', async () => {
      const path = `/api/v1/namespaces/${ns}/pods`;
      await create(path, pod('seven', { nodeName: 'node-1', terminationGracePeriodSeconds: 7 }));
      const seven = await call('DELETE', `${path}/seven`);
      expect(seven.json.metadata.deletionGracePeriodSeconds).toBe(7);
      await create(path, pod('five', { nodeName: 'node-1' }));
      const five = await call('DELETE', `${path}/five`, { body: { gracePeriodSeconds: 5 } });
      expect(five.json.metadata.deletionGracePeriodSeconds).toBe(5);
    });

    it('deletes a pod on no node at once', async () => {
      const path = `/api/v1/namespaces/${ns}/pods`;
      await create(path, pod('nonode'));
      const res = await call('DELETE', `${path}/nonode`);
      expect(res.json.metadata.deletionGracePeriodSeconds).toBe(0);
      expect(res.json.metadata.deletionTimestamp).toMatch(RFC3339);
      expect((await call('GET', `${path}/nonode`)).status).toBe(404);
    });
  });
}
