import { beforeAll, describe, expect, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
import { contractCalls, expectFailure } from './contract-helpers.js';
import { bytesField, messageField, protobufBody, varintField } from './protobuf-encode.js';

/**
 * What kubectl's own commands reach (issue 34, second round): `create token`, `create role` and
 * `create job` (kubectl 1.34 sends the last three as protobuf), and `apply --server-side` over
 * an object `kubectl apply` wrote. docs/embedded-server.md names these tests.
 */

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const APPLY = 'application/apply-patch+yaml';
/** Now, to the second, as the API server writes times. */
const timestamp = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export function defineKubectlCommandsContract(getTarget: () => ContractEndpoint): void {
  const { call, create, newNamespace, eventually } = contractCalls(getTarget);
  let ns: string;

  beforeAll(async () => {
    ns = await newNamespace('kubectl');
  });

  describe('service account tokens (kubectl create token)', () => {
    const tokenPath = (account: string) =>
      `/api/v1/namespaces/${ns}/serviceaccounts/${account}/token`;
    const tokenRequest = (spec: Record<string, unknown> = {}) => ({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec,
    });

    it('answers 404 naming the service account when it does not exist', async () => {
      const res = await call('POST', tokenPath('nobody'), { body: tokenRequest() });
      expectFailure(res, 404, {
        reason: 'NotFound',
        message: 'serviceaccounts "nobody" not found',
        details: { name: 'nobody', kind: 'serviceaccounts' },
      });
    });

    it('issues a token for an existing service account, from a protobuf body as kubectl sends it', async () => {
      const account = await create(`/api/v1/namespaces/${ns}/serviceaccounts`, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'robot' },
      });
      const body = protobufBody(
        'authentication.k8s.io/v1',
        'TokenRequest',
        messageField(1),
        messageField(2, varintField(4, 3600)),
        messageField(3),
      );
      const res = await call('POST', tokenPath('robot'), { body, contentType: PROTOBUF });
      expect(res.status).toBe(201);
      expect(res.json).toMatchObject({
        kind: 'TokenRequest',
        apiVersion: 'authentication.k8s.io/v1',
        metadata: { creationTimestamp: null },
        spec: { audiences: [ISSUER], expirationSeconds: 3600, boundObjectRef: null },
      });
      const parts = String(res.json.status.token).split('.');
      expect(parts).toHaveLength(3);
      const claims = JSON.parse(Buffer.from(parts[1] as string, 'base64url').toString('utf8'));
      expect(claims).toMatchObject({
        aud: [ISSUER],
        iss: ISSUER,
        sub: `system:serviceaccount:${ns}:robot`,
        'kubernetes.io': {
          namespace: ns,
          serviceaccount: { name: 'robot', uid: account.json.metadata.uid },
        },
      });
      expect(claims.exp - claims.iat).toBe(3600);
    });

    it('refuses a duration under ten minutes before looking the service account up', async () => {
      const res = await call('POST', tokenPath('nobody'), {
        body: tokenRequest({ expirationSeconds: 60 }),
      });
      expectFailure(res, 422, {
        reason: 'Invalid',
        message:
          'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
      });
    });
  });

  describe('protobuf bodies of kubectl 1.34’s create job and create role', () => {
    it('creates a Role sent as protobuf', async () => {
      const rule = messageField(2, bytesField(1, 'get'), bytesField(2, ''), bytesField(3, 'pods'));
      const body = protobufBody(
        'rbac.authorization.k8s.io/v1',
        'Role',
        messageField(1, bytesField(1, 'reader')),
        rule,
      );
      const res = await call('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
        body,
        contentType: PROTOBUF,
      });
      expect(res.status).toBe(201);
      expect(res.json).toMatchObject({
        kind: 'Role',
        metadata: { name: 'reader', namespace: ns },
        rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      });
    });

    it('creates a Job sent as protobuf, with its generated selector', async () => {
      const container = messageField(2, bytesField(1, 'main'), bytesField(2, 'busybox'));
      const podSpec = messageField(2, container, bytesField(3, 'Never'));
      const template = messageField(6, messageField(1), podSpec);
      const body = protobufBody(
        'batch/v1',
        'Job',
        messageField(1, bytesField(1, 'once')),
        messageField(2, template),
        // kubectl 1.34 sends every non-pointer field, newer ones included (an empty
        // completedIndexes).
        messageField(3, bytesField(7, '')),
      );
      const res = await call('POST', `/apis/batch/v1/namespaces/${ns}/jobs`, {
        body,
        contentType: PROTOBUF,
      });
      expect(res.status).toBe(201);
      const uid = res.json.metadata.uid;
      // Labelled like its pods, as 1.20's defaulting on the read back from storage does.
      expect(res.json.metadata.labels).toEqual({ 'controller-uid': uid, 'job-name': 'once' });
      expect(res.json.spec).toMatchObject({
        backoffLimit: 6,
        selector: { matchLabels: { 'controller-uid': uid } },
        template: {
          metadata: { labels: { 'controller-uid': uid, 'job-name': 'once' } },
          spec: { containers: [{ name: 'main', image: 'busybox' }], restartPolicy: 'Never' },
        },
      });
    });
  });

  describe('kubectl apply --server-side over kubectl apply', () => {
    const configMaps = () => `/api/v1/namespaces/${ns}/configmaps`;
    /** What `kubectl apply` (client-side) creates: the object and its last-applied annotation. */
    const clientSideApplied = async (name: string, lastData: Record<string, string>) => {
      const lastApplied = JSON.stringify({
        apiVersion: 'v1',
        data: lastData,
        kind: 'ConfigMap',
        metadata: { annotations: {}, name, namespace: ns },
      });
      await create(`${configMaps()}?fieldManager=kubectl-client-side-apply`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, annotations: { [LAST_APPLIED]: `${lastApplied}\n` } },
        data: { a: '1' },
      });
    };
    const serverSideApply = (name: string, manager: string, a: string) =>
      call('PATCH', `${configMaps()}/${name}?fieldManager=${manager}`, {
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, namespace: ns },
          data: { a },
        }),
        contentType: APPLY,
      });

    it('takes the fields the last-applied configuration still holds over, and updates it', async () => {
      await clientSideApplied('taken', { a: '1' });
      const res = await serverSideApply('taken', 'kubectl', '3');
      expect(res.status).toBe(200);
      expect(res.json.data).toEqual({ a: '3' });
      expect(res.json.metadata.annotations[LAST_APPLIED]).toBe(
        `{"apiVersion":"v1","data":{"a":"3"},"kind":"ConfigMap","metadata":{"name":"taken","namespace":"${ns}"}}\n`,
      );
      const entries = res.json.metadata.managedFields.map(
        (e: { manager: string; operation: string; fieldsV1: unknown }) => [
          e.manager,
          e.operation,
          e.fieldsV1,
        ],
      );
      expect(entries).toContainEqual(['kubectl', 'Apply', { 'f:data': { 'f:a': {} } }]);
      // client-side apply keeps its annotation, and loses the value kubectl took.
      const clientSide = res.json.metadata.managedFields.find(
        (e: { manager: string }) => e.manager === 'kubectl-client-side-apply',
      );
      expect(clientSide.fieldsV1['f:metadata']).toEqual({
        'f:annotations': { '.': {}, [`f:${LAST_APPLIED}`]: {} },
      });
      expect(clientSide.fieldsV1['f:data']?.['f:a']).toBeUndefined();
    });

    it('leaves the conflict for another manager, and for a value the configuration no longer holds', async () => {
      await clientSideApplied('kept', { a: '1' });
      const other = await serverSideApply('kept', 'someone', '3');
      expectFailure(other, 409, {
        reason: 'Conflict',
        message:
          'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a',
      });
      await clientSideApplied('changed', { a: '2' });
      const changed = await serverSideApply('changed', 'kubectl', '3');
      expectFailure(changed, 409, {
        reason: 'Conflict',
        message:
          'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a',
      });
    });
  });

  describe('kubectl diff after kubectl apply', () => {
    it('keeps a manager’s time when a (dry-run) write leaves its field set as it was, and restamps it when the set changes', async () => {
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      const created = await create(`${path}?fieldManager=differ`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'diffed' },
        data: { a: '1' },
      });
      const createdAt: string = created.json.metadata.managedFields[0].time;
      // Times have whole seconds: once the next one has begun, a restamp would show.
      await eventually(async () => timestamp() > createdAt, true);
      const sameFields = await call('PATCH', `${path}/diffed?fieldManager=differ&dryRun=All`, {
        body: JSON.stringify({ data: { a: '2' } }),
        contentType: 'application/merge-patch+json',
      });
      expect(sameFields.status).toBe(200);
      expect(sameFields.json.data).toEqual({ a: '2' });
      expect(sameFields.json.metadata.managedFields).toMatchObject([
        { manager: 'differ', time: createdAt, fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } },
      ]);
      const newField = await call('PATCH', `${path}/diffed?fieldManager=differ&dryRun=All`, {
        body: JSON.stringify({ data: { b: '2' } }),
        contentType: 'application/merge-patch+json',
      });
      expect(newField.json.metadata.managedFields[0].time > createdAt).toBe(true);
    });
  });
}
