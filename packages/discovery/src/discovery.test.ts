import { isStatusError, StatusError } from '@kubets/apimachinery';
import { RESTClient } from '@kubets/rest';
import { afterEach, describe, expect, it } from 'vitest';
import { type CannedDiscovery, cannedDiscovery, discoveryServerPool } from '../test/fixtures.js';
import { DiscoveryClient, discoveryConfig, mapWithConcurrency } from './discovery.js';
import { DiscoveryPartialError, isDiscoveryPartialError } from './errors.js';
import type { APIResourceList } from './types.js';

const servers = discoveryServerPool();
afterEach(servers.closeAll);

async function setup(
  canned: CannedDiscovery = cannedDiscovery(),
  options: { delayMs?: number; coreMissing?: boolean; concurrency?: number } = {},
) {
  const server = await servers.start(canned, options);
  const client = new DiscoveryClient(
    { host: server.url, qps: -1 },
    options.concurrency ? { concurrency: options.concurrency } : {},
  );
  return { server, client, canned };
}

/** `setup()` over the canned discovery with no failing group-version. */
function setupAllAnswering(options: Parameters<typeof setup>[1] = {}) {
  const canned = cannedDiscovery();
  canned.failing.clear();
  return setup(canned, options);
}

/** The group-versions of the canned discovery that answer, in discovery order. */
const answeringGroupVersions = [
  'v1',
  'apps/v1',
  'events.k8s.io/v1',
  'autoscaling/v2beta1',
  'autoscaling/v1',
  'batch/v1',
  'batch/v1beta1',
];

function names(lists: APIResourceList[]): string[] {
  return lists.flatMap((list) => list.resources.map((r) => `${list.groupVersion} ${r.name}`));
}

async function partialError(promise: Promise<unknown>): Promise<DiscoveryPartialError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isDiscoveryPartialError(err))
    throw new Error(`expected a DiscoveryPartialError, got ${String(err)}`);
  return err;
}

