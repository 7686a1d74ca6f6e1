import { expect, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
import { contractCalls, expectFailure } from './contract-helpers.js';

/**
 * authorization.k8s.io reviews (issue 18 item 5, what `kubectl auth can-i` asks): discovered
 * with only `create`, answered, never stored. Both servers allow the tests' user everything
 * (envtest's admin is in system:masters; the in-memory server authorizes every request). The
 * subject reviews ask about a subject in system:masters, which both servers allow; the
 * in-memory server would allow any other subject too.
 */

const GROUP_VERSION = '/apis/authorization.k8s.io/v1';
const SSAR = `${GROUP_VERSION}/selfsubjectaccessreviews`;
const SSRR = `${GROUP_VERSION}/selfsubjectrulesreviews`;
const SAR = `${GROUP_VERSION}/subjectaccessreviews`;
const lsar = (ns: string) => `${GROUP_VERSION}/namespaces/${ns}/localsubjectaccessreviews`;

const review = (kind: string, spec: unknown, metadata?: unknown) => ({
  apiVersion: 'authorization.k8s.io/v1',
  kind,
  ...(metadata === undefined ? {} : { metadata }),
  spec,
});

/** Registers the tests in the caller's describe block. */
export function defineReviewsContract(getTarget: () => ContractEndpoint): void {
  const { call } = contractCalls(getTarget);

  it('lists the four reviews in discovery with only the create verb', async () => {
    const res = await call('GET', GROUP_VERSION);
    expect(res.status).toBe(200);
    const resources = res.json.resources as Record<string, unknown>[];
    expect(resources.map((r) => r.name).sort()).toEqual([
      'localsubjectaccessreviews',
      'selfsubjectaccessreviews',
      'selfsubjectrulesreviews',
      'subjectaccessreviews',
    ]);
    for (const [name, kind, namespaced] of [
      ['localsubjectaccessreviews', 'LocalSubjectAccessReview', true],
      ['selfsubjectaccessreviews', 'SelfSubjectAccessReview', false],
      ['selfsubjectrulesreviews', 'SelfSubjectRulesReview', false],
      ['subjectaccessreviews', 'SubjectAccessReview', false],
    ] as const) {
      expect(resources.find((r) => r.name === name)).toEqual({
        name,
        singularName: '',
        namespaced,
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

/** Registers the SubjectAccessReview and LocalSubjectAccessReview tests in the caller's block. */
export function defineSubjectReviewsContract(getTarget: () => ContractEndpoint): void {
  const { call } = contractCalls(getTarget);
  const attributes = { namespace: 'default', verb: 'get', resource: 'pods' };
  const admin = { groups: ['system:masters'], resourceAttributes: attributes };

  /** Expects 1.20's 422 for a review: no kind or name in the message, these causes in order. */
  const refused = async (path: string, body: unknown, causes: [string, string | RegExp][]) => {
    const res = await call('POST', path, { body });
    expectFailure(res, 422, { reason: 'Invalid', details: { group: 'authorization.k8s.io' } });
    expect(res.json.details.causes).toEqual(
      causes.map(([field, message]) => ({
        reason: 'FieldValueInvalid',
        field,
        message: typeof message === 'string' ? message : expect.stringMatching(message),
      })),
    );
    expect(res.json.message).toMatch(/^\.authorization\.k8s\.io "" is invalid: /);
  };

  it('answers a SubjectAccessReview for a system:masters subject with allowed, echoing the spec', async () => {
    const res = await call('POST', SAR, { body: review('SubjectAccessReview', admin) });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      kind: 'SubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: admin,
      status: { allowed: true },
    });
    expect(res.json.status).toEqual({ allowed: true });
    expect(res.json.metadata.managedFields).toHaveLength(1);
    const nonResource = await call('POST', SAR, {
      body: review('SubjectAccessReview', {
        user: 'admin',
        groups: ['system:masters'],
        nonResourceAttributes: { path: '/healthz', verb: 'get' },
      }),
    });
    expect(nonResource.status).toBe(201);
    expect(nonResource.json.status).toEqual({ allowed: true });
    expect((await call('GET', SAR)).status).toBe(405);
  });

  it('refuses a SubjectAccessReview without a user or group, or without exactly one kind of attributes (422)', async () => {
    await refused(SAR, review('SubjectAccessReview', { resourceAttributes: attributes }), [
      ['spec.user', 'Invalid value: "": at least one of user or group must be specified'],
    ]);
    await refused(
      SAR,
      review(
        'SubjectAccessReview',
        { user: 'u', resourceAttributes: attributes, nonResourceAttributes: { path: '/x' } },
        { name: 'x' },
      ),
      [
        [
          'spec.nonResourceAttributes',
          'Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:""}: cannot be specified in combination with resourceAttributes',
        ],
        ['metadata', /^Invalid value: .*: must be empty$/],
      ],
    );
    await refused(SAR, review('SubjectAccessReview', {}), [
      [
        'spec.resourceAttributes',
        'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
      ],
      ['spec.user', 'Invalid value: "": at least one of user or group must be specified'],
    ]);
  });

  it('answers a LocalSubjectAccessReview in its namespace, keeping metadata.namespace', async () => {
    const res = await call('POST', lsar('default'), {
      body: review('LocalSubjectAccessReview', admin, { namespace: 'default' }),
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      kind: 'LocalSubjectAccessReview',
      metadata: { namespace: 'default', creationTimestamp: null },
      spec: admin,
      status: { allowed: true },
    });
  });

  it('refuses a LocalSubjectAccessReview whose namespaces disagree (422 in the body, 400 with the URL)', async () => {
    // The URL's namespace does not fill in the body's: an absent one mismatches the spec's.
    await refused(lsar('default'), review('LocalSubjectAccessReview', admin), [
      [
        'spec.resourceAttributes.namespace',
        'Invalid value: "default": must match metadata.namespace',
      ],
    ]);
    await refused(
      lsar('default'),
      review(
        'LocalSubjectAccessReview',
        { nonResourceAttributes: { path: '/x', verb: 'get' } },
        { namespace: 'default', name: 'x' },
      ),
      [
        ['spec.user', 'Invalid value: "": at least one of user or group must be specified'],
        ['metadata', /^Invalid value: .*: must be empty except for namespace$/],
        [
          'spec.nonResourceAttributes',
          'Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: disallowed on this kind of request',
        ],
      ],
    );
    const other = { ...admin, resourceAttributes: { ...attributes, namespace: 'other' } };
    expectFailure(
      await call('POST', lsar('default'), {
        body: review('LocalSubjectAccessReview', other, { namespace: 'other' }),
      }),
      400,
      {
        reason: 'BadRequest',
        message: 'spec.resourceAttributes.namespace must match namespace: default',
      },
    );
  });
}
