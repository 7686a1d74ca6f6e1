import { expect, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
import { contractCalls, expectFailure } from './contract-helpers.js';

/**
 * authorization.k8s.io reviews (issue 18 item 5, what `kubectl auth can-i` asks): discovered
 * with only `create`, answered, never stored. Both servers allow the tests' user everything
 * (envtest's admin is in system:masters; the in-memory server authorizes every request).
 */

const GROUP_VERSION = '/apis/authorization.k8s.io/v1';
const SSAR = `${GROUP_VERSION}/selfsubjectaccessreviews`;
const SSRR = `${GROUP_VERSION}/selfsubjectrulesreviews`;

const review = (kind: string, spec: unknown, metadata?: unknown) => ({
  apiVersion: 'authorization.k8s.io/v1',
  kind,
  ...(metadata === undefined ? {} : { metadata }),
  spec,
});

/** Registers the tests in the caller's describe block. */
export function defineReviewsContract(getTarget: () => ContractEndpoint): void {
  const { call } = contractCalls(getTarget);

  it('lists the self reviews in discovery with only the create verb', async () => {
    const res = await call('GET', GROUP_VERSION);
    expect(res.status).toBe(200);
    const resources = res.json.resources as Record<string, unknown>[];
    for (const [name, kind] of [
      ['selfsubjectaccessreviews', 'SelfSubjectAccessReview'],
      ['selfsubjectrulesreviews', 'SelfSubjectRulesReview'],
    ]) {
      expect(resources.find((r) => r.name === name)).toEqual({
        name,
        singularName: '',
        namespaced: false,
        kind,
        verbs: ['create'],
      });
    }
  });

  it('answers a SelfSubjectAccessReview with allowed, echoing the spec and storing nothing', async () => {
    const spec = { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } };
    const res = await call('POST', SSAR, {
      body: review('SelfSubjectAccessReview', spec),
      headers: { 'user-agent': 'contract-reviews/1.0' },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec,
      status: { allowed: true },
    });
    expect(res.json.metadata.managedFields).toEqual([
      expect.objectContaining({
        manager: 'contract-reviews',
        operation: 'Update',
        apiVersion: 'authorization.k8s.io/v1',
        fieldsType: 'FieldsV1',
      }),
    ]);
    const nonResource = await call('POST', SSAR, {
      body: { spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } } },
    });
    expect(nonResource.status).toBe(201);
    expect(nonResource.json.status).toEqual({ allowed: true });
    expectFailure(await call('GET', SSAR), 405, {
      reason: 'MethodNotAllowed',
      message: 'the server does not allow this method on the requested resource',
    });
    expect((await call('GET', `${SSAR}/x`)).status).toBe(404);
  });

  it('refuses a SelfSubjectAccessReview with metadata or without exactly one kind of attributes (422)', async () => {
    const refused = async (body: unknown, field: string, message: string | RegExp) => {
      const res = await call('POST', SSAR, { body });
      expectFailure(res, 422, { reason: 'Invalid', details: { group: 'authorization.k8s.io' } });
      expect(res.json.details.kind).toBeUndefined();
      expect(res.json.details.causes).toEqual([
        { reason: 'FieldValueInvalid', field, message: expect.stringMatching(message) },
      ]);
      expect(res.json.message).toMatch(/^\.authorization\.k8s\.io "" is invalid: /);
    };
    await refused(
      review('SelfSubjectAccessReview', {}),
      'spec.resourceAttributes',
      'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
    await refused(
      review('SelfSubjectAccessReview', {
        resourceAttributes: { verb: 'get' },
        nonResourceAttributes: { path: '/x', verb: 'get' },
      }),
      'spec.nonResourceAttributes',
      'Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: cannot be specified in combination with resourceAttributes',
    );
    // kube-apiserver prints the whole Go ObjectMeta; the embedded server prints the JSON.
    await refused(
      review('SelfSubjectAccessReview', { resourceAttributes: { verb: 'get' } }, { name: 'x' }),
      'metadata',
      /^Invalid value: .*: must be empty$/,
    );
  });

  it('lists every rule in a SelfSubjectRulesReview, and needs its namespace (400)', async () => {
    const res = await call('POST', SSRR, {
      body: review('SelfSubjectRulesReview', { namespace: 'default' }),
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      kind: 'SelfSubjectRulesReview',
      metadata: { creationTimestamp: null },
      spec: {},
    });
    expect(res.json.status.incomplete).toBe(false);
    expect(res.json.status.resourceRules).toContainEqual({
      verbs: ['*'],
      apiGroups: ['*'],
      resources: ['*'],
    });
    expect(res.json.status.nonResourceRules).toContainEqual({
      verbs: ['*'],
      nonResourceURLs: ['*'],
    });
    expectFailure(await call('POST', SSRR, { body: review('SelfSubjectRulesReview', {}) }), 400, {
      reason: 'BadRequest',
      message: 'no namespace on request',
    });
  });
}
