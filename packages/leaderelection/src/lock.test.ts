import { isConflict, isNotFound } from '@kubets/apimachinery';
import { FakeClock } from '@kubets/apimachinery/testing';
import { type InMemoryApiServer, startApiServer } from '@kubets/apiserver';
import { Clientset } from '@kubets/clientset';
import { loadConfig } from '@kubets/rest';
import { eventually, MemoryLogger } from '@kubets/test-utils';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LeaderElectionConfig, LeaderElector } from './elector.js';
import {
  type LeaderElectionEventRecorder,
  type LeaseClient,
  LeaseLock,
  type LockEventSubject,
} from './lock.js';
import { formatMicroTime, type LeaderElectionRecord } from './record.js';

let server: InMemoryApiServer;
let clientset: Clientset;
let counter = 0;

beforeAll(async () => {
  server = await startApiServer();
  clientset = new Clientset({ ...loadConfig({ kubeconfig: server.kubeconfigPath }), qps: -1 });
});

afterAll(async () => {
  await server?.stop();
});

afterEach(() => {
  server.faults.reset();
});

function leaseName(): string {
  return `lock-${++counter}`;
}

const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

describe('formatMicroTime', () => {
  it('formats RFC 3339 with six fractional digits in UTC', () => {
    expect(formatMicroTime(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 67)))).toBe(
      '2024-01-02T03:04:05.067000Z',
    );
  });
});

describe('LeaseLock', () => {
  it('creates, reads and updates a Lease, conditional on its resourceVersion', async () => {
    const name = leaseName();
    const events: { subject: LockEventSubject; reason: string; message: string }[] = [];
    const recorder: LeaderElectionEventRecorder = {
      event: (subject, _type, reason, message) => events.push({ subject, reason, message }),
    };
    const a = new LeaseLock({
      namespace: 'default',
      name,
      client: clientset,
      identity: 'a',
      eventRecorder: recorder,
      labels: { app: 'demo' },
    });
    const b = new LeaseLock({
      namespace: 'default',
      name,
      client: clientset.coordinationV1().leases('default'),
      identity: 'b',
    });
    expect(a.describe()).toBe(`default/${name}`);
    expect(a.identity()).toBe('a');

    const missing = await a.get().catch((e: unknown) => e);
    expect(isNotFound(missing)).toBe(true);
    await expect(
      b.update({ holderIdentity: 'b', leaseDurationSeconds: 1, leaderTransitions: 0 }),
    ).rejects.toThrow('not initialized, call get or create first');

    const now = formatMicroTime(new Date());
    const record: LeaderElectionRecord = {
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: now,
      renewTime: now,
      leaderTransitions: 2,
    };
    await a.create(record);
    const lease = await clientset.coordinationV1().leases('default').get(name);
    expect(lease.metadata?.labels).toEqual({ app: 'demo' });
    expect(lease.spec).toMatchObject({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      leaseTransitions: 2,
      acquireTime: now,
      renewTime: now,
    });
    expect(lease.spec?.renewTime).toMatch(MICRO_TIME);

    const seenByB = await b.get();
    expect(seenByB.record).toEqual(record);
    const seenByA = await a.get();
    expect(seenByA.raw).toBe(seenByB.raw);

    // a renews; b's copy is now stale and its update must fail with a Conflict.
    await a.update({ ...record, renewTime: formatMicroTime(new Date(Date.now() + 1000)) });
    const conflict = await b
      .update({ ...record, holderIdentity: 'b', leaderTransitions: 3 })
      .catch((e: unknown) => e);
    expect(isConflict(conflict)).toBe(true);
    const afterConflict = await b.get();
    expect(afterConflict.record.holderIdentity).toBe('a');
    expect(afterConflict.raw).not.toBe(seenByB.raw);

    // After a fresh read b's update goes through (and a's copy is stale in turn).
    await b.update({ ...afterConflict.record, holderIdentity: 'b', leaderTransitions: 3 });
    expect((await a.get()).record).toMatchObject({ holderIdentity: 'b', leaderTransitions: 3 });

    a.recordEvent('became leader');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      reason: 'LeaderElection',
      message: 'a became leader',
      subject: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace: 'default' },
      },
    });
  });
});

interface LiveCandidate {
  id: string;
  elector: LeaderElector;
  events: string[];
  logger: MemoryLogger;
  leading: () => boolean;
  stop: () => void;
  done: Promise<void>;
}

const live: LiveCandidate[] = [];
afterEach(async () => {
  for (const c of live.splice(0)) {
    c.stop();
    await c.done;
  }
});

