import { FakeClock } from '@kubets/apimachinery/testing';
import { flush, MemoryLogger, statusError } from '@kubets/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeFault, FakeLock, FakeLockStore } from '../test/helpers.js';
import {
  type LeaderCallbacks,
  type LeaderElectionConfig,
  LeaderElector,
  runLeaderElection,
  validateLeaderElectionConfig,
} from './elector.js';
import { formatMicroTime } from './record.js';

const LEASE = 15_000;
const RENEW = 10_000;
const RETRY = 2_000;
/** The longest a jittered acquire wait can be. */
const MAX_RETRY_WAIT = RETRY * 2.2;

let clock: FakeClock;
const running: Candidate[] = [];

afterEach(async () => {
  for (const c of running.splice(0)) c.stop();
  await flush(5);
});

interface Candidate {
  id: string;
  elector: LeaderElector;
  lock: FakeLock;
  events: string[];
  logger: MemoryLogger;
  done: Promise<void>;
  finished: () => boolean;
  leading: () => boolean;
  leadingSignal: () => AbortSignal | undefined;
  stop: () => void;
}

function candidate(
  store: FakeLockStore,
  id: string,
  overrides: Partial<LeaderElectionConfig> & {
    onStartedLeading?: LeaderCallbacks['onStartedLeading'];
  } = {},
): Candidate {
  const events: string[] = [];
  const logger = new MemoryLogger();
  const lock = new FakeLock(store, id);
  let signal: AbortSignal | undefined;
  const controller = new AbortController();
  const { onStartedLeading, ...rest } = overrides;
  const elector = new LeaderElector({
    lock,
    clock,
    logger,
    random: () => 0.5,
    leaseDurationMs: LEASE,
    renewDeadlineMs: RENEW,
    retryPeriodMs: RETRY,
    callbacks: {
      onStartedLeading: (s) => {
        signal = s;
        events.push('started');
        s.addEventListener('abort', () => events.push('signal aborted'));
        return onStartedLeading?.(s);
      },
      onStoppedLeading: () => events.push('stopped'),
      onNewLeader: (leader) => events.push(`new leader ${leader}`),
    },
    ...rest,
  });
  let finished = false;
  const done = elector.run(controller.signal).then(() => {
    finished = true;
  });
  const c: Candidate = {
    id,
    elector,
    lock,
    events,
    logger,
    done,
    finished: () => finished,
    leading: () => signal !== undefined && !signal.aborted,
    leadingSignal: () => signal,
    stop: () => controller.abort(new Error(`${id} cancelled`)),
  };
  running.push(c);
  return c;
}

/** Steps the fake clock, asserting after every step that at most one candidate leads. */
async function advance(ms: number, candidates: Candidate[] = running, stepMs = 50): Promise<void> {
  for (let done = 0; done < ms; done += stepMs) {
    clock.step(Math.min(stepMs, ms - done));
    await flush(5);
    const leaders = candidates.filter((c) => c.leading()).map((c) => c.id);
    expect(leaders.length, `two leaders at once: ${leaders.join(', ')}`).toBeLessThanOrEqual(1);
  }
}

async function advanceUntil(predicate: () => boolean, limitMs: number): Promise<number> {
  const start = clock.now();
  await flush(5);
  while (!predicate()) {
    if (clock.now() - start > limitMs) throw new Error(`not reached within ${limitMs} ms`);
    await advance(50);
  }
  return clock.now() - start;
}

function newStore(): FakeLockStore {
  clock = new FakeClock(1_000_000);
  return new FakeLockStore(clock);
}

const noopCallbacks: LeaderCallbacks = { onStartedLeading: () => {}, onStoppedLeading: () => {} };

