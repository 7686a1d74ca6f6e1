import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@kubets/apimachinery';
import { FakeClock } from '@kubets/apimachinery/testing';
import { appsV1Resources, coreV1Resources } from '@kubets/clientset';
import { generateEnvtestCertificates } from '@kubets/envtest';
import { eventually } from '@kubets/test-utils';
import { webhookConfigurations } from '@kubets/webhook';
import { describe, expect, it } from 'vitest';
import { useSharedApiServer } from '../../test/server.js';
import { Manager, ringKeyOf, ShardRing, type ShardRingOptions } from '../index.js';

const shared = useSharedApiServer();
const configMaps = coreV1Resources.configMaps;
const good: ShardRingOptions = {
  name: 'cms',
  namespace: 'operators',
  identity: 'pod-a',
  resources: [{ resource: configMaps }],
};

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
  ])('refuses %j', (bad, message) => {
    expect(() => new ShardRing({ ...good, ...(bad as Partial<ShardRingOptions>) })).toThrow(
      message,
    );
  });

  it('refuses to wrap the reconciler of a resource it does not shard, and one not added to a manager', async () => {
    const ring = new ShardRing(good);
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

  it('narrows the cache of each sharded resource to this member, keeping selectors given', () => {
    const ring = new ShardRing({
      ...good,
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

/** A ring of the one member pod-a over `namespace`'s ConfigMaps, on a manager of its own. */
function shardedManager(
  namespace: string,
  ringOptions: Partial<ShardRingOptions>,
  managerOptions: ConstructorParameters<typeof Manager>[1],
) {
  const clock = new FakeClock();
  const ring = new ShardRing({
    ...good,
    namespace,
    resources: [{ resource: configMaps, namespace }],
    clock,
    leaseDurationMs: 30_000,
    renewDeadlineMs: 20_000,
    retryPeriodMs: 1_000,
    ...ringOptions,
  });
  const mgr = new Manager(
    { host: shared.server.host, qps: -1 },
    {
      cache: ring.cacheOptions(),
      logger: silentLogger,
      clock,
      namespace,
      // The fake clock runs far ahead of real time; the caches sync at loopback speed.
      cacheSyncTimeoutMs: 24 * 60 * 60 * 1000,
      ...managerOptions,
    },
  );
  ring.addTo(mgr);
  return { clock, ring, mgr };
}

describe('ShardRing on a manager', () => {
  it('reports membership in /readyz and its counters as controller_sharding_* metrics', async () => {
    const namespace = await shared.createNamespace('shard-ready');
    const { clock, ring, mgr } = shardedManager(
      namespace,
      {},
      {
        healthProbeBindAddress: '127.0.0.1:0',
        metricsBindAddress: '127.0.0.1:0',
      },
    );
    expect(() => ring.addTo(mgr)).toThrow('ShardRing cms was already added to a manager');
    await shared.clientset
      .coreV1()
      .configMaps(namespace)
      .create({ metadata: { name: 'one' } });
    const abort = new AbortController();
    const done = mgr.start(abort.signal);
    try {
      const ready = async () => {
        const address = mgr.healthProbeAddress();
        if (address === undefined) return undefined;
        const res = await fetch(`http://${address.host}:${address.port}/readyz/shard-cms`);
        return { status: res.status, body: await res.text() };
      };
      await eventually(async () => expect((await ready())?.status).toBe(500));
      expect((await ready())?.body).toBe(
        `internal server error: not a member of shard ring cms: lease ${namespace}/cms-pod-a not held\n`,
      );
      await eventually(async () => {
        if (ring.stats().assigned === 1) return true;
        await clock.advance(200);
        return false;
      });
      expect(await ready()).toEqual({ status: 200, body: 'ok' });
      expect(ring.isMember()).toBe(true);
      expect(ring.stats()).toEqual({
        assigned: 1,
        drains: 0,
        moves: { 'pod-a': 1 },
        ringMembers: 1,
      });
      const metrics = await (mgr.metricsRegistry as { metrics(): Promise<string> }).metrics();
      for (const line of [
        'controller_sharding_assigned_objects{ring="cms",member="pod-a"} 1',
        'controller_sharding_drains_total{ring="cms",member="pod-a"} 0',
        'controller_sharding_moves_total{ring="cms",member="pod-a"} 1',
        'controller_sharding_ring_members{ring="cms"} 1',
      ]) {
        expect(metrics).toContain(line);
      }
    } finally {
      abort.abort();
      await done;
    }
    // Stopped: the member's Lease was released for the sharder to see at once.
    const lease = await shared.clientset.coordinationV1().leases(namespace).get('cms-pod-a');
    expect(lease.spec?.holderIdentity ?? '').toBe('');
    expect(lease.metadata?.labels).toEqual({ 'sharding.kubets.io/ring': 'cms' });
  });
});

describe('ShardRing with assignOnCreate', () => {
  it('labels each new object with its member at creation, by a mutating webhook', async () => {
    const namespace = await shared.createNamespace('shard-admission');
    const certDir = await mkdtemp(join(tmpdir(), 'kubets-shard-webhook-'));
    const certs = await generateEnvtestCertificates();
    await writeFile(join(certDir, 'tls.crt'), certs.serving.certPem);
    await writeFile(join(certDir, 'tls.key'), certs.serving.keyPem);
    // No sharder anywhere: a label can only come from the webhook.
    const { clock, ring, mgr } = shardedManager(
      namespace,
      { runSharder: false, assignOnCreate: true },
      { webhookServer: { host: '127.0.0.1', port: 0, certDir } },
    );
    expect(
      mgr.webhooks.registrations.map((r) => [r.type, r.name, r.path, r.failurePolicy]),
    ).toEqual([
      [
        'mutating',
        'configmaps.cms.shard.sharding.kubets.io',
        '/shard-cms-core-v1-configmaps',
        'Ignore',
      ],
    ]);
    const abort = new AbortController();
    const done = mgr.start(abort.signal);
    const configurations = shared.clientset
      .admissionregistrationV1()
      .mutatingWebhookConfigurations();
    const cms = shared.clientset.coreV1().configMaps(namespace);
    try {
      const { port } = await mgr.webhooks.server.listening();
      const { mutating } = webhookConfigurations('shard-cms', mgr.webhooks.registrations, {
        url: `https://127.0.0.1:${port}`,
        caBundlePem: certs.ca.certPem,
      });
      await configurations.create(mutating as NonNullable<typeof mutating>);
      // Once this replica is a member and has seen its own Lease, new objects come labelled.
      let n = 0;
      await eventually(async () => {
        await clock.advance(200);
        const probe = await cms.create({ metadata: { name: `probe-${n++}` } });
        return probe.metadata?.labels?.['shard.sharding.kubets.io/cms'] === 'pod-a';
      });
      const created = await cms.create({ metadata: { name: 'new-one' } });
      expect(created.metadata?.labels).toEqual({ 'shard.sharding.kubets.io/cms': 'pod-a' });
      // A label already given is left alone; so is a name the server has yet to generate.
      const given = await cms.create({
        metadata: { name: 'given', labels: { 'shard.sharding.kubets.io/cms': 'someone' } },
      });
      expect(given.metadata?.labels).toEqual({ 'shard.sharding.kubets.io/cms': 'someone' });
      const generated = await cms.create({ metadata: { generateName: 'gen-' } });
      expect(generated.metadata?.labels).toBeUndefined();
      // And the member caches what the webhook gave it: the last probe and new-one.
      await eventually(async () => {
        await clock.advance(200);
        return ring.stats().assigned === 2;
      });
    } finally {
      await configurations.delete('shard-cms').catch(() => {});
      abort.abort();
      await done;
      await rm(certDir, { recursive: true, force: true });
    }
  });
});