function start(
  name: string,
  id: string,
  durations: Pick<LeaderElectionConfig, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>,
  options: Pick<LeaderElectionConfig, 'releaseOnCancel' | 'clock'> & {
    client?: Clientset | LeaseClient;
  } = {},
): LiveCandidate {
  const events: string[] = [];
  const logger = new MemoryLogger();
  let signal: AbortSignal | undefined;
  const controller = new AbortController();
  const { client = clientset, ...config } = options;
  const elector = new LeaderElector({
    lock: new LeaseLock({ namespace: 'default', name, client, identity: id }),
    ...durations,
    ...config,
    logger,
    callbacks: {
      onStartedLeading: (s) => {
        signal = s;
        events.push('started');
      },
      onStoppedLeading: () => events.push('stopped'),
      onNewLeader: (leader) => events.push(`new leader ${leader}`),
    },
  });
  const c: LiveCandidate = {
    id,
    elector,
    events,
    logger,
    leading: () => signal !== undefined && !signal.aborted,
    stop: () => controller.abort(),
    done: elector.run(controller.signal),
  };
  live.push(c);
  return c;
}

/** Samples the candidates until stopped, recording any moment two of them led at once. */
function watchForTwoLeaders(candidates: LiveCandidate[]): { stop: () => string[] } {
  const overlaps: string[] = [];
  const timer = setInterval(() => {
    const leaders = candidates.filter((c) => c.leading()).map((c) => c.id);
    if (leaders.length > 1) overlaps.push(leaders.join('+'));
  }, 10);
  return {
    stop: () => {
      clearInterval(timer);
      return overlaps;
    },
  };
}

