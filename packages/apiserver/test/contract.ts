import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { defineAdmissionWebhooksContract } from './contract-admission-webhooks.js';
import {
  type ContractEndpoint,
  type RawResponse,
  type RawWatchEvent,
  rawWatch,
} from './contract-client.js';
import { defineConversionWebhooksContract } from './contract-conversion-webhooks.js';
import { defineCrdSchemaContract } from './contract-crd-schema.js';
import { defineCrdSchemaFeaturesContract } from './contract-crd-schema-features.js';
import { defineDefaultsContract } from './contract-defaults.js';
import { defineEventsContract } from './contract-events.js';
import { defineGarbageCollectorContract } from './contract-gc.js';
import { cm, contractCalls, RFC3339, suffix } from './contract-helpers.js';
import { defineKeyOrderContract } from './contract-key-order.js';
import { defineKubectlCommandsContract } from './contract-kubectl-commands.js';
import { defineLifecycleContract } from './contract-lifecycle.js';
import { defineListShapeContract } from './contract-list-shape.js';
import { defineManagedFieldsContract } from './contract-managed-fields.js';
import { defineMicroTimeContract } from './contract-microtime.js';
import { defineOpenApiContract } from './contract-openapi.js';
import { defineReadFormatsContract } from './contract-read-formats.js';
import { defineReadsContract } from './contract-reads.js';
import { defineRequestsContract } from './contract-requests.js';
import { defineResourceVersionParsingContract } from './contract-resource-version-parsing.js';
import { defineResourceVersionContract } from './contract-resource-versions.js';
import { defineReviewsContract, defineSubjectReviewsContract } from './contract-reviews.js';
import { defineStrategicMergeContract } from './contract-strategic-merge.js';
import { defineValidationContract } from './contract-validation.js';
import { defineWatchCacheContract } from './contract-watch-cache.js';
import { defineWireTypesContract } from './contract-wire-types.js';
import { defineWorkloadFieldSelectorsContract } from './contract-workload-field-selectors.js';
import { defineWritesRound2Contract } from './contract-writes-round2.js';

/**
 * A server the contract suite runs against: the in-memory API server or envtest's real
 * kube-apiserver 1.20.
 */
export interface ContractTarget extends ContractEndpoint {
  /**
   * Makes every resourceVersion written so far too old: continue tokens and exact lists at them
   * get 410 Expired, and so do watches of `leases` from them (envtest runs with the leases
   * watch cache off, so those watches go to etcd, which compacts).
   */
  compact(): Promise<void>;
  /**
   * Lets the 3 s pass that a read at a resourceVersion ahead of the server's waits, once such a
   * read is waiting: nothing to do on kube-apiserver (its wall-clock wait ends by itself); the
   * in-memory server's fake clock is moved on.
   */
  elapseReadWait(): Promise<void>;
  /** Whether the server streams lists (`sendInitialEvents=true`); 1.20 refuses them. */
  streamingLists: boolean;
  /**
   * Whether a watch with `allowWatchBookmarks=true&timeoutSeconds=4` gets a BOOKMARK before it
   * ends. 1.20 accepts the parameter but sends none there (its watchers get no deadline, and
   * bookmarks are scheduled 2 s before the deadline); newer servers and the in-memory one do.
   */
  sendsBookmarks: boolean;
  /**
   * Whether the server runs a namespace controller (the in-memory one, opted in): deleted
   * namespaces are emptied and removed. envtest runs no controllers.
   */
  namespaceController: boolean;
  /** Whether the server runs a garbage collector (the in-memory one, opted in); envtest has none. */
  garbageCollector: boolean;
}

const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/**
 * Registers the contract tests (vitest) for a target created in `beforeAll`: `getTarget` is
 * called when the tests run. Everything each block creates lives in its own namespace.
 */
