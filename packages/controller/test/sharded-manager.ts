// A ShardRing of one member on a manager of its own, for the sharding tests.
import { silentLogger } from '@kubets/apimachinery';
import { FakeClock } from '@kubets/apimachinery/testing';
import { coreV1Resources } from '@kubets/clientset';
import { Manager, ShardRing, type ShardRingOptions } from '../src/index.js';

/** The ring of the sharding tests' one member: `cms`, member `pod-a`, over ConfigMaps. */
export const oneMember: ShardRingOptions = {
  name: 'cms',
  namespace: 'operators',
  identity: 'pod-a',
  resources: [{ resource: coreV1Resources.configMaps }],
};

/**
 * A ring of the one member pod-a (or `ringOptions.identity`) over `namespace`'s ConfigMaps, on
 * a manager of its own, both on `clock` (a new fake clock when not given).
 */
export function shardedManager(
  host: string,
  namespace: string,
  ringOptions: Partial<ShardRingOptions> & { clock?: FakeClock },
  managerOptions: ConstructorParameters<typeof Manager>[1],
) {
  const clock = ringOptions.clock ?? new FakeClock();
  const ring = new ShardRing({
    ...oneMember,
    namespace,
    resources: [{ resource: coreV1Resources.configMaps, namespace }],
    clock,
    leaseDurationMs: 30_000,
    renewDeadlineMs: 20_000,
    retryPeriodMs: 1_000,
    ...ringOptions,
  });
  const mgr = new Manager(
    { host, qps: -1 },
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
