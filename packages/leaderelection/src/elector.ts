import {
  type Clock,
  type ClockTimer,
  isConflict,
  isNotFound,
  jitter,
  type Logger,
  type RandomSource,
  realClock,
  silentLogger,
} from '@kubets/apimachinery';
import type { ResourceLock } from './lock.js';
import { formatMicroTime, type LeaderElectionRecord, serializeRecord } from './record.js';

/**
 * How much the acquire loop stretches the retry period at most (client-go's `JitterFactor`):
 * waits are random in `[retryPeriod, retryPeriod × (1 + 1.2))`. The renew deadline must
 * exceed `1.2 × retryPeriod`.
 */
export const JITTER_FACTOR = 1.2;

/** Default lease duration: 15 s, as client-go's examples and kube-controller-manager. */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
/** Default renew deadline: 10 s. */
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
/** Default retry period: 2 s. */
export const DEFAULT_RETRY_PERIOD_MS = 2_000;

/** What the elector calls as leadership comes and goes (client-go's `LeaderCallbacks`). */
export interface LeaderCallbacks {
  /**
   * Called when this candidate becomes leader. Start the work here; `signal` aborts when
   * leadership ends (lost, given up, or the election cancelled) and the work must stop then.
   * Not awaited: the elector keeps renewing while it runs. If it throws or returns a promise
   * that rejects before `signal` aborted, the elector gives up leadership (as a panic would
   * end a Go process).
   */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /**
   * Called once when {@link LeaderElector.run} ends — after leadership was lost or given up,
   * and (as in client-go) also when the election was cancelled before this candidate ever
   * led. The leading signal has aborted by then.
   */
  onStoppedLeading(): void;
  /**
   * Called with the holder's identity whenever the observed holder changes, including when
   * this candidate itself becomes leader. Not called while nobody holds the lock.
   */
  onNewLeader?(identity: string): void;
}

/** Configuration of a {@link LeaderElector} (client-go's `LeaderElectionConfig`). */
export interface LeaderElectionConfig {
  /** The lock the candidates compete for, usually a {@link LeaseLock}. */
  lock: ResourceLock;
  /**
   * How long non-leaders wait after they last saw the record change before they take over
   * (written to the record in whole seconds, rounded up). Default 15 000 ms.
   */
  leaseDurationMs?: number | undefined;
  /**
   * How long the leader keeps trying to renew before it gives up leadership, counted from the
   * start of its last successful renewal. Must be below `leaseDurationMs`. Default 10 000 ms.
   */
  renewDeadlineMs?: number | undefined;
  /** How long candidates wait between attempts to acquire or renew. Default 2 000 ms. */
  retryPeriodMs?: number | undefined;
  /** What to call as leadership comes and goes. */
  callbacks: LeaderCallbacks;
  /**
   * When the election is cancelled (or leadership otherwise ends) while leading, write an
   * empty holder with a 1 s lease so another candidate can take over at once. Only safe if
   * `onStartedLeading`'s work stops when its signal aborts.
   */
  releaseOnCancel?: boolean | undefined;
  /** A name for this election, used in log fields. */
  name?: string | undefined;
  /**
   * The time source for waits, deadlines and the expiry bookkeeping (`now()` only needs to
   * be monotonic). Default: the real clock. Record timestamps always use the wall clock.
   */
  clock?: Clock | undefined;
  /** Random numbers in [0, 1) for the retry jitter. Default `Math.random`. */
  random?: RandomSource | undefined;
  /** Where the elector reports what it does; silent by default. */
  logger?: Logger | undefined;
}

/** The resolved durations of an election, after defaults. */
export interface LeaderElectionDurations {
  /** How long non-leaders wait after the record last changed before they take over. */
  leaseDurationMs: number;
  /** How long the leader keeps trying to renew before it gives up leadership. */
  renewDeadlineMs: number;
  /** How long candidates wait between attempts to acquire or renew. */
  retryPeriodMs: number;
}

