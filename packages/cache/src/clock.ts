import { sleep } from '@kubets/apimachinery';

/**
 * The time source and sleep the reflector and informers use. Inject a {@link FakeClock}
 * to make tests fast and exact.
 */
export interface CacheClock {
  /** The current time in milliseconds (monotonic, arbitrary origin). */
  now(): number;
  /**
   * Resolves after `ms` milliseconds; rejects with `signal.reason` (and keeps no timer) when
   * `signal` aborts first.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: `performance.now()` and Node timers. */
export const realClock: CacheClock = Object.freeze({
  now: () => performance.now(),
  sleep,
});

interface Sleeper {
  readonly due: number;
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

/**
 * A manual clock for tests: time only moves when {@link FakeClock.advance} is called, and
 * every requested sleep is recorded in {@link FakeClock.sleeps}.
 */
export class FakeClock implements CacheClock {
  #now: number;
  #sleepers: Sleeper[] = [];
  /** Every duration passed to {@link sleep}, in call order. */
  readonly sleeps: number[] = [];

  constructor(startMs = 0) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const sleeper: Sleeper = {
        due: this.#now + Math.max(0, ms),
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
          reject(signal?.reason);
        },
      };
      signal?.addEventListener('abort', sleeper.onAbort, { once: true });
      this.#sleepers.push(sleeper);
    });
  }

  /** How many sleeps are pending. */
  get pending(): number {
    return this.#sleepers.length;
  }

  /** The time the earliest pending sleep ends, or `undefined` when none is pending. */
  nextDue(): number | undefined {
    let min: number | undefined;
    for (const s of this.#sleepers) if (min === undefined || s.due < min) min = s.due;
    return min;
  }

  /** Moves time forward by `ms` and wakes every sleep that is due by then. */
  advance(ms: number): void {
    this.#now += ms;
    const due = this.#sleepers.filter((s) => s.due <= this.#now);
    if (due.length === 0) return;
    this.#sleepers = this.#sleepers.filter((s) => s.due > this.#now);
    due.sort((a, b) => a.due - b.due);
    for (const s of due) {
      s.signal?.removeEventListener('abort', s.onAbort);
      s.resolve();
    }
  }

  /** Moves time to the end of the earliest pending sleep (if any) and wakes it. */
  advanceToNext(): void {
    const due = this.nextDue();
    if (due !== undefined) this.advance(Math.max(0, due - this.#now));
  }
}
