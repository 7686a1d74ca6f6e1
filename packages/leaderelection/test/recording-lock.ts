// Evidence for the e2e tests, taken on the elector's own clock: every lock call with when it
// started and how it ended, and every isLeader() answer with when it was asked. From these a
// test can check that no "I lead" answer came later than renewDeadline after the start of the
// last successful renewal, without asserting anything about how long the machine took.
import type { Clock } from '@kubets/apimachinery';
import type { LeaderElector } from '../src/elector.js';
import type { LockCallOptions, LockRecord, ResourceLock } from '../src/lock.js';
import type { LeaderElectionRecord } from '../src/record.js';

/** One call of a {@link RecordingLock}. */
export interface LockCall {
  readonly op: 'get' | 'create' | 'update';
  readonly startedAt: number;
  /** Set when the call settled. */
  endedAt?: number;
  outcome: 'pending' | 'ok' | 'error';
  error?: string;
}

/** A {@link ResourceLock} that records every call it forwards, stamped with `clock`. */
export class RecordingLock implements ResourceLock {
  readonly calls: LockCall[] = [];

  constructor(
    readonly inner: ResourceLock,
    readonly clock: Clock,
  ) {}

  async #record<T>(op: LockCall['op'], call: () => Promise<T>): Promise<T> {
    const entry: LockCall = { op, startedAt: this.clock.now(), outcome: 'pending' };
    this.calls.push(entry);
    try {
      const result = await call();
      entry.outcome = 'ok';
      return result;
    } catch (error) {
      entry.outcome = 'error';
      entry.error = error instanceof Error ? error.message : String(error);
      throw error;
    } finally {
      entry.endedAt = this.clock.now();
    }
  }

  get(options?: LockCallOptions): Promise<LockRecord> {
    return this.#record('get', () => this.inner.get(options));
  }
  create(record: LeaderElectionRecord, options?: LockCallOptions): Promise<void> {
    return this.#record('create', () => this.inner.create(record, options));
  }
  update(record: LeaderElectionRecord, options?: LockCallOptions): Promise<void> {
    return this.#record('update', () => this.inner.update(record, options));
  }
  recordEvent(message: string): void {
    this.inner.recordEvent(message);
  }
  identity(): string {
    return this.inner.identity();
  }
  describe(): string {
    return this.inner.describe();
  }

  /**
   * For each successful write (create or update: an acquisition or a renewal), when the
   * attempt that made it started: the get before it. The elector counts its renew deadline
   * from the start of that attempt, which is no later than this.
   */
  successfulAttemptStarts(): { attemptStartedAt: number; writtenAt: number }[] {
    const out: { attemptStartedAt: number; writtenAt: number }[] = [];
    let lastGet: LockCall | undefined;
    for (const call of this.calls) {
      if (call.op === 'get') lastGet = call;
      else if (call.outcome === 'ok' && call.endedAt !== undefined) {
        // A create follows a get that found nothing.
        out.push({ attemptStartedAt: (lastGet ?? call).startedAt, writtenAt: call.endedAt });
      }
    }
    return out;
  }
}

/** One isLeader() answer and when it was asked. */
export interface LeaderCheck {
  readonly at: number;
  readonly leader: boolean;
}

/**
 * Asks `elector.isLeader()` on every turn of a real timer until `signal` aborts, reading the
 * clock before asking (so the recorded time is no later than the elector's own reading).
 */
export function recordLeaderChecks(
  elector: LeaderElector,
  clock: Clock,
  signal: AbortSignal,
  checks: LeaderCheck[],
): void {
  const check = (): void => {
    const at = clock.now();
    checks.push({ at, leader: elector.isLeader() });
  };
  check();
  const timer = setInterval(check, 5);
  signal.addEventListener(
    'abort',
    () => {
      clearInterval(timer);
      check();
    },
    { once: true },
  );
}

/**
 * The "I lead" answers given more than `renewDeadlineMs` after the start of the last
 * successful attempt written before them (or with none before them): each is a moment the
 * elector believed it led when it could not know.
 */
export function blindLeadership(
  checks: readonly LeaderCheck[],
  lock: RecordingLock,
  renewDeadlineMs: number,
): { at: number; sinceRenewalMs: number }[] {
  const writes = lock.successfulAttemptStarts();
  const blind: { at: number; sinceRenewalMs: number }[] = [];
  for (const check of checks) {
    if (!check.leader) continue;
    const last = writes.filter((w) => w.writtenAt <= check.at).at(-1);
    const sinceRenewalMs = last === undefined ? Infinity : check.at - last.attemptStartedAt;
    if (sinceRenewalMs >= renewDeadlineMs) blind.push({ at: check.at, sinceRenewalMs });
  }
  return blind;
}