/**
 * Checks a configuration as client-go's `NewLeaderElector` does and returns the durations
 * with defaults applied. Throws an Error naming the offending values.
 */
export function validateLeaderElectionConfig(
  config: LeaderElectionConfig,
): LeaderElectionDurations {
  const leaseDurationMs = config.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
  const renewDeadlineMs = config.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
  const retryPeriodMs = config.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
  const fail = (message: string): never => {
    throw new Error(`leaderelection: ${message}`);
  };
  if (leaseDurationMs <= renewDeadlineMs) {
    fail(
      `leaseDurationMs (${leaseDurationMs}) must be greater than renewDeadlineMs (${renewDeadlineMs})`,
    );
  }
  const minRenewDeadline = JITTER_FACTOR * retryPeriodMs;
  if (renewDeadlineMs <= minRenewDeadline) {
    fail(
      `renewDeadlineMs (${renewDeadlineMs}) must be greater than retryPeriodMs × JitterFactor ` +
        `(${retryPeriodMs} × ${JITTER_FACTOR} = ${minRenewDeadline})`,
    );
  }
  if (!(leaseDurationMs > 0) || !Number.isFinite(leaseDurationMs)) {
    fail(`leaseDurationMs must be a finite number greater than zero, got ${leaseDurationMs}`);
  }
  if (!(renewDeadlineMs > 0) || !Number.isFinite(renewDeadlineMs)) {
    fail(`renewDeadlineMs must be a finite number greater than zero, got ${renewDeadlineMs}`);
  }
  if (!(retryPeriodMs > 0) || !Number.isFinite(retryPeriodMs)) {
    fail(`retryPeriodMs must be a finite number greater than zero, got ${retryPeriodMs}`);
  }
  if (typeof config.callbacks?.onStartedLeading !== 'function') {
    fail('callbacks.onStartedLeading must be a function');
  }
  if (typeof config.callbacks?.onStoppedLeading !== 'function') {
    fail('callbacks.onStoppedLeading must be a function');
  }
  if (
    config.callbacks.onNewLeader !== undefined &&
    typeof config.callbacks.onNewLeader !== 'function'
  ) {
    fail('callbacks.onNewLeader must be a function when given');
  }
  if (!config.lock) fail('lock must not be empty');
  if (!config.lock.identity()) fail(`lock identity is empty (lock ${config.lock.describe()})`);
  return { leaseDurationMs, renewDeadlineMs, retryPeriodMs };
}

function abortError(message: string): Error {
  return new DOMException(message, 'AbortError');
}

/** Resolves with `promise`'s value, or with `fallback` as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, fallback: T): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.resolve(fallback);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => resolve(fallback);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A record acquired and renewed this moment (the local wall clock, informational only). */
function recordFromNow(
  holderIdentity: string,
  leaseDurationSeconds: number,
  leaderTransitions: number,
): LeaderElectionRecord {
  const now = formatMicroTime(new Date());
  return {
    holderIdentity,
    leaseDurationSeconds,
    acquireTime: now,
    renewTime: now,
    leaderTransitions,
  };
}

/**
 * Leader election over a {@link ResourceLock} — client-go's `leaderelection.LeaderElector`.
 *
 * `run(signal)` first tries to acquire the lock every `retryPeriod` (jittered). A lock held
 * by someone else is taken over only when its record has not changed for the record's lease
 * duration, measured with this process's clock from the moment the change was observed:
 * the remote `renewTime` is never compared with the local clock, so clock skew between
 * machines does not matter. Once acquired, `onStartedLeading(signal)` starts and the leader
 * renews every `retryPeriod`; if it has not renewed within `renewDeadline` of its last
 * successful renewal, the signal aborts and leadership ends. Writes are conditional on the
 * object's `resourceVersion`, so two candidates can never both win an update.
 *
 * Like client-go, this does not fence: make the lease duration comfortably longer than the
 * renew deadline so a leader that cannot renew stops before anyone else can take over.
 */
