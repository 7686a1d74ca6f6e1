import { eventually } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { useSharedApiServer } from '../../test/server.js';
import { shardedManager } from '../../test/sharded-manager.js';

const shared = useSharedApiServer();

describe('ShardRing on a manager', () => {
  it('reports membership in /readyz and its counters as controller_sharding_* metrics', async () => {
    const namespace = await shared.createNamespace('shard-ready');
    const { clock, ring, mgr } = shardedManager(
      shared.server.host,
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
      // Between two moves of the clock a real timer turn, not only an immediate one: on Deno
      // a setImmediate turn polls no I/O, so the Lease requests to the server would miss
      // every renew deadline before their answers arrived (README, Runtimes).
      await eventually(
        async () => {
          if (ring.stats().assigned === 1) return true;
          await clock.advance(200);
          return false;
        },
        { intervalMs: 1 },
      );
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
