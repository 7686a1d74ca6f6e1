import { expect, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
import { cm, contractCalls, crdBody, expectFailure, suffix } from './contract-helpers.js';

/**
 * resourceVersion semantics (issue 18 item 6): a GET or LIST is served from a state at least
 * as new as the one asked for, a version ahead of the server's times out with 504, and a custom
 * resource is updated only with the resourceVersion it was read at.
 */

const TOO_LARGE = {
  reason: 'Timeout',
  message: expect.stringMatching(/^Timeout: Too large resource version: \d+, current: \d+$/),
  details: {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  },
};

/** Registers the tests in the caller's describe block. */
export function defineResourceVersionContract(getTarget: () => ContractEndpoint): void {
  const { call, create, newNamespace, eventually } = contractCalls(getTarget);

  it('answers a get at an older resourceVersion with the current object, a future one with 504', async () => {
    const ns = await newNamespace('rv-get');
    const created = await create(`/api/v1/namespaces/${ns}/configmaps`, cm('a'));
    const rv = created.json.metadata.resourceVersion as string;
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const old = await call('GET', `${path}/a?resourceVersion=1`);
    expect(old.status).toBe(200);
    expect(old.json.metadata.resourceVersion).toBe(rv);
    // The real server waits 3 s for the version before it gives up; the embedded one does not.
    const future = String(Number(rv) + 1_000_000);
    expectFailure(await call('GET', `${path}/a?resourceVersion=${future}`), 504, TOO_LARGE);
    expectFailure(await call('GET', `${path}?resourceVersion=${future}`), 504, TOO_LARGE);
    const bad = await call('GET', `${path}/a?resourceVersion=abc`);
    expectFailure(bad, 500, {
      message:
        'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    });
    expect(bad.json.reason).toBeUndefined();
  });

  it('refuses to update a custom resource, or its status, without a resourceVersion (422)', async () => {
    const group = `rv${suffix()}.contract.kubets.io`;
    const schema = {
      openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    };
    const names = { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' };
    await create(
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crdBody(group, names, { schema, subresources: { status: {} } }),
    );
    const ns = await newNamespace('rv-put');
    const base = `/apis/${group}/v1/namespaces/${ns}/gizmos`;
    await eventually(async () => (await call('GET', base)).status === 200, true);
    const gizmo = (extra: object) => ({
      apiVersion: `${group}/v1`,
      kind: 'Gizmo',
      metadata: { name: 'g' },
      ...extra,
    });
    const created = await create(base, gizmo({ spec: { a: 1 } }));
    for (const [path, body] of [
      [`${base}/g`, gizmo({ spec: { a: 2 } })],
      [`${base}/g/status`, gizmo({ status: { a: 2 } })],
    ] as const) {
      expectFailure(await call('PUT', path, { body }), 422, {
        reason: 'Invalid',
        message: `gizmos.${group} "g" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`,
        details: {
          name: 'g',
          group,
          kind: 'gizmos',
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: 'Invalid value: 0x0: must be specified for an update',
              field: 'metadata.resourceVersion',
            },
          ],
        },
      });
    }
    const rv = created.json.metadata.resourceVersion;
    const updated = await call('PUT', `${base}/g`, {
      body: gizmo({ metadata: { name: 'g', resourceVersion: rv }, spec: { a: 3 } }),
    });
    expect(updated.status).toBe(200);
    expect(updated.json.spec).toEqual({ a: 3 });
    expectFailure(
      await call('PUT', `${base}/nope`, { body: gizmo({ metadata: { name: 'nope' } }) }),
      404,
      {
        reason: 'NotFound',
      },
    );
  });
}
