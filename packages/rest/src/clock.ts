/**
 * The time source the rate limiter and the retry loop use. Injecting one lets tests
 * move time forward instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since an arbitrary fixed point; only differences matter. */
  now(): number;
  /** Resolves after `ms` milliseconds; rejects with `signal.reason` when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** The wall clock: `performance.now()` and `setTimeout`. */
export const realClock: Clock = Object.freeze({
  now: () => performance.now(),
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortReason(signal as AbortSignal));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
});

interface PendingSleep {
  readonly wakeAt: number;
  readonly sequence: number;
  readonly resolve: () => void;
}

/**
 * A clock that only moves when told to, for tests: `step(ms)` wakes every sleeper whose
 * time has come, earliest first. Promise callbacks run after `step` returns, so await a
 * tick (e.g. `await new Promise(setImmediate)`) before checking their effects.
 */
export class FakeClock implements Clock {
  private current: number;
  private sequence = 0;
  private readonly sleepers: PendingSleep[] = [];

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  /** How many sleeps are waiting for time to move. */
  get pendingSleeps(): number {
    return this.sleepers.length;
  }

  /** The durations requested so far, in call order (useful to assert a retry waited). */
  readonly requestedSleeps: number[] = [];

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    this.requestedSleeps.push(ms);
    return new Promise<void>((resolve, reject) => {
      const entry: PendingSleep = {
        wakeAt: this.current + Math.max(0, ms),
        sequence: this.sequence++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        const index = this.sleepers.indexOf(entry);
        if (index >= 0) this.sleepers.splice(index, 1);
        reject(abortReason(signal as AbortSignal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sleepers.push(entry);
    });
  }

  /** Moves time forward by `ms` and wakes the sleepers that are due, in wake-up order. */
  step(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      let next: PendingSleep | undefined;
      for (const sleeper of this.sleepers) {
        if (sleeper.wakeAt > target) continue;
        if (
          !next ||
          sleeper.wakeAt < next.wakeAt ||
          (sleeper.wakeAt === next.wakeAt && sleeper.sequence < next.sequence)
        ) {
          next = sleeper;
        }
      }
      if (!next) break;
      this.sleepers.splice(this.sleepers.indexOf(next), 1);
      this.current = Math.max(this.current, next.wakeAt);
      next.resolve();
    }
    this.current = target;
  }
}