describe('config validation', () => {
  const lock = new FakeLock(new FakeLockStore(new FakeClock()), 'a');
  const base: LeaderElectionConfig = { lock, callbacks: noopCallbacks };

  it('applies the defaults 15 s / 10 s / 2 s', () => {
    expect(validateLeaderElectionConfig(base)).toEqual({
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
  });

  it.each([
    [
      { leaseDurationMs: 10_000, renewDeadlineMs: 10_000 },
      'leaseDurationMs (10000) must be greater than renewDeadlineMs (10000)',
    ],
    [
      { leaseDurationMs: 5_000, renewDeadlineMs: 8_000, retryPeriodMs: 1_000 },
      'leaseDurationMs (5000) must be greater than renewDeadlineMs (8000)',
    ],
    [
      { renewDeadlineMs: 2_400, retryPeriodMs: 2_000 },
      'renewDeadlineMs (2400) must be greater than retryPeriodMs × JitterFactor (2000 × 1.2 = 2400)',
    ],
    [
      { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 3_000 },
      'renewDeadlineMs (3000) must be greater than retryPeriodMs × JitterFactor (3000 × 1.2 = 3600)',
    ],
    [
      { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 0 },
      'retryPeriodMs must be a finite number greater than zero, got 0',
    ],
    [
      { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: -1 },
      'retryPeriodMs must be a finite number greater than zero, got -1',
    ],
    [
      { leaseDurationMs: 4_000, renewDeadlineMs: -1, retryPeriodMs: -2 },
      'renewDeadlineMs must be a finite number greater than zero, got -1',
    ],
    [
      { leaseDurationMs: Number.NaN },
      'leaseDurationMs must be a finite number greater than zero, got NaN',
    ],
  ])('rejects %o', (durations, message) => {
    expect(() => new LeaderElector({ ...base, ...durations })).toThrow(
      `leaderelection: ${message}`,
    );
  });

  it('accepts the smallest valid ordering', () => {
    expect(
      () =>
        new LeaderElector({
          ...base,
          leaseDurationMs: 4_000,
          renewDeadlineMs: 3_000,
          retryPeriodMs: 1_000,
        }),
    ).not.toThrow();
  });

  it('requires both callbacks', () => {
    const onlyStopped = { onStoppedLeading: () => {} } as unknown as LeaderCallbacks;
    expect(() => new LeaderElector({ ...base, callbacks: onlyStopped })).toThrow(
      'callbacks.onStartedLeading must be a function',
    );
    const onlyStarted = { onStartedLeading: () => {} } as unknown as LeaderCallbacks;
    expect(() => new LeaderElector({ ...base, callbacks: onlyStarted })).toThrow(
      'callbacks.onStoppedLeading must be a function',
    );
  });

  it('requires a lock with a non-empty identity', () => {
    const anonymous = new FakeLock(new FakeLockStore(new FakeClock()), '');
    expect(() => new LeaderElector({ ...base, lock: anonymous })).toThrow(
      'lock identity is empty (lock default/lock)',
    );
    const missing = { ...base, lock: undefined } as unknown as LeaderElectionConfig;
    expect(() => new LeaderElector(missing)).toThrow('lock must not be empty');
  });

  it('runLeaderElection rejects a bad config', async () => {
    await expect(runLeaderElection({ ...base, retryPeriodMs: 0 })).rejects.toThrow('retryPeriodMs');
  });
});

describe('a single candidate', () => {
  it('creates the record, starts leading, renews every retry period, and stops on cancel', async () => {
    const store = newStore();
    const a = candidate(store, 'a');
    await flush(5);
    expect(a.events).toEqual(['new leader a', 'started']);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.elector.getLeader()).toBe('a');
    expect(store.writes[0]).toMatchObject({
      op: 'create',
      record: { holderIdentity: 'a', leaseDurationSeconds: 15, leaderTransitions: 0 },
    });
    expect(store.writes[0]?.record.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const acquireTime = store.record?.acquireTime;
    expect(a.lock.events).toEqual(['a became leader']);

    await advance(RETRY * 5);
    const renewals = store.writes.filter((w) => w.op === 'update');
    expect(renewals).toHaveLength(5);
    for (const w of renewals) {
      // A renewal keeps acquireTime and the transition count.
      expect(w.record).toMatchObject({ holderIdentity: 'a', acquireTime, leaderTransitions: 0 });
    }
    expect(a.leading()).toBe(true);

    a.stop();
    await a.done;
    expect(a.events).toEqual(['new leader a', 'started', 'signal aborted', 'stopped']);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.lock.events).toEqual(['a became leader', 'a stopped leading']);
    // No releaseOnCancel: the record still names a until it expires.
    expect(store.record?.holderIdentity).toBe('a');
  });

  it('calls onStoppedLeading when cancelled before it ever led (as client-go)', async () => {
    const store = newStore();
    store.put({ holderIdentity: 'other', leaseDurationSeconds: 15, leaderTransitions: 0 });
    const a = candidate(store, 'a');
    await advance(RETRY * 3);
    expect(a.events).toEqual(['new leader other']);
    a.stop();
    await a.done;
    expect(a.events).toEqual(['new leader other', 'stopped']);
  });

  it('gives up leadership when onStartedLeading rejects', async () => {
    const store = newStore();
    const a = candidate(store, 'a', {
      onStartedLeading: async () => {
        throw new Error('controller crashed');
      },
      releaseOnCancel: true,
    });
    await flush(5);
    await a.done;
    expect(a.events).toEqual(['new leader a', 'started', 'signal aborted', 'stopped']);
    expect(a.logger.errors()).toContain('onStartedLeading failed; giving up leadership');
    expect(store.record).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
  });

  it('refuses to run twice at once', async () => {
    const store = newStore();
    const a = candidate(store, 'a');
    await expect(a.elector.run()).rejects.toThrow('already running');
  });
});

describe('two candidates', () => {
  it('only one leads; the other takes over only after the lease expired by its own clock', async () => {
    const store = newStore();
    const a = candidate(store, 'a');
    await flush(5);
    const b = candidate(store, 'b');
    await advance(LEASE * 4);
    expect(a.leading()).toBe(true);
    expect(b.leading()).toBe(false);
    expect(b.elector.getLeader()).toBe('a');
    expect(b.events).toEqual(['new leader a']);
    expect(store.holders()).toEqual(['a']);

    // a dies without releasing: it stops renewing, the record keeps naming it.
    a.stop();
    await a.done;
    const lastWriteByA = store.writes.at(-1)!;
    expect(lastWriteByA.by).toBe('a');

    await advanceUntil(() => b.leading(), LEASE + 2 * MAX_RETRY_WAIT);
    const takeover = store.writes.at(-1)!;
    expect(takeover).toMatchObject({
      by: 'b',
      record: { holderIdentity: 'b', leaderTransitions: 1 },
    });
    // b saw a's last write no earlier than it happened, so it cannot have taken over sooner
    // than a full lease duration after it — and not much later than one retry after expiry.
    expect(takeover.at - lastWriteByA.at).toBeGreaterThanOrEqual(LEASE);
    expect(takeover.at - lastWriteByA.at).toBeLessThanOrEqual(LEASE + MAX_RETRY_WAIT + 100);
    expect(b.events).toEqual(['new leader a', 'new leader b', 'started']);
    expect(store.holders()).toEqual(['a', 'b']);
  });

  it('never trusts the remote clock: a record with an ancient renewTime still waits a full lease', async () => {
    const store = newStore();
    const ancient = formatMicroTime(new Date('2000-01-01T00:00:00Z'));
    store.put({
      holderIdentity: 'ghost',
      leaseDurationSeconds: 15,
      acquireTime: ancient,
      renewTime: ancient,
      leaderTransitions: 3,
    });
    const since = clock.now();
    const b = candidate(store, 'b');
    await advanceUntil(() => b.leading(), LEASE + 2 * MAX_RETRY_WAIT);
    const takeover = store.writes.at(-1)!;
    expect(takeover.at - since).toBeGreaterThanOrEqual(LEASE);
    expect(takeover.record.leaderTransitions).toBe(4);
  });

  it('a holder that keeps changing the record is never taken over, whatever its timestamps say', async () => {
    const store = newStore();
    const ancient = formatMicroTime(new Date('2000-01-01T00:00:00Z'));
    let n = 0;
    const renewGhost = (): void =>
      store.put({
        holderIdentity: 'ghost',
        leaseDurationSeconds: 15,
        acquireTime: ancient,
        renewTime: ancient,
        leaderTransitions: n++,
      });
    renewGhost();
    const b = candidate(store, 'b');
    for (let i = 0; i < 10; i++) {
      await advance(LEASE - 1_000);
      expect(b.leading()).toBe(false);
      renewGhost();
    }
    const lastGhostWrite = clock.now();
    await advanceUntil(() => b.leading(), LEASE + 2 * MAX_RETRY_WAIT);
    expect(clock.now() - lastGhostWrite).toBeGreaterThanOrEqual(LEASE);
  });

  it('releaseOnCancel lets the other candidate take over at once', async () => {
    const store = newStore();
    const a = candidate(store, 'a', { releaseOnCancel: true });
    await flush(5);
    const b = candidate(store, 'b');
    await advance(RETRY * 3);
    expect(a.leading()).toBe(true);

    a.stop();
    await a.done;
    expect(a.events).toEqual(['new leader a', 'started', 'signal aborted', 'stopped']);
    const release = store.writes.at(-1)!;
    expect(release).toMatchObject({
      by: 'a',
      record: { holderIdentity: '', leaseDurationSeconds: 1, leaderTransitions: 0 },
    });
    // The next attempt of b (one jittered retry period) finds a free lock: no lease wait.
    const waited = await advanceUntil(() => b.leading(), MAX_RETRY_WAIT + 100);
    expect(waited).toBeLessThan(LEASE);
    expect(store.record).toMatchObject({ holderIdentity: 'b', leaderTransitions: 1 });
  });

  it('a conflicting update is a lost race: exactly one of two simultaneous candidates wins', async () => {
    const store = newStore();
    // A released lock: both candidates may take it, and both try in the same instant.
    store.put({ holderIdentity: '', leaseDurationSeconds: 1, leaderTransitions: 7 });
    const a = candidate(store, 'a');
    const b = candidate(store, 'b');
    await advance(RETRY * 5);
    expect(store.conflicts).toBeGreaterThanOrEqual(1);
    expect([a.leading(), b.leading()].filter(Boolean)).toHaveLength(1);
    const winner = a.leading() ? a : b;
    const loser = a.leading() ? b : a;
    expect(store.record).toMatchObject({ holderIdentity: winner.id, leaderTransitions: 8 });
    expect(loser.elector.getLeader()).toBe(winner.id);
    // Losing the race is not an error.
    expect(loser.logger.errors()).toEqual([]);
    expect(
      loser.logger.lines.some((l) => l.message.startsWith('lost the race to update lock')),
    ).toBe(true);
  });
});

describe('renewal failures', () => {
  it('stops leading when renewals fail past the renew deadline, then leads again once they work', async () => {
    const store = newStore();
    const a = candidate(store, 'a');
    await advance(RETRY * 2);
    expect(a.leading()).toBe(true);
    const lastRenew = store.writes.at(-1)!.at;
    let failing = true;
    store.fault = (op) =>
      failing && op === 'get' ? statusError(500, 'InternalError', 'boom') : undefined;

    // Still leading just before the deadline (measured from the start of the last renewal)...
    await advance(lastRenew + RENEW - 100 - clock.now());
    expect(a.leading()).toBe(true);
    expect(a.events).not.toContain('stopped');
    // ...and no longer after it.
    await advanceUntil(() => a.finished(), 1_000);
    expect(a.events).toEqual(['new leader a', 'started', 'signal aborted', 'stopped']);
    expect(
      a.logger.lines.some((l) => l.message.startsWith('failed to renew lease default/lock')),
    ).toBe(true);
    expect(a.logger.errors().some((m) => m.includes('boom'))).toBe(true);
    expect(a.elector.isLeader()).toBe(false);

    // A new run (e.g. a restarted process) leads again once the server answers.
    failing = false;
    const again = candidate(store, 'a');
    await advanceUntil(() => again.leading(), MAX_RETRY_WAIT + 100);
    expect(store.record?.holderIdentity).toBe('a');
  });

  it('stops leading by the deadline even when requests hang', async () => {
    const store = newStore();
    const a = candidate(store, 'a');
    const b = candidate(store, 'b');
    await advance(RETRY * 2);
    expect(a.leading()).toBe(true);
    const lastRenew = store.writes.at(-1)!.at;
    store.fault = () => 'hang';
    await advanceUntil(() => !a.leading(), RENEW + 100);
    expect(clock.now() - lastRenew).toBeGreaterThanOrEqual(RENEW);
    expect(a.events.at(-1)).toBe('stopped');

    // The server comes back: b takes over once a's record has gone unchanged for a lease.
    store.fault = () => undefined;
    await advanceUntil(() => b.leading(), LEASE + 2 * MAX_RETRY_WAIT);
    expect(store.writes.at(-1)!.at - lastRenew).toBeGreaterThanOrEqual(LEASE);
    expect(store.holders()).toEqual(['a', 'b']);
  });

  it('never believes it leads past the renew deadline, even when the event loop was starved', async () => {
    const store = newStore();
    const a = candidate(store, 'a');
    await advance(RETRY * 2);
    expect(a.elector.isLeader()).toBe(true);
    const lastRenew = store.writes.at(-1)!.at;
    store.fault = () => 'hang';
    // Time jumps past the deadline with nothing else running in between, as after a long
    // pause of the process: no timer of the renew loop has had a chance to fire.
    clock.step(lastRenew + RENEW + 500 - clock.now());
    expect(a.elector.isLeader()).toBe(false);
    expect(a.leading()).toBe(false);
    await flush(5);
    expect(a.events.slice(-2)).toEqual(['signal aborted', 'stopped']);
    expect(
      a.logger.lines.filter((l) => l.message.startsWith('failed to renew lease')),
    ).toHaveLength(1);
  });

  it('logs every failed attempt with its cause, whether requests hang or are refused', async () => {
    const store = newStore();
    store.fault = () => 'hang';
    const a = candidate(store, 'a');
    await advance(3 * (RENEW + MAX_RETRY_WAIT));
    const abandoned = a.logger
      .errors()
      .filter((m) => m.startsWith('error retrieving resource lock default/lock: no answer within'));
    expect(abandoned.length).toBeGreaterThanOrEqual(3);
    expect(abandoned[0]).toContain('(trying to acquire)');

    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), {
      code: 'ECONNREFUSED',
    });
    store.fault = () => refused;
    const before = a.logger.errors().length;
    await advance(3 * MAX_RETRY_WAIT);
    // The attempt in flight when the fault changed still ends as "no answer"; every later one
    // names the refusal.
    const [inFlight, ...refusedLines] = a.logger.errors().slice(before);
    expect(inFlight).toMatch(/no answer within|ECONNREFUSED/);
    expect(refusedLines.length).toBeGreaterThanOrEqual(2);
    for (const line of refusedLines) expect(line).toContain('ECONNREFUSED');
  });

  it.each([
    ['hang', (): FakeFault => 'hang', /no answer .*\(trying to renew\)/],
    [
      'are refused',
      (): FakeFault =>
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' }),
      /ECONNREFUSED/,
    ],
  ])(
    'when renewals %s, each failed renew attempt is logged with its cause before leadership ends',
    async (_what, fault, cause) => {
      const store = newStore();
      const a = candidate(store, 'a');
      await advance(RETRY * 2);
      expect(a.elector.isLeader()).toBe(true);
      const lastRenew = store.writes.at(-1)!.at;
      const before = a.logger.lines.length;
      store.fault = fault;
      await advanceUntil(() => a.finished(), RENEW + RETRY);
      expect(clock.now() - lastRenew).toBeGreaterThanOrEqual(RENEW);
      const after = a.logger.lines.slice(before).map((l) => l.message);
      const failed = after.filter((m) =>
        m.startsWith('error retrieving resource lock default/lock'),
      );
      // Tries every retry period until the deadline, and the last one too is accounted for.
      expect(failed.length, after.join('\n')).toBeGreaterThanOrEqual(1);
      for (const m of failed) expect(m).toMatch(cause);
      const stopped = after.findIndex((m) => m.startsWith('failed to renew lease default/lock'));
      expect(stopped, after.join('\n')).toBeGreaterThan(-1);
      expect(after.slice(stopped + 1).filter((m) => m.startsWith('error retrieving'))).toEqual([]);
    },
  );

  it.each([
    ['the renew deadline passes', 'deadline'],
    ['the election is cancelled', 'cancel'],
  ])(
    'isLeader() is already false when the leading signal aborts because %s',
    async (_what, how) => {
      const store = newStore();
      const seenOnAbort: boolean[] = [];
      const a: Candidate = candidate(store, 'a', {
        onStartedLeading: (signal) => {
          signal.addEventListener('abort', () => seenOnAbort.push(a.elector.isLeader()));
        },
      });
      await advance(RETRY * 2);
      expect(a.elector.isLeader()).toBe(true);
      if (how === 'cancel') {
        a.stop();
      } else {
        store.fault = () => 'hang';
      }
      await advanceUntil(() => a.finished(), RENEW + RETRY);
      expect(seenOnAbort).toEqual([false]);
    },
  );

  it('loses leadership when another holder overwrote the record (e.g. after a partition)', async () => {
    const store = newStore();
    const a = candidate(store, 'a');
    await advance(RETRY);
    expect(a.leading()).toBe(true);
    store.put({ holderIdentity: 'intruder', leaseDurationSeconds: 15, leaderTransitions: 1 });
    await advanceUntil(() => a.finished(), RENEW + RETRY);
    expect(a.events).toEqual([
      'new leader a',
      'started',
      'new leader intruder',
      'signal aborted',
      'stopped',
    ]);
    expect(a.elector.getLeader()).toBe('intruder');
    expect(store.record?.holderIdentity).toBe('intruder');
  });
});
