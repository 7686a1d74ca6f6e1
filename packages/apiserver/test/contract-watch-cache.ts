import { expect, it } from 'vitest';
import { type ContractEndpoint, type RawResponse, rawWatch } from './contract-client.js';
import { cm, contractCalls, createOpenCrd, expectFailure } from './contract-helpers.js';

/**
 * The resourceVersion of reads kube-apiserver 1.20 serves from its watch cache: each resource's
 * cache moves only with that resource's writes, so a `resourceVersion=0` list answers the
 * resource's own last revision, not the global one; Events have no watch cache in 1.20.
 */

function listVersion(res: RawResponse): { status: number; resourceVersion: unknown } {
  return { status: res.status, resourceVersion: res.json.metadata?.resourceVersion };
}

const pod = (name: string): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'main', image: 'busybox' }] },
});

/** Registers the tests in the caller's describe block. */
export function defineWatchCacheContract(getTarget: () => ContractEndpoint): void {
  const calls = contractCalls(getTarget);
  const { call, create, newNamespace } = calls;

  it('lists at resourceVersion=0 at the resource’s own last revision (Events at the global one)', async () => {
    const ns = await newNamespace('cache-rv');
    const base = `/api/v1/namespaces/${ns}`;
    const names = { plural: 'ratchets', singular: 'ratchet', kind: 'Ratchet' };
    const { group, collection: ratchets } = await createOpenCrd(calls, 'cache', names, ns);
    const rvOf = (res: RawResponse) => res.json.metadata.resourceVersion as string;
    const configMap = rvOf(await create(`${base}/configmaps`, cm('a')));
    const custom = rvOf(
      await create(ratchets, {
        apiVersion: `${group}/v1`,
        kind: 'Ratchet',
        metadata: { name: 'r' },
      }),
    );
    const podRv = rvOf(await create(`${base}/pods`, pod('p')));
    await create(`${base}/events`, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: ns },
      reason: 'Tested',
    });
    const last = rvOf(await create(`${base}/secrets`, { metadata: { name: 's' } }));
    // The global revision, read (by a consistent list) before and after the lists below: a
    // real etcd's revision also moves with kube-apiserver's compactions, so an uncached
    // Event list answers a revision between the two; the embedded server's stays at `last`.
    const globalBefore = rvOf(await call('GET', `${base}/configmaps`));
    const answers: Record<string, unknown> = {};
    const paths: Record<string, string> = {
      configmaps: `${base}/configmaps`,
      'configmaps of all namespaces': '/api/v1/configmaps',
      pods: `${base}/pods`,
      ratchets,
      secrets: `${base}/secrets`,
      events: `${base}/events`,
      'events.k8s.io events': `/apis/events.k8s.io/v1/namespaces/${ns}/events`,
    };
    for (const [name, path] of Object.entries(paths)) {
      answers[name] = listVersion(await call('GET', `${path}?resourceVersion=0`));
    }
    const globalAfter = rvOf(await call('GET', `${base}/configmaps`));
    const global = expect.toSatisfy(
      (rv: unknown) =>
        typeof rv === 'string' &&
        BigInt(globalBefore) <= BigInt(rv) &&
        BigInt(rv) <= BigInt(globalAfter),
      `a resourceVersion from ${globalBefore} to ${globalAfter}`,
    );
    expect(BigInt(globalBefore) >= BigInt(last)).toBe(true);
    expect(answers).toEqual({
      configmaps: { status: 200, resourceVersion: configMap },
      'configmaps of all namespaces': { status: 200, resourceVersion: configMap },
      pods: { status: 200, resourceVersion: podRv },
      ratchets: { status: 200, resourceVersion: custom },
      secrets: { status: 200, resourceVersion: last },
      events: { status: 200, resourceVersion: global },
      'events.k8s.io events': { status: 200, resourceVersion: global },
    });
    // A list at a version the cache reached; a list or get ahead of the cache (even when not
    // ahead of the global revision) answers 504 naming the cache's version, after the wait.
    expect(
      listVersion(await call('GET', `${base}/configmaps?resourceVersion=${configMap}`)),
    ).toEqual({ status: 200, resourceVersion: configMap });
    const tooLarge = {
      reason: 'Timeout',
      message: `Timeout: Too large resource version: ${last}, current: ${configMap}`,
      details: {
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
        retryAfterSeconds: 1,
      },
    };
    expectFailure(await call('GET', `${base}/configmaps?resourceVersion=${last}`), 504, tooLarge);
    expectFailure(await call('GET', `${base}/configmaps/a?resourceVersion=${last}`), 504, tooLarge);
  });

  it('sends a watch from a watch-cache list’s resourceVersion only what is newer', async () => {
    const ns = await newNamespace('cache-watch');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    await create(path, cm('before'));
    await create(`/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 'other' } });
    const listed = await call('GET', `${path}?resourceVersion=0`);
    const from = listed.json.metadata.resourceVersion as string;
    const w = await rawWatch(getTarget(), `${path}?watch=true&resourceVersion=${from}`);
    expect(w.status).toBe(200);
    const after = await create(path, cm('after'));
    const events = await w.take(1);
    w.close();
    expect(
      events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion]),
    ).toEqual([['ADDED', 'after', after.json.metadata.resourceVersion]]);
  });
}
