// controller-runtime's pkg/manager/manager_test.go, case by case where it maps to kubets'
// Manager: the same inputs and expectations, on the in-memory API server. Cases about parts
// kubets does not have (pluggable clients, caches and resource locks, webhook and pprof
// servers, additional clusters, goroutine leaks) are listed with their reasons in
// docs/fidelity.md ("controller-runtime: the controller and the manager").
import { createServer } from 'node:net';
import { silentLogger } from '@kubets/apimachinery';
import { coreV1Resources } from '@kubets/clientset';
import { deferred, eventually, MemoryLogger, rejectionOf } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { idleRunnable } from '../test/runnables.js';
import { useSharedApiServer } from '../test/server.js';
import {
  CacheSyncTimeoutError,
  controller,
  Manager,
  type ManagerOptions,
  type Runnable,
} from './index.js';

const shared = useSharedApiServer();

const config = () => ({ host: shared.server.host, qps: -1 });
const newManager = (options: ManagerOptions = {}) =>
  new Manager(config(), { logger: silentLogger, ...options });

/** A runnable that records its start and stop, and takes `stopping` to finish once stopped. */
function recordingRunnable(name: string, log: string[], stopping?: Promise<void>): Runnable {
  return {
    name,
    run: (signal) =>
      new Promise<void>((resolve) => {
        log.push(`${name} started`);
        signal.addEventListener('abort', async () => {
          await stopping;
          log.push(`${name} stopped`);
          resolve();
        });
      }),
  };
}

/** A started manager serving metrics or health probes on a free loopback port, and its URL. */
async function servingManager(what: 'metrics' | 'health') {
  const mgr = newManager(
    what === 'metrics'
      ? { metricsBindAddress: '127.0.0.1:0' }
      : { healthProbeBindAddress: '127.0.0.1:0' },
  );
  mgr.add(idleRunnable);
  const abort = new AbortController();
  const done = mgr.start(abort.signal);
  const address = () => (what === 'metrics' ? mgr.metricsAddress() : mgr.healthProbeAddress());
  await eventually(() => address() !== undefined);
  const { host, port } = address() ?? { host: '', port: 0 };
  return { mgr, abort, done, url: `http://${host}:${port}` };
}