describe('DiscoveryClient', () => {
  it('reads the server version from /version', async () => {
    const { client, server } = await setup();
    const version = await client.serverVersion();
    expect(version.gitVersion).toBe('v1.20.2');
    expect(server.paths).toEqual(['/version']);
  });

  it('lists the core group first, then the named groups with their preferred versions', async () => {
    const { client, server } = await setup();
    const { groups } = await client.serverGroups();
    expect(groups.map((g) => g.name)).toEqual([
      '',
      'apps',
      'events.k8s.io',
      'autoscaling',
      'batch',
      'broken.example.com',
    ]);
    expect(groups[0]).toEqual({
      name: '',
      versions: [{ groupVersion: 'v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'v1', version: 'v1' },
    });
    expect(groups[3]?.preferredVersion?.version).toBe('v1');
    expect(server.paths.sort()).toEqual(['/api', '/apis']);
  });

  it('has no core group when /api answers 404', async () => {
    const { client } = await setup(cannedDiscovery(), { coreMissing: true });
    const { groups } = await client.serverGroups();
    expect(groups[0]?.name).toBe('apps');
  });

  it('fetches one group-version from /api/v1 or /apis/<group>/<version>', async () => {
    const { client, server } = await setup();
    const core = await client.serverResourcesForGroupVersion('v1');
    const apps = await client.serverResourcesForGroupVersion('apps/v1');
    expect(core.groupVersion).toBe('v1');
    expect(core.resources.map((r) => r.name)).toContain('pods');
    expect(apps.resources.map((r) => r.name)).toEqual([
      'deployments',
      'deployments/scale',
      'replicasets',
    ]);
    expect(server.paths).toEqual(['/api/v1', '/apis/apps/v1']);
  });

  it('reports a missing group-version as the server NotFound error', async () => {
    const { client } = await setup();
    const err = await client.serverResourcesForGroupVersion('nope.io/v1').catch((e: unknown) => e);
    expect(isStatusError(err) && err.code).toBe(404);
  });

  it('returns every group and resource list when all group-versions answer', async () => {
    const { client } = await setupAllAnswering();
    const { groups, resources } = await client.serverGroupsAndResources();
    expect(groups).toHaveLength(6);
    expect(resources.map((r) => r.groupVersion)).toEqual([
      ...answeringGroupVersions,
      'broken.example.com/v1',
    ]);
  });

  it('throws a partial error carrying the successful results and each failed group-version', async () => {
    const { client } = await setup();
    const err = await partialError(client.serverGroupsAndResources());
    expect(err).toBeInstanceOf(DiscoveryPartialError);
    expect([...err.failed.keys()]).toEqual(['broken.example.com/v1']);
    const cause = err.failed.get('broken.example.com/v1');
    expect(cause).toBeInstanceOf(StatusError);
    expect(isStatusError(cause) && cause.code).toBe(503);
    expect(err.message).toContain('broken.example.com/v1');
    expect(err.groups.map((g) => g.name)).toContain('broken.example.com');
    expect(err.resources.map((r) => r.groupVersion)).toEqual(answeringGroupVersions);
  });

  it('fetches group-versions in parallel, never more than the concurrency limit', async () => {
    const { client, server } = await setupAllAnswering({ delayMs: 20, concurrency: 3 });
    await client.serverGroupsAndResources();
    expect(server.maxInFlight).toBe(3);
  });

  it('picks each resource once in its preferred version and skips subresources', async () => {
    const { client } = await setupAllAnswering();
    const preferred = await client.serverPreferredResources();
    expect(names(preferred)).toEqual([
      'v1 pods',
      'v1 namespaces',
      'v1 nodes',
      'v1 events',
      'v1 configmaps',
      'apps/v1 deployments',
      'apps/v1 replicasets',
      'events.k8s.io/v1 events',
      'autoscaling/v1 horizontalpodautoscalers',
      'batch/v1 jobs',
      'batch/v1beta1 cronjobs',
      'broken.example.com/v1 gadgets',
    ]);
  });

  it('keeps the preferred resources that succeeded in the partial error', async () => {
    const { client } = await setup();
    const err = await partialError(client.serverPreferredResources());
    expect(names(err.resources)).toContain('apps/v1 deployments');
    expect(names(err.resources).some((n) => n.startsWith('broken'))).toBe(false);
  });

  it('restricts preferred namespaced resources to namespaced ones', async () => {
    const { client } = await setupAllAnswering();
    const namespaced = names(await client.serverPreferredNamespacedResources());
    expect(namespaced).toContain('v1 pods');
    expect(namespaced).not.toContain('v1 namespaces');
    expect(namespaced).not.toContain('v1 nodes');
  });

  it('works over an existing RESTClient and stops when the signal aborts', async () => {
    const { server } = await setup();
    const client = new DiscoveryClient(new RESTClient({ host: server.url, qps: -1 }));
    expect((await client.serverGroups()).groups[0]?.name).toBe('');
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(client.serverGroups({ signal: controller.signal })).rejects.toThrow('stop');
  });
});

describe('discoveryConfig', () => {
  it('applies client-go discovery defaults without overriding explicit settings', () => {
    expect(discoveryConfig({ host: 'h' })).toMatchObject({ timeoutMs: 32_000, burst: 300 });
    expect(discoveryConfig({ host: 'h', burst: 7, timeoutMs: 5 })).toMatchObject({
      timeoutMs: 5,
      burst: 7,
    });
  });
});

describe('mapWithConcurrency', () => {
  it('keeps result order and records failures per item', async () => {
    const results = await mapWithConcurrency([1, 2, 3], 2, async (n) => {
      if (n === 2) throw new Error('two');
      return n * 10;
    });
    expect(results[0]).toEqual({ status: 'fulfilled', value: 10 });
    expect(results[1]?.status).toBe('rejected');
    expect(results[2]).toEqual({ status: 'fulfilled', value: 30 });
  });
});
