import { silentLogger } from '@kubets/apimachinery';
import { appsV1Resources, coreV1Resources } from '@kubets/clientset';
import { describe, expect, it } from 'vitest';
import { useSharedApiServer } from '../../test/server.js';
import { oneMember } from '../../test/sharded-manager.js';
import { Manager, ringKeyOf, ShardRing, type ShardRingOptions } from '../index.js';

const shared = useSharedApiServer();
const configMaps = coreV1Resources.configMaps;

describe('ShardRing options', () => {
  it.each([
    [{ name: 'Not_A_Label' }, 'ShardRing name must be a DNS label'],
    [{ name: 'x'.repeat(64) }, 'ShardRing name must be a DNS label'],
    [{ identity: 'host_1.example' }, 'ShardRing identity must be a DNS label'],
    [
      { identity: undefined },
      "ShardRing identity must be a DNS label (lowercase letters, digits and '-', at most 63 characters), got undefined",
    ],
    [
      { namespace: '' },
      'ShardRing namespace (of the shard Leases) must be a namespace name, got ""',
    ],
    [{ resources: [] }, 'ShardRing resources must name at least one resource to shard'],
    [
      { resources: [{ resource: { kind: 'Widget' } }] },
      'ShardRing resources[0].resource must be a resource descriptor',
    ],
    [
      { resources: [{ resource: configMaps, key: 'uid' }] },
      `ShardRing resources[0].key must be 'object', 'owner' or a function, got "uid"`,
    ],
    [
      { resources: [{ resource: coreV1Resources.nodes, namespace: 'a' }] },
      'ShardRing resources[0]: nodes are cluster-scoped, but a namespace was given (a)',
    ],
    [{ sharderWorkers: 0 }, 'ShardRing sharderWorkers must be a positive integer, got 0'],
    [
      { virtualNodes: 1e9 },
      'ShardRing virtualNodes must be a positive integer of at most 1000000, got 1000000000',
    ],
    [
      { virtualNodes: 0 },
      'ShardRing virtualNodes must be a positive integer of at most 1000000, got 0',
    ],
  ])('refuses %j', (bad, message) => {
    expect(() => new ShardRing({ ...oneMember, ...(bad as Partial<ShardRingOptions>) })).toThrow(
      message,
    );
  });

  it('refuses to wrap the reconciler of a resource it does not shard, and one not added to a manager', async () => {
    const ring = new ShardRing(oneMember);
    expect(() => ring.reconciler(appsV1Resources.deployments, () => undefined)).toThrow(
      'ShardRing cms does not shard deployments: add it to resources',
    );
    const reconcile = ring.reconciler(configMaps, () => undefined);
    await expect(
      Promise.resolve(
        reconcile({ namespace: 'a', name: 'b' }, {} as Parameters<typeof reconcile>[1]),
      ),
    ).rejects.toThrow('ShardRing cms was not added to a manager: call ring.addTo(mgr)');
  });

  it('refuses a manager with leader election, whose followers would reconcile nothing', () => {
    const ring = new ShardRing(oneMember);
    const mgr = new Manager(
      { host: shared.server.host },
      {
        cache: ring.cacheOptions(),
        logger: silentLogger,
        leaderElection: { namespace: 'operators', name: 'widgets-leader' },
      },
    );
    expect(() => ring.addTo(mgr)).toThrow(
      'ShardRing cms cannot be added to a manager with leaderElection: only the leader would reconcile',
    );
    expect(() => ring.addTo(mgr)).toThrow(
      'sharding replaces leader election for the sharded controllers',
    );
    // Refused before anything was added: the ring can still join a manager without it.
    const plain = new Manager(
      { host: shared.server.host },
      { cache: ring.cacheOptions(), logger: silentLogger },
    );
    expect(() => ring.addTo(plain)).not.toThrow();
  });

  it('narrows the cache of each sharded resource to this member, keeping selectors given', () => {
    const ring = new ShardRing({
      ...oneMember,
      resources: [
        { resource: configMaps, namespace: 'apps' },
        { resource: coreV1Resources.secrets },
      ],
    });
    const options = ring.cacheOptions({
      byObject: [{ resource: configMaps, labelSelector: 'app=web' }],
      defaultLabelSelector: 'tier=backend',
    });
    expect(options.defaultLabelSelector).toBe('tier=backend');
    expect(
      options.byObject?.map((b) => [b.resource.resource, b.labelSelector, b.namespace]),
    ).toEqual([
      ['configmaps', 'app=web,shard.sharding.kubets.io/cms=pod-a', 'apps'],
      ['secrets', 'tier=backend,shard.sharding.kubets.io/cms=pod-a', undefined],
    ]);
  });
});

describe('ringKeyOf', () => {
  const owned = {
    metadata: {
      namespace: 'ns',
      name: 'child',
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'other', uid: '1' },
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'parent', uid: '2', controller: true },
      ],
    },
  };
  it.each([
    ['object', owned, 'ns/child'],
    ['owner', owned, 'ns/parent'],
    ['owner', { metadata: { namespace: 'ns', name: 'orphan' } }, 'ns/orphan'],
    ['object', { metadata: { name: 'cluster-scoped' } }, '/cluster-scoped'],
  ] as const)('keys by %s: %j', (key, obj, expected) => {
    expect(ringKeyOf(obj, key)).toBe(expected);
  });
});