export class LeaderElector {
  readonly #lock: ResourceLock;
  readonly #callbacks: LeaderCallbacks;
  readonly #durations: LeaderElectionDurations;
  readonly #releaseOnCancel: boolean;
  readonly #clock: Clock;
  readonly #random: RandomSource;
  readonly #logger: Logger;
  readonly #fields: Readonly<Record<string, string>>;

  #observedRecord: LeaderElectionRecord | undefined;
  #observedRaw: string | undefined;
  #observedTime = 0;
  #reportedLeader = '';
  #leading = false;
  #renewedAt = 0;
  #running = false;
  /** The abort reason of the renew-deadline timer, to tell it from a cancel. */
  #renewDeadlineReason: unknown;

  /** Validates `config` (see {@link validateLeaderElectionConfig}); throws on a bad one. */
  constructor(config: LeaderElectionConfig) {
    this.#durations = validateLeaderElectionConfig(config);
    this.#lock = config.lock;
    this.#callbacks = config.callbacks;
    this.#releaseOnCancel = config.releaseOnCancel ?? false;
    this.#clock = config.clock ?? realClock;
    this.#random = config.random ?? Math.random;
    this.#logger = config.logger ?? silentLogger;
    const fields: Record<string, string> = {
      lock: config.lock.describe(),
      identity: config.lock.identity(),
    };
    if (config.name) fields.name = config.name;
    this.#fields = fields;
  }

  /**
   * True while this candidate leads: it acquired the lock, its last observed record names it
   * as holder, leadership has not ended, and its last successful renewal started less than
   * `renewDeadline` ago — so it is false past the deadline even before the renew loop has
   * run (a starved event loop, a request that hangs).
   */
  isLeader(): boolean {
    return (
      this.#leading &&
      this.#observedIsUs() &&
      this.#clock.now() - this.#renewedAt < this.#durations.renewDeadlineMs
    );
  }

  /** The holder identity in the last observed record; empty when none was seen or nobody holds it. */
  getLeader(): string {
    return this.#observedRecord?.holderIdentity ?? '';
  }

  /** The last observed record, if any (a copy). */
  getObservedRecord(): LeaderElectionRecord | undefined {
    return this.#observedRecord ? { ...this.#observedRecord } : undefined;
  }

  /**
   * Runs the election until `signal` aborts or leadership is lost: acquire, then
   * `onStartedLeading` and renew, then (with `releaseOnCancel`) release, then
   * `onStoppedLeading`. Resolves when done; errors from the lock are logged and retried,
   * never thrown. Rejects only if this elector is already running (one run at a time; it may
   * run again after the previous run ended).
   */
  async run(signal?: AbortSignal): Promise<void> {
    if (this.#running) throw new Error('leaderelection: this LeaderElector is already running');
    this.#running = true;
    try {
      if (!(await this.#acquire(signal))) return;
      const leading = new AbortController();
      // First listener: whoever hears the abort (the leader's own work) already sees
      // isLeader() false, even if the deadline timer fired a fraction of a millisecond early.
      leading.signal.addEventListener(
        'abort',
        () => {
          this.#leading = false;
        },
        { once: true },
      );
      const onCancel = (): void => leading.abort(signal?.reason);
      signal?.addEventListener('abort', onCancel, { once: true });
      this.#leading = true;
      const watchdog = this.#watchRenewDeadline(leading);
      try {
        if (signal?.aborted) onCancel();
        this.#startLeading(leading);
        await this.#renew(leading.signal, watchdog);
      } finally {
        watchdog.stop();
        signal?.removeEventListener('abort', onCancel);
        this.#leading = false;
        leading.abort(abortError(`leaderelection: stopped leading ${this.#lock.describe()}`));
      }
      this.#lock.recordEvent('stopped leading');
      if (this.#releaseOnCancel) await this.#release();
    } finally {
      this.#running = false;
      try {
        this.#callbacks.onStoppedLeading();
      } catch (error) {
        this.#logger.error('onStoppedLeading failed', {
          ...this.#fields,
          error: errorMessage(error),
        });
      }
    }
  }

  #observedIsUs(): boolean {
    return this.#observedRecord?.holderIdentity === this.#lock.identity();
  }

  #setObservedRecord(record: LeaderElectionRecord, raw?: string): void {
    this.#observedRecord = { ...record };
    this.#observedRaw = raw ?? serializeRecord(record);
    this.#observedTime = this.#clock.now();
  }

