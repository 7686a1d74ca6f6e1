// Two electors against envtest's real kube-apiserver, the leader's connections through a TCP
// proxy that then stops answering (blackhole: connections accepted and held, nothing ever
// forwarded) or refuses them. The leader must stop leading without ever having answered
// isLeader() true later than renewDeadline after the start of its last successful renewal —
// checked on the elector's own clock from a log of its answers and of its lock calls, not by
// timing the test — log every failed renewal with its cause, and leave the lock to the
// follower.
import { type Clock, realClock } from '@kubets/apimachinery';
import { Clientset } from '@kubets/clientset';
import { type Config, loadConfig } from '@kubets/rest';
import {
  ChaosProxy,
  createTestNamespace,
  eventually,
  MemoryLogger,
  runUntilCleanup,
  useEnvtest,
} from '@kubets/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import {
  blindLeadership,
  type LeaderCheck,
  RecordingLock,
  recordLeaderChecks,
} from '../test/recording-lock.js';
import { LeaderElector } from './elector.js';
import { LeaseLock } from './lock.js';

// The leader gives up at most 3 s after the start of its last successful renewal; the
// follower takes over no sooner than 4 s after it observed that renewal.
const LEASE_MS = 4_000;
const RENEW_MS = 3_000;
const RETRY_MS = 1_000;

const clock: Clock = realClock;
let config: Config;
let direct: Clientset;
let namespace: string;

useEnvtest(async ({ kubeconfigPath: kubeconfig }) => {
  config = loadConfig({ kubeconfig });
  direct = new Clientset({ ...config, qps: -1, timeoutMs: 10_000 });
  namespace = await createTestNamespace(direct.coreV1().namespaces(), 'le-proxy-e2e');
});

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Elector {
  readonly id: string;
  readonly elector: LeaderElector;
  readonly lock: RecordingLock;
  readonly logger: MemoryLogger;
  readonly checks: LeaderCheck[];
  readonly events: string[];
  readonly done: Promise<void>;
}

function startElector(id: string, leaseName: string, clientset: Clientset): Elector {
  const lock = new RecordingLock(
    new LeaseLock({ namespace, name: leaseName, client: clientset, identity: id }),
    clock,
  );
  const logger = new MemoryLogger();
  const checks: LeaderCheck[] = [];
  const events: string[] = [];
  const elector: LeaderElector = new LeaderElector({
    lock,
    clock,
    logger,
    leaseDurationMs: LEASE_MS,
    renewDeadlineMs: RENEW_MS,
    retryPeriodMs: RETRY_MS,
    callbacks: {
      // The "controller" asks whether it still leads before every piece of work.
      onStartedLeading: (signal) => {
        events.push('started leading');
        recordLeaderChecks(elector, clock, signal, checks);
      },
      onStoppedLeading: () => events.push('stopped leading'),
      onNewLeader: (leader) => events.push(`new leader ${leader}`),
    },
  });
  const done = runUntilCleanup(cleanups, (signal) => elector.run(signal));
  return { id, elector, lock, logger, checks, events, done };
}

function diagnostics(...electors: Elector[]): string {
  return electors
    .map((e) => `--- ${e.id}: ${e.events.join(', ')}\n${e.logger.text().join('\n')}`)
    .join('\n');
}

/** Starts the leader (through `proxy`) and then the follower (direct); both agree on the leader. */
async function electThroughProxy(leaseName: string, proxy: ChaosProxy, overrides: Partial<Config>) {
  const viaProxy = new Clientset({
    ...config,
    host: proxy.url(),
    qps: -1,
    // Longer than the renew deadline: the elector, not the request, must give up.
    timeoutMs: 60_000,
    ...overrides,
  });
  const leader = startElector('leader', leaseName, viaProxy);
  await eventually(() => leader.elector.isLeader(), { what: 'the leader to acquire' });
  const follower = startElector('follower', leaseName, direct);
  await eventually(() => follower.events.includes('new leader leader'), {
    what: 'the follower to observe the leader',
  });
  // At least one renewal through the proxy before the fault, so the leader is renewing.
  const writesBefore = leader.lock.successfulAttemptStarts().length;
  await eventually(() => leader.lock.successfulAttemptStarts().length > writesBefore, {
    what: 'a renewal through the proxy',
  });
  return { leader, follower };
}