/** A TCP port on loopback held until `close`. */
async function heldPort(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const lease = (namespace: string, name: string) =>
  shared.clientset.coordinationV1().leases(namespace).get(name);

// Short leases so that a takeover happens within seconds; tests wait on what happens.
const fastElection = { leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 200 };

describe('manger.Manager', () => {
  describe('New', () => {
    it('should return an error if there is no Config', () => {
      expect(() => new Manager(undefined as never)).toThrow(
        'a Manager needs a REST config: new Manager(getConfig(), options), or { host } for a local server',
      );
    });

    describe('with leader election enabled', () => {
      it('should only cancel the leader election after all runnables are done', async () => {
        const namespace = await shared.createNamespace('mgr-le-2');
        const log: string[] = [];
        const slowStop = deferred<void>();
        const mgr = newManager({
          leaderElection: {
            namespace,
            name: 'test-leader-election-id-2',
            identity: 'one',
            releaseOnCancel: true,
          },
          gracefulShutdownTimeoutMs: 60_000,
        });
        mgr.add(recordingRunnable('slow', log, slowStop.promise));
        const abort = new AbortController();
        const done = mgr.start(abort.signal);
        await eventually(() => log.includes('slow started'));
        abort.abort();
        // The runnable is still draining: the Lease is still held.
        expect((await lease(namespace, 'test-leader-election-id-2')).spec?.holderIdentity).toBe(
          'one',
        );
        slowStop.resolve();
        await done;
        expect(log).toEqual(['slow started', 'slow stopped']);
        // Released only afterwards.
        expect(
          (await lease(namespace, 'test-leader-election-id-2')).spec?.holderIdentity ?? '',
        ).toBe('');
      });

      it('should prevent leader election when shutting down a non-elected manager', async () => {
        const namespace = await shared.createNamespace('mgr-le-3');
        const election = { namespace, name: 'test-leader-election-id-3', ...fastElection };
        const leaderLog: string[] = [];
        const leader = newManager({
          leaderElection: {
            ...election,
            identity: 'leader',
            leaseDurationMs: 15_000,
            renewDeadlineMs: 10_000,
          },
        });
        leader.add(recordingRunnable('work', leaderLog));
        const stopLeader = new AbortController();
        const leaderDone = leader.start(stopLeader.signal);
        await eventually(() => leader.isLeader());

        const otherLog: string[] = [];
        const other = newManager({ leaderElection: { ...election, identity: 'other' } });
        other.add(recordingRunnable('work', otherLog));
        const stopOther = new AbortController();
        const otherDone = other.start(stopOther.signal);
        stopOther.abort();
        await otherDone;
        stopLeader.abort();
        await leaderDone;
        expect(otherLog).toEqual([]);
        expect((await lease(namespace, election.name)).spec?.holderIdentity).toBe('leader');
      });

      it('should release lease if ElectionReleaseOnCancel is true', async () => {
        const namespace = await shared.createNamespace('mgr-le-release');
        const mgr = newManager({
          leaderElection: {
            namespace,
            name: 'test-leader-election-id',
            identity: 'me',
            releaseOnCancel: true,
          },
        });
        mgr.add(idleRunnable);
        const abort = new AbortController();
        const done = mgr.start(abort.signal);
        await eventually(() => mgr.isLeader());
        abort.abort();
        await done;
        const held = await lease(namespace, 'test-leader-election-id');
        expect(held.spec?.holderIdentity ?? '').toBe('');
      });
    });

    it('should return an error if the metrics bind address is already in use', async () => {
      const held = await heldPort();
      try {
        const mgr = newManager({ metricsBindAddress: `127.0.0.1:${held.port}` });
        mgr.add(idleRunnable);
        const err = await rejectionOf(mgr.start(new AbortController().signal));
        expect(String(err)).toContain('EADDRINUSE');
      } finally {
        await held.close();
      }
    });

    it('should return an error if the health probes bind address is already in use', async () => {
      const held = await heldPort();
      try {
        const mgr = newManager({ healthProbeBindAddress: `127.0.0.1:${held.port}` });
        mgr.add(idleRunnable);
        const err = await rejectionOf(mgr.start(new AbortController().signal));
        expect(String(err)).toContain('EADDRINUSE');
      } finally {
        await held.close();
      }
    });
  });

  describe('Start', () => {
    it('should Start each Component', async () => {
      const log: string[] = [];
      const mgr = newManager();
      mgr.add(recordingRunnable('one', log));
      mgr.add(recordingRunnable('two', log));
      const abort = new AbortController();
      const done = mgr.start(abort.signal);
      await eventually(() => log.length === 2);
      expect([...log].sort()).toEqual(['one started', 'two started']);
      abort.abort();
      await done;
    });

    it('should not manipulate the provided config', () => {
      const given = { host: shared.server.host, qps: 5, burst: 7 };
      const copy = structuredClone(given);
      newManager({ metricsBindAddress: '127.0.0.1:0' });
      new Manager(given, { logger: silentLogger, metricsBindAddress: '127.0.0.1:0' });
      expect(given).toEqual(copy);
    });

    it('should stop when context is cancelled', async () => {
      const mgr = newManager();
      mgr.add(idleRunnable);
      const abort = new AbortController();
      const done = mgr.start(abort.signal);
      abort.abort();
      await expect(done).resolves.toBeUndefined();
    });

    it("should return an error if it can't start the cache", async () => {
      const mgr = newManager({ cacheSyncTimeoutMs: 300 });
      controller(mgr)
        .for('example.com/v1/nothings')
        .complete(() => undefined);
      const err = await rejectionOf(mgr.start(new AbortController().signal));
      expect(err).toBeInstanceOf(CacheSyncTimeoutError);
      expect(String(err)).toContain('example.com/v1/nothings');
    });

    it('should start the cache before starting anything else', async () => {
      const namespace = await shared.createNamespace('mgr-cache-first');
      await shared.clientset
        .coreV1()
        .configMaps(namespace)
        .create({ metadata: { name: 'listed' } });
      const mgr = newManager({ namespace });
      // Created before start (controller-runtime's GetInformer), so the manager starts it.
      const informer = mgr.informers.forResource(coreV1Resources.configMaps);
      informer.informer();
      const seen: string[] = [];
      mgr.add({
        name: 'reader',
        run: async (signal) => {
          seen.push(
            ...informer
              .lister()
              .list()
              .map((cm) => cm.metadata?.name ?? ''),
          );
          seen.push(`synced=${informer.informer().hasSynced()}`);
          await new Promise((resolve) => signal.addEventListener('abort', resolve));
        },
      });
      const abort = new AbortController();
      const done = mgr.start(abort.signal);
      await eventually(() => seen.length === 2);
      expect(seen).toEqual(['listed', 'synced=true']);
      abort.abort();
      await done;
    });

    it('should return an error if any Components fail to Start', async () => {
      const mgr = newManager();
      const failure = new Error('expected error');
      mgr.add(idleRunnable);
      mgr.add({ name: 'failing', run: () => Promise.reject(failure) });
      expect(await rejectionOf(mgr.start(new AbortController().signal))).toBe(failure);
    });

    it('should wait for runnables to stop', async () => {
      const log: string[] = [];
      const slow = deferred<void>();
      const mgr = newManager();
      mgr.add(recordingRunnable('slow', log, slow.promise));
      const abort = new AbortController();
      let settled = false;
      const done = mgr.start(abort.signal).finally(() => {
        settled = true;
      });
      await eventually(() => log.length === 1);
      abort.abort();
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(false);
      slow.resolve();
      await done;
      expect(log).toEqual(['slow started', 'slow stopped']);
    });

    it('should return an error if any Components fail to Start and wait for runnables to stop', async () => {
      const log: string[] = [];
      const slow = deferred<void>();
      const failure = new Error('expected error');
      const mgr = newManager();
      mgr.add(recordingRunnable('slow', log, slow.promise));
      mgr.add({
        name: 'failing',
        run: async () => {
          await eventually(() => log.length === 1);
          throw failure;
        },
      });
      const result = rejectionOf(mgr.start(new AbortController().signal));
      await eventually(() => log.length === 1);
      slow.resolve();
      expect(await result).toBe(failure);
      expect(log).toEqual(['slow started', 'slow stopped']);
    });

    it('should refuse to add runnable if stop procedure is already engaged', async () => {
      const mgr = newManager();
      mgr.add(idleRunnable);
      const abort = new AbortController();
      const done = mgr.start(abort.signal);
      abort.abort();
      expect(() => mgr.add({ ...idleRunnable, name: 'late' })).toThrow(
        'cannot add late to a manager that was already started',
      );
      await done;
    });

    it('should not return runnables context.Canceled errors', async () => {
      const mgr = newManager();
      mgr.add({
        name: 'passes-the-abort-on',
        run: (signal) =>
          new Promise<void>((_, reject) =>
            signal.addEventListener('abort', () => reject(signal.reason)),
          ),
      });
      const abort = new AbortController();
      const done = mgr.start(abort.signal);
      await eventually(() => mgr.isLeader());
      abort.abort();
      await expect(done).resolves.toBeUndefined();
    });

    it('should default controller logger from manager logger', async () => {
      const namespace = await shared.createNamespace('mgr-logger');
      const logger = new MemoryLogger();
      const mgr = new Manager(config(), { namespace, logger });
      controller(mgr)
        .named('logged')
        .for(coreV1Resources.configMaps)
        .complete((_req, ctx) => {
          ctx.logger.info('reconciling');
        });
      const abort = new AbortController();
      const done = mgr.start(abort.signal);
      await shared.clientset
        .coreV1()
        .configMaps(namespace)
        .create({ metadata: { name: 'one' } });
      await eventually(() => logger.matching('info', /^reconciling$/) === 1);
      const line = logger.lines.find((l) => l.message === 'reconciling');
      expect(line?.fields).toMatchObject({ controller: 'logged', namespace, name: 'one' });
      abort.abort();
      await done;
    });

    it("should return only runnables error if stop doesn't error", async () => {
      const failure = new Error('runnable error');
      const mgr = newManager();
      mgr.add({ name: 'failing', run: () => Promise.reject(failure) });
      expect(await rejectionOf(mgr.start(new AbortController().signal))).toBe(failure);
    });

    it('should not wait for runnables if gracefulShutdownTimeout is 0', async () => {
      const never = deferred<void>();
      const mgr = newManager({ gracefulShutdownTimeoutMs: 0 });
      const log: string[] = [];
      mgr.add(recordingRunnable('stuck', log, never.promise));
      const abort = new AbortController();
      const done = mgr.start(abort.signal);
      await eventually(() => log.length === 1);
      abort.abort();
      await expect(done).resolves.toBeUndefined();
      expect(log).toEqual(['stuck started']);
      never.resolve();
    });

    it('should wait forever for runnables if gracefulShutdownTimeout is <0 (-1)', async () => {
      const slow = deferred<void>();
      const mgr = newManager({ gracefulShutdownTimeoutMs: -1 });
      const log: string[] = [];
      mgr.add(recordingRunnable('slow', log, slow.promise));
      const abort = new AbortController();
      let settled = false;
      const done = mgr.start(abort.signal).finally(() => {
        settled = true;
      });
      await eventually(() => log.length === 1);
      abort.abort();
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(false);
      slow.resolve();
      await done;
      expect(log).toEqual(['slow started', 'slow stopped']);
    });

    describe('with leaderelection enabled', () => {
      it('should return an error if leader election param incorrect', async () => {
        const namespace = await shared.createNamespace('mgr-le-bad');
        const mgr = newManager({
          leaderElection: {
            namespace,
            name: 'bad',
            leaseDurationMs: 1_000,
            renewDeadlineMs: 2_000,
          },
        });
        mgr.add(idleRunnable);
        const err = await rejectionOf(mgr.start(new AbortController().signal));
        expect(String(err)).toContain(
          'leaseDurationMs (1000) must be greater than renewDeadlineMs (2000)',
        );
      });
    });

    describe('should start serving metrics', () => {
      const serving = () => servingManager('metrics');

      it('should stop serving metrics when stop is called', async () => {
        const { abort, done, url } = await serving();
        expect((await fetch(`${url}/metrics`)).status).toBe(200);
        abort.abort();
        await done;
        await expect(fetch(`${url}/metrics`)).rejects.toThrow();
      });

      it('should serve metrics endpoint', async () => {
        const { abort, done, url } = await serving();
        const res = await fetch(`${url}/metrics`);
        expect(res.status).toBe(200);
        abort.abort();
        await done;
      });

      it('should not serve anything other than metrics endpoint by default', async () => {
        const { abort, done, url } = await serving();
        expect((await fetch(`${url}/anything-else`)).status).toBe(404);
        abort.abort();
        await done;
      });

      it('should serve metrics in its registry', async () => {
        const { mgr, abort, done, url } = await serving();
        const prom = await import('prom-client');
        const registry = mgr.metricsRegistry as unknown as InstanceType<typeof prom.Registry>;
        const counter = new prom.Counter({
          name: 'test_one',
          help: 'test metric for testing',
          registers: [registry],
        });
        counter.inc();
        const body = await (await fetch(`${url}/metrics`)).text();
        expect(body).toContain('test_one 1');
        abort.abort();
        await done;
      });
    });
  });

  describe('should start serving health probes', () => {
    const serving = () => servingManager('health');

    it('should stop serving health probes when stop is called', async () => {
      const { abort, done, url } = await serving();
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      abort.abort();
      await done;
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    });

    it('should serve readiness endpoint', async () => {
      const { mgr, abort, done, url } = await serving();
      let failing = true;
      mgr.addReadyzCheck('check', () => {
        if (failing) throw new Error('not ready');
      });
      expect((await fetch(`${url}/readyz`)).status).toBe(500);
      expect((await fetch(`${url}/readyz/check`)).status).toBe(500);
      failing = false;
      await eventually(async () => (await fetch(`${url}/readyz`)).status === 200);
      expect((await fetch(`${url}/readyz/check`)).status).toBe(200);
      abort.abort();
      await done;
    });

    it('should serve liveness endpoint', async () => {
      const { mgr, abort, done, url } = await serving();
      let failing = true;
      mgr.addHealthzCheck('check', () => {
        if (failing) throw new Error('not alive');
      });
      expect((await fetch(`${url}/healthz`)).status).toBe(500);
      expect((await fetch(`${url}/healthz/check`)).status).toBe(500);
      failing = false;
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect((await fetch(`${url}/healthz/check`)).status).toBe(200);
      abort.abort();
      await done;
    });
  });

  describe('Add', () => {
    it('should fail if attempted to start a second time', async () => {
      const mgr = newManager();
      mgr.add(idleRunnable);
      const abort = new AbortController();
      const done = mgr.start(abort.signal);
      expect(String(await rejectionOf(mgr.start(abort.signal)))).toContain(
        'the manager was already started',
      );
      abort.abort();
      await done;
    });
  });

  it('should provide a function to get the Config', () => {
    const given = config();
    expect(new Manager(given, { logger: silentLogger }).config).toBe(given);
  });

  it('should provide a function to get the Client', () => {
    const mgr = newManager();
    expect(typeof mgr.clientset.coreV1().configMaps('default').get).toBe('function');
    expect(typeof mgr.dynamicClient.resource).toBe('function');
  });

  it('should provide a function to get the EventRecorder', () => {
    const recorder = newManager().eventRecorderFor('test');
    expect(typeof recorder.event).toBe('function');
  });

  it('should run warmup runnables before leader election is won', async () => {
    // kubets' manager warms every replica's caches before leader election: the informers are
    // started and synced first, and only the runnables wait for the Lease.
    const namespace = await shared.createNamespace('mgr-warmup');
    await shared.clientset
      .coreV1()
      .configMaps(namespace)
      .create({ metadata: { name: 'warm' } });
    const election = { namespace, name: 'test-leader-election-warmup', ...fastElection };
    // The holder's Lease lasts 15 s (a stall of the holder hands nothing over) and is given
    // up when it stops.
    const holder = newManager({
      leaderElection: {
        ...election,
        identity: 'holder',
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        releaseOnCancel: true,
      },
    });
    holder.add(idleRunnable);
    const stopHolder = new AbortController();
    const holderDone = holder.start(stopHolder.signal);
    await eventually(() => holder.isLeader());

    const order: string[] = [];
    const mgr = newManager({
      namespace,
      leaderElection: { ...election, identity: 'waiting', releaseOnCancel: true },
    });
    const configMaps = mgr.informers.forResource(coreV1Resources.configMaps);
    configMaps.informer();
    mgr.add({
      name: 'leaderElectionRunnable',
      run: (signal) =>
        new Promise<void>((resolve) => {
          order.push('leaderElectionRunnable');
          signal.addEventListener('abort', () => resolve());
        }),
    });
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    // Warm while not leading: the cache holds what was listed.
    await eventually(() => configMaps.lister().list().length === 1);
    order.push('warmup');
    expect(mgr.isLeader()).toBe(false);
    stopHolder.abort();
    await holderDone;
    await eventually(() => order.length === 2, { timeoutMs: 20_000 });
    expect(order).toEqual(['warmup', 'leaderElectionRunnable']);
    stop.abort();
    await done;
  });
});