  #startLeading(leading: AbortController): void {
    const fail = (error: unknown): void => {
      if (leading.signal.aborted) {
        this.#logger.debug('onStartedLeading ended after leadership ended', {
          ...this.#fields,
          error: errorMessage(error),
        });
        return;
      }
      this.#logger.error('onStartedLeading failed; giving up leadership', {
        ...this.#fields,
        error: errorMessage(error),
      });
      leading.abort(error);
    };
    try {
      const result = this.#callbacks.onStartedLeading(leading.signal);
      if (result && typeof result.then === 'function') result.then(undefined, fail);
    } catch (error) {
      fail(error);
    }
  }

  #maybeReportTransition(): void {
    const holder = this.#observedRecord?.holderIdentity ?? '';
    if (holder === this.#reportedLeader) return;
    this.#reportedLeader = holder;
    if (holder === '' || !this.#callbacks.onNewLeader) return;
    try {
      this.#callbacks.onNewLeader(holder);
    } catch (error) {
      this.#logger.error('onNewLeader failed', { ...this.#fields, error: errorMessage(error) });
    }
  }

  /** Tries until acquired (true) or cancelled (false), waiting a jittered retry period between tries. */
  async #acquire(signal: AbortSignal | undefined): Promise<boolean> {
    const { retryPeriodMs, renewDeadlineMs } = this.#durations;
    this.#logger.info(
      `attempting to acquire leader lease ${this.#lock.describe()}...`,
      this.#fields,
    );
    while (!signal?.aborted) {
      // Each try is bounded (client-go's is not) so a stalled connection cannot hold it forever.
      const acquired = await this.#attempt(signal, renewDeadlineMs, 'acquire');
      this.#maybeReportTransition();
      if (acquired) {
        this.#lock.recordEvent('became leader');
        this.#logger.info(`successfully acquired lease ${this.#lock.describe()}`, this.#fields);
        return true;
      }
      this.#logger.debug(`failed to acquire lease ${this.#lock.describe()}`, this.#fields);
      try {
        await this.#clock.sleep(jitter(retryPeriodMs, JITTER_FACTOR, this.#random), signal);
      } catch {
        break;
      }
    }
    return false;
  }

  /**
   * Ends leadership once `renewDeadline` has passed since the last successful renewal
   * started, whatever the renew loop is doing: a timer of its own, re-armed by each renewal,
   * so neither a request that never settles nor a loop that resumes late can extend it.
   */
  #watchRenewDeadline(leading: AbortController): { rearm(): void; stop(): void } {
    const { renewDeadlineMs } = this.#durations;
    let timer: ClockTimer | undefined;
    const arm = (): void => {
      timer?.cancel();
      const left = this.#renewedAt + renewDeadlineMs - this.#clock.now();
      timer = this.#clock.setTimeout(
        () => {
          if (leading.signal.aborted) return;
          // Aborting first lets a renew attempt still in flight log its own cause (see
          // #attempt) before this line says that leadership ends.
          const reason = abortError(
            `leaderelection: renew deadline passed for ${this.#lock.describe()}`,
          );
          this.#renewDeadlineReason = reason;
          leading.abort(reason);
          this.#logger.info(
            `failed to renew lease ${this.#lock.describe()}: not renewed within the renew deadline of ${renewDeadlineMs} ms`,
            this.#fields,
          );
        },
        Math.max(0, left),
      );
    };
    arm();
    return { rearm: arm, stop: () => timer?.cancel() };
  }

  /** Renews every retry period until cancelled or not renewed within the renew deadline. */
  async #renew(signal: AbortSignal, watchdog: { rearm(): void }): Promise<void> {
    const { retryPeriodMs, renewDeadlineMs } = this.#durations;
    for (;;) {
      try {
        await this.#clock.sleep(retryPeriodMs, signal);
      } catch {
        return;
      }
      const deadline = this.#renewedAt + renewDeadlineMs;
      let renewed = false;
      for (;;) {
        const remaining = deadline - this.#clock.now();
        if (remaining <= 0) break;
        renewed = await this.#attempt(signal, remaining, 'renew');
        this.#maybeReportTransition();
        if (renewed || signal.aborted) break;
        const left = deadline - this.#clock.now();
        if (left <= 0) break;
        try {
          await this.#clock.sleep(Math.min(retryPeriodMs, left), signal);
        } catch {
          break;
        }
      }
      if (signal.aborted) return;
      if (!renewed) {
        this.#logger.info(
          `failed to renew lease ${this.#lock.describe()}: not renewed within the renew deadline of ${renewDeadlineMs} ms`,
          this.#fields,
        );
        return;
      }
      watchdog.rearm();
      this.#logger.debug(`successfully renewed lease ${this.#lock.describe()}`, this.#fields);
    }
  }

  /**
   * One `tryAcquireOrRenew`, abandoned (false) when `signal` aborts or `timeoutMs` passes.
   * An attempt abandoned at its own deadline or at the renew deadline is logged as an error,
   * as client-go logs the failed Get of every try: with a server that does not answer, each
   * try says so. One abandoned because the election was cancelled is only a debug line.
   */
  async #attempt(
    signal: AbortSignal | undefined,
    timeoutMs: number,
    purpose: 'acquire' | 'renew',
  ): Promise<boolean> {
    const deadline = new AbortController();
    const combined = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
    const startedAt = this.#clock.now();
    let pending = true;
    // Registered before untilAborted's listener, so it runs while the attempt still counts
    // as pending.
    combined.addEventListener(
      'abort',
      () => {
        if (!pending) return;
        const waited = Math.round(this.#clock.now() - startedAt);
        const noAnswer = `error retrieving resource lock ${this.#lock.describe()}: no answer within ${waited} ms (trying to ${purpose})`;
        if (deadline.signal.aborted) {
          this.#logger.error(noAnswer, { ...this.#fields });
        } else if (signal?.reason !== undefined && signal.reason === this.#renewDeadlineReason) {
          this.#logger.error(`${noAnswer}: the renew deadline passed`, { ...this.#fields });
        } else {
          this.#logger.debug(`${purpose} attempt abandoned: the election ended`, this.#fields);
        }
      },
      { once: true },
    );
    const timer = this.#clock.setTimeout(() => {
      if (combined.aborted) return;
      deadline.abort(abortError(`leaderelection: attempt timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    const attempt = this.#tryAcquireOrRenew(combined);
    const settled = (): void => {
      pending = false;
    };
    attempt.then(settled, settled);
    try {
      return await untilAborted(attempt, combined, false);
    } catch (error) {
      this.#logger.error('unexpected error in tryAcquireOrRenew', {
        ...this.#fields,
        error: errorMessage(error),
      });
      return false;
    } finally {
      timer.cancel();
      deadline.abort();
    }
  }

  /**
   * client-go's `tryAcquireOrRenew`: creates the lock if missing; otherwise takes it over if
   * it is ours or has expired by our own observation, with a conditional update.
   */
  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const startedAt = this.#clock.now();
    const desired = recordFromNow(
      this.#lock.identity(),
      Math.ceil(this.#durations.leaseDurationMs / 1000),
      0,
    );
    const describe = this.#lock.describe();

    // 1. Get the record, or create it.
    let current: LeaderElectionRecord;
    try {
      const got = await this.#lock.get({ signal });
      if (signal.aborted) return false;
      current = got.record;
      // 2. A changed record restarts the expiry clock: observedTime is local, never remote.
      if (got.raw !== this.#observedRaw) this.#setObservedRecord(got.record, got.raw);
    } catch (error) {
      if (signal.aborted) return false;
      if (!isNotFound(error)) {
        this.#logger.error(`error retrieving resource lock ${describe}: ${errorMessage(error)}`, {
          ...this.#fields,
        });
        return false;
      }
      try {
        await this.#lock.create(desired, { signal });
      } catch (createError) {
        if (!signal.aborted) {
          this.#logger.error(
            `error initially creating leader election record: ${errorMessage(createError)}`,
            { ...this.#fields },
          );
        }
        return false;
      }
      if (signal.aborted) return false;
      this.#setObservedRecord(desired);
      this.#renewedAt = startedAt;
      return true;
    }

    const weHoldIt = this.#observedIsUs();
    if (
      current.holderIdentity !== '' &&
      !weHoldIt &&
      this.#observedTime + current.leaseDurationSeconds * 1000 > this.#clock.now()
    ) {
      this.#logger.debug(
        `lock is held by ${current.holderIdentity} and has not yet expired`,
        this.#fields,
      );
      return false;
    }

    // 3. Ours, or expired (or free): update, conditional on the version just read.
    if (weHoldIt) {
      desired.acquireTime = current.acquireTime;
      desired.leaderTransitions = current.leaderTransitions;
    } else {
      desired.leaderTransitions = current.leaderTransitions + 1;
    }
    try {
      await this.#lock.update(desired, { signal });
    } catch (error) {
      if (signal.aborted) return false;
      if (isConflict(error)) {
        this.#logger.debug(`lost the race to update lock ${describe}: ${errorMessage(error)}`, {
          ...this.#fields,
        });
      } else {
        this.#logger.error(`failed to update lock ${describe}: ${errorMessage(error)}`, {
          ...this.#fields,
        });
      }
      return false;
    }
    if (signal.aborted) return false;
    this.#setObservedRecord(desired);
    this.#renewedAt = startedAt;
    return true;
  }

  /**
   * Writes an empty holder with a 1 s lease if we hold the lock (client-go's `release`). The
   * Lease is read first, as client-go does: a renewal the server applied but whose answer
   * was abandoned (renew deadline, cancel) left the lock's copy stale, and an update from it
   * would only get 409 Conflict, leaving the successor to wait out a full lease.
   */
  async #release(): Promise<boolean> {
    if (!this.#observedIsUs()) return true;
    const { renewDeadlineMs } = this.#durations;
    const startedAt = this.#clock.now();
    let current: LeaderElectionRecord;
    try {
      current = (await this.#lock.get({ timeoutMs: renewDeadlineMs })).record;
    } catch (error) {
      this.#logger.error(
        `failed to release lock ${this.#lock.describe()}: reading it failed: ${errorMessage(error)}`,
        { ...this.#fields },
      );
      return false;
    }
    // Someone else took over since our last renewal: theirs now, nothing to release.
    if (current.holderIdentity !== this.#lock.identity()) return true;
    const released = recordFromNow('', 1, current.leaderTransitions);
    // Read and write share one renew deadline, as in client-go.
    const remainingMs = Math.max(1, renewDeadlineMs - (this.#clock.now() - startedAt));
    try {
      await this.#lock.update(released, { timeoutMs: remainingMs });
    } catch (error) {
      this.#logger.error(
        `failed to release lock ${this.#lock.describe()}: ${errorMessage(error)}`,
        {
          ...this.#fields,
        },
      );
      return false;
    }
    this.#setObservedRecord(released);
    this.#maybeReportTransition();
    this.#logger.info(`released lease ${this.#lock.describe()}`, this.#fields);
    return true;
  }
}

/**
 * Validates `config`, then runs one election until `signal` aborts or leadership is lost
 * (client-go's `RunOrDie`, minus the dying: a bad config rejects). See {@link LeaderElector}.
 */
export async function runLeaderElection(
  config: LeaderElectionConfig,
  signal?: AbortSignal,
): Promise<void> {
  await new LeaderElector(config).run(signal);
}
