import { expect, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
import { cm, contractCalls, expectFailure } from './contract-helpers.js';

/**
 * Reads at a given resourceVersion (issue 18 item 6): a GET or LIST is served from a state at
 * least that new, and a version ahead of the server's times out with 504.
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
  const { call, create, newNamespace } = contractCalls(getTarget);

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
}