export function defineContractSuite(getTarget: () => ContractTarget): void {
  const { call, create, newNamespace, eventually } = contractCalls(getTarget);
  defineLifecycleContract(getTarget);
  describe('built-in object validation', () => defineValidationContract(getTarget));
  describe('reads as kubectl makes them', () => defineReadsContract(getTarget));
  describe('read formats and headers', () => defineReadFormatsContract(getTarget));
  describe("kubectl's own commands", () => defineKubectlCommandsContract(getTarget));
  describe('defaulting and allocation', () => defineDefaultsContract(getTarget));
  describe('decoding', () => defineWireTypesContract(getTarget));
  describe('garbage collector', () => defineGarbageCollectorContract(getTarget));
  describe('CRD schemas', () => {
    defineCrdSchemaContract(getTarget);
    defineCrdSchemaFeaturesContract(getTarget);
  });
  describe('key order', () => defineKeyOrderContract(getTarget));
  describe('OpenAPI of built-in kinds', () => defineOpenApiContract(getTarget));
  describe('authorization reviews', () => {
    defineReviewsContract(getTarget);
    defineSubjectReviewsContract(getTarget);
  });
  describe('resourceVersion semantics', () => defineResourceVersionContract(getTarget));
  describe('resourceVersion parsing', () => defineResourceVersionParsingContract(getTarget));
  describe('list shape', () => defineListShapeContract(getTarget));
  describe('MicroTime decoding', () => defineMicroTimeContract(getTarget));
  describe('watch cache', () => defineWatchCacheContract(getTarget));
  describe('workload field selectors', () => defineWorkloadFieldSelectorsContract(getTarget));
  describe('managedFields', () => defineManagedFieldsContract(getTarget));
  describe('writes as 1.20 answers them, second round', () =>
    defineWritesRound2Contract(getTarget));
  describe('the two Event APIs', () => defineEventsContract(getTarget));
  describe('strategic merge patch', () => defineStrategicMergeContract(getTarget));
  describe('admission webhooks', () => defineAdmissionWebhooksContract(getTarget));
  describe('conversion webhooks', () => defineConversionWebhooksContract(getTarget));
  describe('requests a client gets wrong, pod subresources', () =>
    defineRequestsContract(getTarget));
  const deployment = (name: string, replicas = 1): Record<string, unknown> => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: 'busybox:1' }] },
      },
    },
  });

  describe('version and discovery', () => {
    it('serves /version', async () => {
      const res = await call('GET', '/version');
      expect(res.status).toBe(200);
      expect(res.json.major).toBe('1');
      expect(res.json.gitVersion).toMatch(/^v1\.\d+\.\d+/);
    });

    it('lists the core version and resources with scope, kind, verbs and short names', async () => {
      const api = await call('GET', '/api');
      expect(api.json.kind).toBe('APIVersions');
      expect(api.json.versions).toEqual(['v1']);
      const v1 = await call('GET', '/api/v1');
      expect(v1.json.kind).toBe('APIResourceList');
      expect(v1.json.groupVersion).toBe('v1');
      // biome-ignore lint/suspicious/noExplicitAny: discovery JSON
      const byName = new Map<string, any>(v1.json.resources.map((r: any) => [r.name, r]));
      expect(byName.get('pods')).toMatchObject({
        namespaced: true,
        kind: 'Pod',
        shortNames: ['po'],
        categories: ['all'],
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      });
      expect(byName.get('pods/log')).toMatchObject({
        namespaced: true,
        kind: 'Pod',
        verbs: ['get'],
      });
      expect(byName.get('pods/status')).toMatchObject({
        namespaced: true,
        kind: 'Pod',
        verbs: ['get', 'patch', 'update'],
      });
      expect(byName.get('namespaces')).toMatchObject({
        namespaced: false,
        kind: 'Namespace',
        shortNames: ['ns'],
      });
      expect(byName.get('nodes')).toMatchObject({ namespaced: false, shortNames: ['no'] });
      expect(byName.get('configmaps')).toMatchObject({ namespaced: true, shortNames: ['cm'] });
      expect(byName.get('services')?.verbs).not.toContain('deletecollection');
      for (const name of ['secrets', 'events', 'services']) expect(byName.has(name)).toBe(true);
    });

    it('lists the named groups with preferred versions and their resources', async () => {
      const apis = await call('GET', '/apis');
      expect(apis.json.kind).toBe('APIGroupList');
      // biome-ignore lint/suspicious/noExplicitAny: discovery JSON
      const groups = new Map<string, any>(apis.json.groups.map((g: any) => [g.name, g]));
      for (const group of [
        'apps',
        'coordination.k8s.io',
        'events.k8s.io',
        'apiextensions.k8s.io',
      ]) {
        expect(groups.get(group)?.preferredVersion).toEqual({
          groupVersion: `${group}/v1`,
          version: 'v1',
        });
      }
      const apps = await call('GET', '/apis/apps/v1');
      // biome-ignore lint/suspicious/noExplicitAny: discovery JSON
      const byName = new Map<string, any>(apps.json.resources.map((r: any) => [r.name, r]));
      expect(byName.get('deployments')).toMatchObject({
        namespaced: true,
        kind: 'Deployment',
        shortNames: ['deploy'],
      });
      expect(byName.get('deployments/status')).toMatchObject({ kind: 'Deployment' });
      expect(byName.get('deployments/scale')).toMatchObject({
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
      });
      for (const name of ['replicasets', 'statefulsets', 'daemonsets']) {
        expect(byName.get(name)?.namespaced).toBe(true);
      }
      const group = await call('GET', '/apis/apps');
      expect(group.json).toMatchObject({ kind: 'APIGroup', name: 'apps' });
      const crds = await call('GET', '/apis/apiextensions.k8s.io/v1');
      expect(
        // biome-ignore lint/suspicious/noExplicitAny: discovery JSON
        crds.json.resources.find((r: any) => r.name === 'customresourcedefinitions'),
      ).toMatchObject({ namespaced: false, shortNames: ['crd', 'crds'] });
      const leases = await call('GET', '/apis/coordination.k8s.io/v1');
      // biome-ignore lint/suspicious/noExplicitAny: discovery JSON
      expect(leases.json.resources.find((r: any) => r.name === 'leases')).toMatchObject({
        namespaced: true,
        kind: 'Lease',
      });
    });
  });

  describe('CRUD', () => {
    let ns: string;
    beforeAll(async () => {
      ns = await newNamespace('crud');
    });

    it('creates with uid, creationTimestamp and a resourceVersion that grows across resources', async () => {
      const a = await create(`/api/v1/namespaces/${ns}/configmaps`, cm('a', { data: { k: 'v' } }));
      expect(a.json.metadata).toMatchObject({ name: 'a', namespace: ns });
      expect(a.json.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(a.json.metadata.creationTimestamp).toMatch(RFC3339);
      expect(a.json.metadata.resourceVersion).toMatch(/^\d+$/);
      expect(a.json.metadata.generation).toBeUndefined();
      const s = await create(`/api/v1/namespaces/${ns}/secrets`, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's' },
      });
      expect(Number(s.json.metadata.resourceVersion)).toBeGreaterThan(
        Number(a.json.metadata.resourceVersion),
      );
      const got = await call('GET', `/api/v1/namespaces/${ns}/configmaps/a`);
      expect(got.status).toBe(200);
      expect(got.json).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { k: 'v' } });
    });

    it('generates names from generateName', async () => {
      const res = await create(`/api/v1/namespaces/${ns}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { generateName: 'gen-' },
      });
      expect(res.json.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
      expect(res.json.metadata.generateName).toBe('gen-');
    });

    it('answers AlreadyExists and NotFound Statuses', async () => {
      await create(`/api/v1/namespaces/${ns}/configmaps`, cm('dup'));
      const again = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('dup') });
      expect(again.status).toBe(409);
      expect(again.json).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'AlreadyExists',
        message: 'configmaps "dup" already exists',
        details: { name: 'dup', kind: 'configmaps' },
        code: 409,
      });
      const missing = await call('GET', `/api/v1/namespaces/${ns}/configmaps/nope`);
      expect(missing.status).toBe(404);
      expect(missing.json).toMatchObject({
        reason: 'NotFound',
        message: 'configmaps "nope" not found',
        details: { name: 'nope', kind: 'configmaps' },
      });
      const deploy = await call('GET', `/apis/apps/v1/namespaces/${ns}/deployments/nope`);
      expect(deploy.json.message).toBe('deployments.apps "nope" not found');
      expect(deploy.json.details).toMatchObject({ group: 'apps', kind: 'deployments' });
    });

    it('updates, and rejects a stale resourceVersion with 409 Conflict', async () => {
      const created = await create(`/api/v1/namespaces/${ns}/configmaps`, cm('upd'));
      const body = { ...created.json, data: { x: '1' } };
      const updated = await call('PUT', `/api/v1/namespaces/${ns}/configmaps/upd`, { body });
      expect(updated.status).toBe(200);
      expect(updated.json.data).toEqual({ x: '1' });
      expect(Number(updated.json.metadata.resourceVersion)).toBeGreaterThan(
        Number(created.json.metadata.resourceVersion),
      );
      expect(updated.json.metadata.uid).toBe(created.json.metadata.uid);
      const stale = await call('PUT', `/api/v1/namespaces/${ns}/configmaps/upd`, {
        body: { ...body, data: { x: '2' } },
      });
      expect(stale.status).toBe(409);
      expect(stale.json).toMatchObject({
        reason: 'Conflict',
        message:
          'Operation cannot be fulfilled on configmaps "upd": the object has been modified; please apply your changes to the latest version and try again',
        details: { name: 'upd', kind: 'configmaps' },
      });
      const { resourceVersion: _rv, ...metadata } = updated.json.metadata;
      const unconditional = await call('PUT', `/api/v1/namespaces/${ns}/configmaps/upd`, {
        body: { ...updated.json, metadata, data: { x: '3' } },
      });
      expect(unconditional.status).toBe(200);
      expect(unconditional.json.data).toEqual({ x: '3' });
    });

    it('bumps generation on spec changes only, and keeps status out of the main resource', async () => {
      const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
      const created = await create(base, deployment('gen'));
      expect(created.json.metadata.generation).toBe(1);
      const labelled = await call('PATCH', `${base}/gen`, {
        body: { metadata: { labels: { extra: 'yes' } } },
        contentType: 'application/merge-patch+json',
      });
      expect(labelled.json.metadata.generation).toBe(1);
      const scaled = await call('PATCH', `${base}/gen`, {
        body: { spec: { replicas: 3 } },
        contentType: 'application/merge-patch+json',
      });
      expect(scaled.json.metadata.generation).toBe(2);
      const status = await call('PUT', `${base}/gen/status`, {
        body: {
          ...scaled.json,
          status: { replicas: 3, observedGeneration: 2 },
          spec: { ...scaled.json.spec, replicas: 9 },
        },
      });
      expect(status.status).toBe(200);
      expect(status.json.status).toMatchObject({ replicas: 3, observedGeneration: 2 });
      expect(status.json.spec.replicas).toBe(3);
      expect(status.json.metadata.generation).toBe(2);
      const main = await call('PUT', `${base}/gen`, {
        body: { ...status.json, status: { replicas: 0 } },
      });
      expect(main.status).toBe(200);
      expect(main.json.status.replicas).toBe(3);
      expect(main.json.metadata.generation).toBe(2);
      const patchedStatus = await call('PATCH', `${base}/gen/status`, {
        body: { status: { readyReplicas: 2 } },
        contentType: 'application/merge-patch+json',
      });
      expect(patchedStatus.json.status).toMatchObject({ replicas: 3, readyReplicas: 2 });
    });

    it('serves the scale subresource of deployments', async () => {
      const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
      await create(base, deployment('scaled', 2));
      const scale = await call('GET', `${base}/scaled/scale`);
      expect(scale.json).toMatchObject({
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        metadata: { name: 'scaled', namespace: ns },
        spec: { replicas: 2 },
      });
      const put = await call('PUT', `${base}/scaled/scale`, {
        body: { ...scale.json, spec: { replicas: 5 } },
      });
      expect(put.status).toBe(200);
      expect(put.json.spec.replicas).toBe(5);
      const after = await call('GET', `${base}/scaled`);
      expect(after.json.spec.replicas).toBe(5);
    });

    it('serves cluster-scoped resources without a namespace', async () => {
      const name = `node-${suffix()}`;
      const created = await create('/api/v1/nodes', {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name },
      });
      expect(created.json.metadata.namespace).toBeUndefined();
      expect((await call('GET', `/api/v1/nodes/${name}`)).status).toBe(200);
      expect((await call('GET', `/api/v1/namespaces/${ns}/nodes/${name}`)).status).toBe(404);
      const namespace = await call('GET', `/api/v1/namespaces/${ns}`);
      expect(namespace.json).toMatchObject({ kind: 'Namespace', status: { phase: 'Active' } });
      for (const name of ['default', 'kube-system', 'kube-public']) {
        expect((await call('GET', `/api/v1/namespaces/${name}`)).status).toBe(200);
      }
    });

    it('deletes: Status for configmaps, the object for pods, preconditions checked', async () => {
      const created = await create(`/api/v1/namespaces/${ns}/configmaps`, cm('del'));
      const wrongUid = await call('DELETE', `/api/v1/namespaces/${ns}/configmaps/del`, {
        body: { preconditions: { uid: 'not-the-uid' } },
      });
      expect(wrongUid.status).toBe(409);
      expect(wrongUid.json.reason).toBe('Conflict');
      expect(wrongUid.json.message).toBe(
        `Operation cannot be fulfilled on ConfigMap "del": the UID in the precondition (not-the-uid) does not match the UID in record (${created.json.metadata.uid}). The object might have been deleted and then recreated`,
      );
      const wrongRv = await call('DELETE', `/api/v1/namespaces/${ns}/configmaps/del`, {
        body: { preconditions: { resourceVersion: '1' } },
      });
      expect(wrongRv.status).toBe(409);
      expect(wrongRv.json.message).toContain('the ResourceVersion in the precondition (1)');
      const deleted = await call('DELETE', `/api/v1/namespaces/${ns}/configmaps/del`, {
        body: { preconditions: { uid: created.json.metadata.uid } },
      });
      expect(deleted.status).toBe(200);
      expect(deleted.json).toMatchObject({
        kind: 'Status',
        status: 'Success',
        details: { name: 'del', kind: 'configmaps', uid: created.json.metadata.uid },
      });
      expect((await call('GET', `/api/v1/namespaces/${ns}/configmaps/del`)).status).toBe(404);
      expect((await call('DELETE', `/api/v1/namespaces/${ns}/configmaps/del`)).status).toBe(404);

      await create(`/api/v1/namespaces/${ns}/pods`, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p' },
        spec: { containers: [{ name: 'c', image: 'busybox:1' }] },
      });
      const pod = await call('DELETE', `/api/v1/namespaces/${ns}/pods/p`);
      expect(pod.status).toBe(200);
      expect(pod.json).toMatchObject({ kind: 'Pod', metadata: { name: 'p' } });
      expect((await call('GET', `/api/v1/namespaces/${ns}/pods/p`)).status).toBe(404);
    });

    it('keeps an object with finalizers until they are removed', async () => {
      await create(
        `/api/v1/namespaces/${ns}/configmaps`,
        cm('fin', { metadata: { finalizers: ['contract.kubets.io/hold'] } }),
      );
      const deleting = await call('DELETE', `/api/v1/namespaces/${ns}/configmaps/fin`);
      expect(deleting.status).toBe(200);
      expect(deleting.json.kind).toBe('ConfigMap');
      expect(deleting.json.metadata.deletionTimestamp).toMatch(RFC3339);
      const still = await call('GET', `/api/v1/namespaces/${ns}/configmaps/fin`);
      expect(still.status).toBe(200);
      expect(still.json.metadata.deletionTimestamp).toBeDefined();
      const released = await call('PATCH', `/api/v1/namespaces/${ns}/configmaps/fin`, {
        body: { metadata: { finalizers: null } },
        contentType: 'application/merge-patch+json',
      });
      expect(released.status).toBe(200);
      expect((await call('GET', `/api/v1/namespaces/${ns}/configmaps/fin`)).status).toBe(404);
    });

    it('deletes a collection by label selector and answers the deleted objects', async () => {
      for (const [name, tier] of [
        ['dc1', 'a'],
        ['dc2', 'a'],
        ['dc3', 'b'],
      ] as const) {
        await create(
          `/api/v1/namespaces/${ns}/configmaps`,
          cm(name, { metadata: { labels: { tier } } }),
        );
      }
      const res = await call(
        'DELETE',
        `/api/v1/namespaces/${ns}/configmaps?labelSelector=tier%3Da`,
      );
      expect(res.status).toBe(200);
      expect(res.json.kind).toBe('ConfigMapList');
      // biome-ignore lint/suspicious/noExplicitAny: list JSON
      expect(res.json.items.map((i: any) => i.metadata.name).sort()).toEqual(['dc1', 'dc2']);
      const left = await call('GET', `/api/v1/namespaces/${ns}/configmaps?labelSelector=tier`);
      // biome-ignore lint/suspicious/noExplicitAny: list JSON
      expect(left.json.items.map((i: any) => i.metadata.name)).toEqual(['dc3']);
    });
  });

  describe('bad requests get real Statuses and the server keeps serving', () => {
    let ns: string;
    beforeAll(async () => {
      ns = await newNamespace('bad');
    });

    it('invalid name → 422 Invalid', async () => {
      const res = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: cm('Bad_Name'),
      });
      expect(res.status).toBe(422);
      expect(res.json).toMatchObject({
        kind: 'Status',
        reason: 'Invalid',
        code: 422,
        message: `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${SUBDOMAIN_MESSAGE}`,
        details: {
          name: 'Bad_Name',
          kind: 'ConfigMap',
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: `Invalid value: "Bad_Name": ${SUBDOMAIN_MESSAGE}`,
              field: 'metadata.name',
            },
          ],
        },
      });
      const noName = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} },
      });
      expect(noName.status).toBe(422);
      expect(noName.json.message).toBe(
        'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
      );
    });

    it('wrong kind, malformed JSON, namespace mismatch → 400 BadRequest', async () => {
      const kind = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } },
      });
      expect(kind.status).toBe(400);
      expect(kind.json.reason).toBe('BadRequest');
      expect(kind.json.message).toMatch(/^Secret in version "v1" cannot be handled as a ConfigMap/);
      const malformed = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"',
      });
      expect(malformed.status).toBe(400);
      expect(malformed.json.reason).toBe('BadRequest');
      expect(malformed.json.message).toContain('json parse error: unexpected end of JSON input');
      const mismatch = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: cm('x', { metadata: { namespace: 'somewhere-else' } }),
      });
      expect(mismatch.status).toBe(400);
      expect(mismatch.json.message).toBe(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    });

    it('unknown resource → 404 NotFound Status; missing namespace → 404 for the namespace', async () => {
      const unknown = await call('GET', '/api/v1/widgets');
      expect(unknown.status).toBe(404);
      expect(unknown.json).toMatchObject({
        kind: 'Status',
        reason: 'NotFound',
        message: 'the server could not find the requested resource',
        code: 404,
      });
      const unknownGroup = await call('GET', '/apis/unknown.kubets.io/v1/widgets');
      expect(unknownGroup.status).toBe(404);
      const noNs = await call('POST', '/api/v1/namespaces/does-not-exist/configmaps', {
        body: cm('x'),
      });
      expect(noNs.status).toBe(404);
      expect(noNs.json).toMatchObject({
        reason: 'NotFound',
        message: 'namespaces "does-not-exist" not found',
        details: { name: 'does-not-exist', kind: 'namespaces' },
      });
      expect((await call('GET', '/version')).status).toBe(200);
      expect((await call('GET', `/api/v1/namespaces/${ns}/configmaps`)).status).toBe(200);
    });

    it('a PATCH with an unknown content type → 415 UnsupportedMediaType', async () => {
      await create(`/api/v1/namespaces/${ns}/configmaps`, cm('patched'));
      const res = await call('PATCH', `/api/v1/namespaces/${ns}/configmaps/patched`, {
        body: { data: { a: '1' } },
        contentType: 'application/json',
      });
      expect(res.status).toBe(415);
      expect(res.json).toMatchObject({ kind: 'Status', reason: 'UnsupportedMediaType', code: 415 });
    });
  });

  describe('patch', () => {
    let ns: string;
    beforeAll(async () => {
      ns = await newNamespace('patch');
    });

    it('JSON merge patch merges maps and deletes with null', async () => {
      await create(`/api/v1/namespaces/${ns}/configmaps`, cm('m', { data: { a: '1', b: '2' } }));
      const res = await call('PATCH', `/api/v1/namespaces/${ns}/configmaps/m`, {
        body: { data: { a: null, c: '3' }, metadata: { labels: { l: 'v' } } },
        contentType: 'application/merge-patch+json',
      });
      expect(res.status).toBe(200);
      expect(res.json.data).toEqual({ b: '2', c: '3' });
      expect(res.json.metadata.labels).toEqual({ l: 'v' });
    });

    it('JSON patch applies operations in order; a failed test answers 422', async () => {
      await create(`/api/v1/namespaces/${ns}/configmaps`, cm('j', { data: { a: '1' } }));
      const res = await call('PATCH', `/api/v1/namespaces/${ns}/configmaps/j`, {
        body: [
          { op: 'test', path: '/data/a', value: '1' },
          { op: 'add', path: '/data/b', value: '2' },
          { op: 'replace', path: '/data/a', value: 'x' },
          { op: 'remove', path: '/data/b' },
        ],
        contentType: 'application/json-patch+json',
      });
      expect(res.status).toBe(200);
      expect(res.json.data).toEqual({ a: 'x' });
      const failed = await call('PATCH', `/api/v1/namespaces/${ns}/configmaps/j`, {
        body: [{ op: 'test', path: '/data/a', value: 'nope' }],
        contentType: 'application/json-patch+json',
      });
      expect(failed.status).toBe(422);
      expect(failed.json.kind).toBe('Status');
    });

    it('strategic merge patch merges containers by name', async () => {
      const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
      await create(base, deployment('smp'));
      const res = await call('PATCH', `${base}/smp`, {
        body: {
          spec: {
            template: {
              spec: {
                containers: [
                  { name: 'main', image: 'busybox:2' },
                  { name: 'sidecar', image: 'envoy:1' },
                ],
              },
            },
          },
        },
        contentType: 'application/strategic-merge-patch+json',
      });
      expect(res.status).toBe(200);
      const containers = res.json.spec.template.spec.containers;
      expect(containers.map((c: { name: string }) => c.name)).toEqual(['main', 'sidecar']);
      expect(containers[0].image).toBe('busybox:2');
      const removed = await call('PATCH', `${base}/smp`, {
        body: {
          spec: { template: { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } } },
        },
        contentType: 'application/strategic-merge-patch+json',
      });
      expect(
        removed.json.spec.template.spec.containers.map((c: { name: string }) => c.name),
      ).toEqual(['main']);
    });

    it('server-side apply creates, records the manager, detects conflicts and forces', async () => {
      const path = `/api/v1/namespaces/${ns}/configmaps/ssa`;
      const apply = (manager: string, data: Record<string, string>, force = false) =>
        call('PATCH', `${path}?fieldManager=${manager}${force ? '&force=true' : ''}`, {
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data },
          contentType: 'application/apply-patch+yaml',
        });
      const created = await apply('alice', { a: '1' });
      expect(created.status).toBe(201);
      expect(created.json.data).toEqual({ a: '1' });
      expect(created.json.metadata.managedFields).toEqual([
        expect.objectContaining({ manager: 'alice', operation: 'Apply', apiVersion: 'v1' }),
      ]);
      const shared = await apply('bob', { a: '1', b: '2' });
      expect(shared.status).toBe(200);
      expect(shared.json.data).toEqual({ a: '1', b: '2' });
      const conflict = await apply('bob', { a: 'changed', b: '2' });
      expect(conflict.status).toBe(409);
      expect(conflict.json).toMatchObject({
        reason: 'Conflict',
        message: 'Apply failed with 1 conflict: conflict with "alice": .data.a',
        details: {
          causes: [
            {
              reason: 'FieldManagerConflict',
              message: 'conflict with "alice"',
              field: '.data.a',
            },
          ],
        },
      });
      const forced = await apply('bob', { a: 'changed', b: '2' }, true);
      expect(forced.status).toBe(200);
      expect(forced.json.data).toEqual({ a: 'changed', b: '2' });
      // alice no longer owns .data.a, so dropping it from her config keeps the value.
      const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  c: "3"\n';
      const again = await call('PATCH', `${path}?fieldManager=alice`, {
        body: yaml,
        contentType: 'application/apply-patch+yaml',
      });
      expect(again.status).toBe(200);
      expect(again.json.data).toEqual({ a: 'changed', b: '2', c: '3' });
    });
  });

  describe('custom resource definitions', () => {
    const group = `c${suffix()}.contract.kubets.io`;
    const crdName = `widgets.${group}`;
    let ns: string;
    beforeAll(async () => {
      ns = await newNamespace('crd');
    });

    const discovered = async (): Promise<boolean> => {
      const res = await call('GET', `/apis/${group}/v1`);
      if (res.status !== 200) return false;
      // biome-ignore lint/suspicious/noExplicitAny: discovery JSON
      return res.json.resources.some((r: any) => r.name === 'widgets');
    };

    it('serves a custom resource once its CRD exists, and stops when it is deleted', async () => {
      const crd = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        body: {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: crdName },
          spec: {
            group,
            scope: 'Namespaced',
            names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                subresources: { status: {} },
                schema: {
                  openAPIV3Schema: {
                    type: 'object',
                    properties: {
                      spec: { type: 'object', properties: { size: { type: 'integer' } } },
                      status: { type: 'object', properties: { ready: { type: 'boolean' } } },
                    },
                  },
                },
              },
            ],
          },
        },
      });
      expect(crd.status).toBe(201);
      await eventually(discovered, true);
      const apis = await call('GET', '/apis');
      // biome-ignore lint/suspicious/noExplicitAny: discovery JSON
      expect(apis.json.groups.some((g: any) => g.name === group)).toBe(true);
      const list = await call('GET', `/apis/${group}/v1`);
      // biome-ignore lint/suspicious/noExplicitAny: discovery JSON
      const widgets = list.json.resources.find((r: any) => r.name === 'widgets');
      expect(widgets).toMatchObject({
        singularName: 'widget',
        namespaced: true,
        kind: 'Widget',
        shortNames: ['wd'],
      });
      // biome-ignore lint/suspicious/noExplicitAny: discovery JSON
      expect(list.json.resources.some((r: any) => r.name === 'widgets/status')).toBe(true);

      const base = `/apis/${group}/v1/namespaces/${ns}/widgets`;
      let created: RawResponse | undefined;
      const deadline = Date.now() + 30_000;
      do {
        created = await call('POST', base, {
          body: {
            apiVersion: `${group}/v1`,
            kind: 'Widget',
            metadata: { name: 'w1' },
            spec: { size: 1 },
          },
        });
        if (created.status === 201) break;
        await sleep(200);
      } while (Date.now() < deadline);
      expect(created.status).toBe(201);
      expect(created.json.metadata.generation).toBe(1);
      const patched = await call('PATCH', `${base}/w1`, {
        body: { spec: { size: 2 } },
        contentType: 'application/merge-patch+json',
      });
      expect(patched.json.spec.size).toBe(2);
      expect(patched.json.metadata.generation).toBe(2);
      const status = await call('PATCH', `${base}/w1/status`, {
        body: { status: { ready: true } },
        contentType: 'application/merge-patch+json',
      });
      expect(status.json.status).toEqual({ ready: true });
      expect(status.json.metadata.generation).toBe(2);
      const listed = await call('GET', base);
      expect(listed.json.kind).toBe('WidgetList');
      expect(listed.json.items).toHaveLength(1);
      const smp = await call('PATCH', `${base}/w1`, {
        body: { spec: { size: 3 } },
        contentType: 'application/strategic-merge-patch+json',
      });
      expect(smp.status).toBe(415);

      const deleted = await call(
        'DELETE',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`,
      );
      expect(deleted.status).toBe(200);
      await eventually(discovered, false);
      await eventually(async () => (await call('GET', base)).status === 404, true);
    });
  });

  describe('list', () => {
    let ns: string;
    beforeAll(async () => {
      ns = await newNamespace('list');
      for (const [name, labels] of [
        ['l1', { app: 'a', tier: 'web' }],
        ['l2', { app: 'a', tier: 'db' }],
        ['l3', { app: 'b' }],
        ['l4', {}],
        ['l5', { app: 'c' }],
      ] as const) {
        await create(`/api/v1/namespaces/${ns}/configmaps`, cm(name, { metadata: { labels } }));
      }
    });
    const names = (res: RawResponse): string[] =>
      // biome-ignore lint/suspicious/noExplicitAny: list JSON
      res.json.items.map((i: any) => i.metadata.name).sort();
    const list = (query: string): Promise<RawResponse> =>
      call('GET', `/api/v1/namespaces/${ns}/configmaps${query}`);

    it('filters by label selector', async () => {
      expect(names(await list('?labelSelector=app%3Da'))).toEqual(['l1', 'l2']);
      expect(names(await list('?labelSelector=app!%3Da'))).toEqual(['l3', 'l4', 'l5']);
      expect(names(await list('?labelSelector=app%20in%20(a,b),tier!%3Ddb'))).toEqual(['l1', 'l3']);
      expect(names(await list('?labelSelector=!app'))).toEqual(['l4']);
      expect(names(await list('?labelSelector=tier'))).toEqual(['l1', 'l2']);
    });

    it('filters by metadata.name and metadata.namespace; rejects other fields with 400', async () => {
      expect(names(await list('?fieldSelector=metadata.name%3Dl3'))).toEqual(['l3']);
      expect(names(await list('?fieldSelector=metadata.name!%3Dl3'))).toEqual([
        'l1',
        'l2',
        'l4',
        'l5',
      ]);
      const all = await call('GET', `/api/v1/configmaps?fieldSelector=metadata.namespace%3D${ns}`);
      expect(names(all)).toEqual(['l1', 'l2', 'l3', 'l4', 'l5']);
      const bad = await list('?fieldSelector=spec.foo%3Dbar');
      expect(bad.status).toBe(400);
      expect(bad.json).toMatchObject({
        reason: 'BadRequest',
        message:
          '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"',
      });
    });

    it('pages with limit and continue, consistently at the first page’s resourceVersion', async () => {
      const first = await list('?limit=2');
      expect(first.status).toBe(200);
      expect(names(first)).toEqual(['l1', 'l2']);
      expect(first.json.metadata.continue).toBeTruthy();
      expect(first.json.metadata.remainingItemCount).toBe(3);
      const listRv = first.json.metadata.resourceVersion;
      // Changes after the first page do not show in later pages.
      await create(`/api/v1/namespaces/${ns}/configmaps`, cm('l0-late'));
      await create(`/api/v1/namespaces/${ns}/configmaps`, cm('l9-late'));
      await call('DELETE', `/api/v1/namespaces/${ns}/configmaps/l4`);
      const second = await list(
        `?limit=2&continue=${encodeURIComponent(first.json.metadata.continue)}`,
      );
      expect(second.status).toBe(200);
      expect(names(second)).toEqual(['l3', 'l4']);
      expect(second.json.metadata.resourceVersion).toBe(listRv);
      expect(second.json.metadata.remainingItemCount).toBe(1);
      const third = await list(
        `?limit=2&continue=${encodeURIComponent(second.json.metadata.continue)}`,
      );
      expect(names(third)).toEqual(['l5']);
      expect(third.json.metadata.continue ?? '').toBe('');
      const now = await list('');
      expect(names(now)).toEqual(['l0-late', 'l1', 'l2', 'l3', 'l5', 'l9-late']);
      expect(Number(now.json.metadata.resourceVersion)).toBeGreaterThan(Number(listRv));
      // Put the fixture back for the other tests.
      await call('DELETE', `/api/v1/namespaces/${ns}/configmaps/l0-late`);
      await call('DELETE', `/api/v1/namespaces/${ns}/configmaps/l9-late`);
    });

    it('serves resourceVersion=0 from the cache without paging, and exact lists at an older version', async () => {
      const any = await list('?resourceVersion=0&limit=1');
      expect(any.status).toBe(200);
      expect(any.json.items.length).toBeGreaterThan(1);
      expect(any.json.metadata.continue ?? '').toBe('');
      const before = await list('');
      const rv = before.json.metadata.resourceVersion;
      await create(`/api/v1/namespaces/${ns}/configmaps`, cm('l6-later'));
      const exact = await list(`?resourceVersion=${rv}&resourceVersionMatch=Exact`);
      expect(exact.status).toBe(200);
      expect(exact.json.metadata.resourceVersion).toBe(rv);
      expect(names(exact)).toEqual(names(before));
      const legacyPaged = await list(`?resourceVersion=${rv}&limit=100`);
      expect(names(legacyPaged)).toEqual(names(before));
      const notOlder = await list(`?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
      expect(names(notOlder)).toContain('l6-later');
      await call('DELETE', `/api/v1/namespaces/${ns}/configmaps/l6-later`);
    });

    it('validates resourceVersionMatch', async () => {
      const noRv = await list('?resourceVersionMatch=Exact');
      expect(noRv.status).toBe(422);
      expect(noRv.json.message).toBe(
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
      );
      const exactZero = await list('?resourceVersion=0&resourceVersionMatch=Exact');
      expect(exactZero.status).toBe(422);
      expect(exactZero.json.message).toContain(
        'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
      );
    });

    it('serves PartialObjectMetadata lists', async () => {
      const res = await call('GET', `/api/v1/namespaces/${ns}/configmaps?labelSelector=app%3Da`, {
        headers: { accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' },
      });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({
        kind: 'PartialObjectMetadataList',
        apiVersion: 'meta.k8s.io/v1',
      });
      expect(res.json.items[0].metadata.name).toBe('l1');
      expect(res.json.items[0].data).toBeUndefined();
    });

    it('expires continue tokens and exact lists older than the compaction point with 410', async () => {
      const first = await list('?limit=1');
      const token = first.json.metadata.continue;
      const rv = first.json.metadata.resourceVersion;
      expect(token).toBeTruthy();
      await getTarget().compact();
      const expired = await list(`?limit=1&continue=${encodeURIComponent(token)}`);
      expect(expired.status).toBe(410);
      expect(expired.json).toMatchObject({
        kind: 'Status',
        reason: 'Expired',
        code: 410,
        message: expect.stringMatching(
          /^The provided continue parameter is too old to display a consistent list result\./,
        ),
      });
      expect(expired.json.metadata.continue).toBeTruthy();
      const exact = await list(`?resourceVersion=${rv}&resourceVersionMatch=Exact`);
      expect(exact.status).toBe(410);
      expect(exact.json).toMatchObject({
        reason: 'Expired',
        message: 'The resourceVersion for the provided list is too old.',
      });
      // The token from the 410 continues at the current state.
      const resumed = await list(
        `?limit=10&continue=${encodeURIComponent(expired.json.metadata.continue)}`,
      );
      expect(resumed.status).toBe(200);
      expect(names(resumed)).toEqual(['l2', 'l3', 'l5']);
    });
  });

  describe('watch', () => {
    let ns: string;
    beforeAll(async () => {
      ns = await newNamespace('watch');
    });
    const base = (): string => `/api/v1/namespaces/${ns}/configmaps`;

    it('streams ADDED, MODIFIED and DELETED from a list’s resourceVersion', async () => {
      const listed = await call('GET', base());
      const rv = listed.json.metadata.resourceVersion;
      await create(base(), cm('w1', { data: { v: '1' } }));
      const w = await rawWatch(getTarget(), `${base()}?watch=true&resourceVersion=${rv}`);
      expect(w.status).toBe(200);
      await call('PATCH', `${base()}/w1`, {
        body: { data: { v: '2' } },
        contentType: 'application/merge-patch+json',
      });
      const deleted = await call('DELETE', `${base()}/w1`);
      expect(deleted.status).toBe(200);
      const events = await w.take(3);
      w.close();
      expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      expect(events[0]?.object).toMatchObject({
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: { name: 'w1' },
      });
      expect(events[1]?.object.data).toEqual({ v: '2' });
      const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
      expect(rvs[0]).toBeLessThan(rvs[1] as number);
      expect(rvs[1]).toBeLessThan(rvs[2] as number);
    });

    it('serves the legacy /watch/ paths, for a collection and for one object', async () => {
      await create(base(), cm('legacy'));
      const all = await rawWatch(getTarget(), `/api/v1/watch/namespaces/${ns}/configmaps`);
      const one = await rawWatch(getTarget(), `/api/v1/watch/namespaces/${ns}/configmaps/legacy`);
      const [fromAll] = await all.take(1);
      const [fromOne] = await one.take(1);
      all.close();
      one.close();
      expect(fromAll).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'legacy' } } });
      expect(fromOne).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'legacy' } } });
      await call('DELETE', `${base()}/legacy`);
    });

    it('starts with ADDED for existing objects when resourceVersion is 0 or unset', async () => {
      await create(base(), cm('existing'));
      for (const query of ['resourceVersion=0', '']) {
        const w = await rawWatch(getTarget(), `${base()}?watch=true&${query}`);
        const [first] = await w.take(1);
        w.close();
        expect(first).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'existing' } } });
      }
      await call('DELETE', `${base()}/existing`);
    });

    it('turns objects leaving and entering a label selection into DELETED and ADDED', async () => {
      const listed = await call('GET', base());
      const w = await rawWatch(
        getTarget(),
        `${base()}?watch=true&labelSelector=sel%3Dyes&resourceVersion=${listed.json.metadata.resourceVersion}`,
      );
      await create(base(), cm('sel', { metadata: { labels: { sel: 'yes' } } }));
      await create(base(), cm('other', { metadata: { labels: { sel: 'no' } } }));
      const patch = (value: string) =>
        call('PATCH', `${base()}/sel`, {
          body: { metadata: { labels: { sel: value } } },
          contentType: 'application/merge-patch+json',
        });
      await patch('no');
      await patch('yes');
      const events = await w.take(3);
      w.close();
      expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual([
        'ADDED sel',
        'DELETED sel',
        'ADDED sel',
      ]);
      const byName = await rawWatch(
        getTarget(),
        `${base()}?watch=true&fieldSelector=metadata.name%3Dother`,
      );
      const [only] = await byName.take(1);
      const [none] = await byName.take(1, 500);
      byName.close();
      expect(only?.object.metadata.name).toBe('other');
      expect(none).toBeUndefined();
    });

    it('ends the stream cleanly after timeoutSeconds, sending a BOOKMARK when allowed', async () => {
      const listed = await call('GET', base());
      const rv = Number(listed.json.metadata.resourceVersion);
      const started = Date.now();
      const w = await rawWatch(
        getTarget(),
        `${base()}?watch=true&resourceVersion=${rv}&timeoutSeconds=4&allowWatchBookmarks=true`,
      );
      const events = await w.take(10, 15_000);
      await w.ended;
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThan(3_000);
      expect(elapsed).toBeLessThan(12_000);
      const bookmarks = events.filter((e) => e.type === 'BOOKMARK');
      if (getTarget().sendsBookmarks) expect(bookmarks.length).toBeGreaterThan(0);
      for (const bookmark of bookmarks) {
        expect(bookmark.object.kind).toBe('ConfigMap');
        expect(Number(bookmark.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(rv);
      }
      expect(events.filter((e) => e.type === 'ERROR')).toEqual([]);
    });

    it('answers a watch from a compacted resourceVersion with a 410 Expired ERROR event', async () => {
      const leases = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
      const lease = await create(leases, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'old' },
      });
      await getTarget().compact();
      const w = await rawWatch(
        getTarget(),
        `${leases}?watch=true&resourceVersion=${lease.json.metadata.resourceVersion}`,
      );
      expect(w.status).toBe(200);
      const [event] = await w.take(1);
      expect(event).toMatchObject({
        type: 'ERROR',
        object: { kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 },
      });
      // etcd's answer: envtest's leases have no watch cache (see the envtest suite's flags).
      expect(event?.object.message).toBe('The resourceVersion for the provided watch is too old.');
      await w.ended;
    });

    it('streams lists with sendInitialEvents where supported (1.20 refuses them with 422)', async () => {
      await create(base(), cm('init-a'));
      await create(base(), cm('init-b'));
      const path = `${base()}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`;
      if (!getTarget().streamingLists) {
        const refused = await call('GET', path);
        expect(refused.status).toBe(422);
        expect(refused.json).toMatchObject({ reason: 'Invalid', details: { kind: 'ListOptions' } });
        expect(refused.json.message).toContain('resourceVersionMatch is forbidden for watch');
        return;
      }
      const w = await rawWatch(getTarget(), path);
      const isInitialEventsEnd = (e: RawWatchEvent): boolean =>
        e.type === 'BOOKMARK' &&
        e.object.metadata.annotations?.['k8s.io/initial-events-end'] === 'true';
      const events = await w.takeUntil(isInitialEventsEnd);
      w.close();
      const end = events.findIndex(isInitialEventsEnd);
      expect(end).toBeGreaterThan(0);
      const initial = events.slice(0, end);
      expect(initial.every((e) => e.type === 'ADDED')).toBe(true);
      expect(initial.map((e) => e.object.metadata.name)).toEqual(
        expect.arrayContaining(['init-a', 'init-b']),
      );
    });
  });
}