/** What every scenario must show once the leader's path is broken (at `faultAt`). */
async function expectLeaderStopsThenFollowerAcquires(
  leaseName: string,
  leader: Elector,
  follower: Elector,
  faultAt: number,
  cause: RegExp,
): Promise<void> {
  await eventually(() => leader.events.includes('stopped leading'), {
    timeoutMs: 60_000,
    what: 'the leader to stop leading',
  }).catch((error: unknown) => {
    throw new Error(`${String(error)}\n${diagnostics(leader, follower)}`);
  });
  await leader.done;
  expect(leader.elector.isLeader()).toBe(false);
  expect(leader.events.at(-1)).toBe('stopped leading');

  // Never blind: each "I lead" came within renewDeadline of the start of the last renewal
  // written before it (on the elector's clock).
  expect(leader.checks.filter((c) => c.leader).length).toBeGreaterThan(0);
  expect(blindLeadership(leader.checks, leader.lock, RENEW_MS)).toEqual([]);
  expect(leader.checks.at(-1)?.leader).toBe(false);

  // Every renew attempt begun after the fault failed, and each one logged why: one error
  // line per attempt, saying it got no answer (in time for its own deadline or the renew
  // deadline) or naming the error its request failed with.
  // (Attempts after the last successful write: one in flight at the fault counts too.)
  const lastWrite = leader.lock.calls.findLastIndex((c) => c.op !== 'get' && c.outcome === 'ok');
  const attempts = leader.lock.calls.slice(lastWrite + 1).filter((c) => c.op === 'get');
  const renewErrors = leader.logger
    .errors()
    .filter((m) => m.startsWith(`error retrieving resource lock ${namespace}/${leaseName}`));
  expect(attempts.length).toBeGreaterThan(0);
  expect(renewErrors.length, diagnostics(leader)).toBe(attempts.length);
  const noAnswer = /no answer within \d+ ms \(trying to renew\)/;
  for (const message of renewErrors) {
    expect(noAnswer.test(message) || cause.test(message), message).toBe(true);
  }
  for (const call of attempts.filter((c) => cause.test(c.error ?? ''))) {
    expect(
      renewErrors.some((m) => m.includes(call.error ?? '')),
      call.error,
    ).toBe(true);
  }
  expect(leader.lock.calls.filter((c) => c.startedAt >= faultAt && c.outcome === 'ok')).toEqual([]);
  expect(
    leader.logger.lines.some((l) => l.message.startsWith(`failed to renew lease ${namespace}`)),
  ).toBe(true);

  // The follower takes over, and only after the leader's last "I lead".
  await eventually(() => follower.elector.isLeader(), {
    timeoutMs: 60_000,
    what: 'the follower to acquire',
  }).catch((error: unknown) => {
    throw new Error(`${String(error)}\n${diagnostics(leader, follower)}`);
  });
  const lease = await direct.coordinationV1().leases(namespace).get(leaseName);
  expect(lease.spec?.holderIdentity).toBe('follower');
  const takeover = follower.lock.successfulAttemptStarts().at(-1)!.writtenAt;
  const lastLed = leader.checks.filter((c) => c.leader).at(-1)!.at;
  expect(lastLed).toBeLessThan(takeover);
}

async function startProxy(): Promise<ChaosProxy> {
  const { host } = config;
  const proxy = await ChaosProxy.start(host);
  cleanups.push(() => proxy.close());
  return proxy;
}

describe("leader election when the leader's connection breaks", () => {
  it('blackholed (requests hang): the leader stops by its renew deadline, logs each hung renewal, the follower acquires', async () => {
    const leaseName = 'blackhole';
    const proxy = await startProxy();
    const { leader, follower } = await electThroughProxy(leaseName, proxy, {});

    const faultAt = clock.now();
    proxy.hold(true);
    const stalled = proxy.blackhole();

    await expectLeaderStopsThenFollowerAcquires(
      leaseName,
      leader,
      follower,
      faultAt,
      /no answer within \d+ ms \(trying to renew\)/,
    );
    // The leader's requests really went into the hole: kept-alive or new connections.
    expect(stalled + proxy.held).toBeGreaterThan(0);
  });

  it('refused: the leader stops by its renew deadline, logs each refused renewal, the follower acquires', async () => {
    const leaseName = 'refused';
    const proxy = await startProxy();
    // No retries inside one attempt: each renewal fails with the connection error itself.
    const { leader, follower } = await electThroughProxy(leaseName, proxy, { maxRetries: 0 });

    const faultAt = clock.now();
    proxy.refuse(true);
    proxy.reset();

    await expectLeaderStopsThenFollowerAcquires(
      leaseName,
      leader,
      follower,
      faultAt,
      /ECONNRESET|socket hang up|ECONNREFUSED/,
    );
    expect(proxy.refused).toBeGreaterThan(0);
  });
});