describe('LeaderElector over a Lease on the in-memory API server', { timeout: 60_000 }, () => {
  it('elects one of two candidates, and release on cancel hands over without waiting for expiry', async () => {
    const name = leaseName();
    // A 60 s lease: a takeover within the test can only come from the release.
    const durations = { leaseDurationMs: 60_000, renewDeadlineMs: 40_000, retryPeriodMs: 200 };
    const a = start(name, 'a', durations, { releaseOnCancel: true });
    await eventually(() => a.leading(), { timeoutMs: 10_000, what: 'a to lead', intervalMs: 25 });
    const b = start(name, 'b', durations, { releaseOnCancel: true });
    const sampler = watchForTwoLeaders([a, b]);
    await eventually(() => b.elector.getLeader() === 'a', {
      timeoutMs: 10_000,
      what: 'b to observe a',
      intervalMs: 25,
    });
    expect(b.leading()).toBe(false);

    a.stop();
    await a.done;
    expect(a.events).toEqual(['new leader a', 'started', 'stopped']);
    await eventually(() => b.leading(), {
      timeoutMs: 10_000,
      what: 'b to take over',
      intervalMs: 25,
    });
    const lease = await clientset.coordinationV1().leases('default').get(name);
    expect(lease.spec).toMatchObject({
      holderIdentity: 'b',
      leaseTransitions: 1,
      leaseDurationSeconds: 60,
    });
    expect(b.events).toEqual(['new leader a', 'new leader b', 'started']);
    expect(sampler.stop()).toEqual([]);
    expect(a.logger.errors()).toEqual([]);
  });

  it('releases from a fresh read when a renewal reached the server but its answer was abandoned', async () => {
    const name = leaseName();
    const leases = clientset.coordinationV1().leases('default');
    // Applies every update; once asked, keeps the next answer back until the caller gives up,
    // as when the renew deadline or a cancel fires with the request in flight.
    let withholdNext = false;
    let applied = 0;
    const client: LeaseClient = {
      get: (leaseName, options) => leases.get(leaseName, options),
      create: (lease, options) => leases.create(lease, options),
      update: async (lease, options = {}) => {
        const withhold = withholdNext;
        withholdNext = false;
        const { signal, ...unabortable } = options;
        const updated = await leases.update(lease, withhold ? unabortable : options);
        applied++;
        if (!withhold) return updated;
        return new Promise<never>((_resolve, reject) => {
          if (signal?.aborted) reject(signal.reason);
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      },
    };
    // A fake clock: renewals happen only when the test moves it, and b can take over only
    // through the release (its clock never reaches the 60 s expiry).
    const clock = new FakeClock();
    const durations = { leaseDurationMs: 60_000, renewDeadlineMs: 40_000, retryPeriodMs: 2_000 };
    const a = start(name, 'a', durations, { releaseOnCancel: true, client, clock });
    await eventually(() => a.elector.isLeader(), {
      timeoutMs: 10_000,
      what: 'a to lead',
      intervalMs: 25,
    });

    withholdNext = true;
    const before = applied;
    clock.step(durations.retryPeriodMs);
    await eventually(() => applied > before, {
      timeoutMs: 10_000,
      what: 'the renewal to reach the server',
      intervalMs: 25,
    });
    const renewed = await leases.get(name);
    a.stop();
    await a.done;

    const released = await leases.get(name);
    expect(released.metadata?.resourceVersion).not.toBe(renewed.metadata?.resourceVersion);
    expect(released.spec?.holderIdentity ?? '').toBe('');
    expect(released.spec).toMatchObject({ leaseDurationSeconds: 1, leaseTransitions: 0 });
    expect(a.logger.errors()).toEqual([]);

    const cancelB = new AbortController();
    let bStarted = false;
    const b = new LeaderElector({
      lock: new LeaseLock({ namespace: 'default', name, client: clientset, identity: 'b' }),
      ...durations,
      clock,
      callbacks: {
        onStartedLeading: () => {
          bStarted = true;
        },
        onStoppedLeading: () => {},
      },
    });
    const bDone = b.run(cancelB.signal);
    try {
      await eventually(() => bStarted, {
        timeoutMs: 10_000,
        what: 'b to acquire the released lease',
        intervalMs: 25,
      });
      expect((await leases.get(name)).spec).toMatchObject({
        holderIdentity: 'b',
        leaseTransitions: 1,
      });
    } finally {
      cancelB.abort();
      await bDone;
    }
  });

  it('leaves a Lease someone else took over alone on release', async () => {
    const name = leaseName();
    const leases = clientset.coordinationV1().leases('default');
    const durations = { leaseDurationMs: 60_000, renewDeadlineMs: 40_000, retryPeriodMs: 2_000 };
    const a = start(name, 'a', durations, { releaseOnCancel: true, clock: new FakeClock() });
    await eventually(() => a.elector.isLeader(), {
      timeoutMs: 10_000,
      what: 'a to lead',
      intervalMs: 25,
    });
    // Another party takes the Lease behind a's back (a has not renewed since).
    const taken = await leases.get(name);
    await leases.update({
      ...taken,
      spec: { ...taken.spec, holderIdentity: 'c', leaseTransitions: 1 },
    });
    a.stop();
    await a.done;
    expect((await leases.get(name)).spec).toMatchObject({
      holderIdentity: 'c',
      leaseTransitions: 1,
      leaseDurationSeconds: 60,
    });
    expect(a.logger.errors()).toEqual([]);
  });

  it('stops leading when the server answers 503 past the renew deadline, and leads again afterwards', async () => {
    const name = leaseName();
    const durations = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 400 };
    const a = start(name, 'a', durations);
    await eventually(() => a.leading(), { timeoutMs: 10_000, what: 'a to lead', intervalMs: 25 });

    server.faults.respondWith(503, { times: Number.POSITIVE_INFINITY, match: '/leases/' });
    await a.done;
    expect(a.events).toEqual(['new leader a', 'started', 'stopped']);
    expect(a.logger.lines.some((l) => l.message.startsWith('failed to renew lease'))).toBe(true);

    server.faults.reset();
    const again = start(name, 'a2', durations);
    await eventually(() => again.leading(), {
      timeoutMs: 20_000,
      what: 'a2 to lead after the outage',
      intervalMs: 25,
    });
    const lease = await clientset.coordinationV1().leases('default').get(name);
    expect(lease.spec).toMatchObject({ holderIdentity: 'a2', leaseTransitions: 1 });
  });

  it('stops leading when connections stall, and the follower takes over after the outage', async () => {
    const name = leaseName();
    const durations = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 400 };
    const a = start(name, 'a', durations);
    await eventually(() => a.leading(), { timeoutMs: 10_000, what: 'a to lead', intervalMs: 25 });
    const b = start(name, 'b', durations);
    await eventually(() => b.elector.getLeader() === 'a', {
      timeoutMs: 10_000,
      what: 'b to observe a',
      intervalMs: 25,
    });
    const sampler = watchForTwoLeaders([a, b]);

    server.faults.stallConnections();
    await a.done;
    expect(a.events).toEqual(['new leader a', 'started', 'stopped']);
    expect(b.leading()).toBe(false);

    server.faults.resume();
    await eventually(() => b.leading(), {
      timeoutMs: 20_000,
      what: 'b to take over',
      intervalMs: 25,
    });
    expect(sampler.stop()).toEqual([]);
    const lease = await clientset.coordinationV1().leases('default').get(name);
    expect(lease.spec?.holderIdentity).toBe('b');
  });
});
