/** A scheduled callback returned by {@link Clock.setTimeout}. */
export interface ClockTimer {
  /** Stops the timer; the callback will not run. Calling it again, or after it fired, is harmless. */
  cancel(): void;
  /**
   * Lets the process exit while this timer is still pending (Node's `timer.unref()`).
   * Optional: clocks without a process to keep alive (such as the fake one in
   * `@kubets/apimachinery/testing`) leave it out.
   */
  unref?(): void;
}

/**
 * The time source every kubets component takes, as Go's `k8s.io/utils/clock.Clock`: the
 * rate limiters, retry loops, reflector, work queues, event recorder and leader elector.
 * Injecting the `FakeClock` from `@kubets/apimachinery/testing` lets tests move time
 * forward instead of waiting for it.
 *
 * Times are milliseconds on a scale with an arbitrary origin: only differences between two
 * `now()` readings mean anything, unless a component documents that it needs wall-clock
 * (epoch) time.
 */
export interface Clock {
  /** The current time in milliseconds. */
  now(): number;
  /**
   * Resolves after `ms` milliseconds. If `signal` aborts first (or already has), rejects
   * with `signal.reason` and keeps no timer alive.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Runs `callback` once, `delayMs` milliseconds from now (`<= 0` means as soon as possible,
   * but never synchronously). A delay of `Infinity` never fires.
   */
  setTimeout(callback: () => void, delayMs: number): ClockTimer;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * Resolves after `ms` milliseconds. If `signal` aborts first (or already has), rejects with
 * `signal.reason` and clears the timer, so an aborted sleep keeps nothing alive.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal as AbortSignal));
    };
    // Even a zero wait goes through the timer queue, so a loop that sleeps can never starve
    // the event loop.
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Node's `setTimeout` keeps at most this delay (2^31-1 ms, about 24.8 days). */
const MAX_NODE_DELAY_MS = 2 ** 31 - 1;

class RealTimer implements ClockTimer {
  #handle: NodeJS.Timeout | undefined;
  #unref = false;
  readonly #due: number;
  readonly #callback: () => void;

  constructor(callback: () => void, delayMs: number) {
    this.#callback = callback;
    this.#due = performance.now() + Math.max(0, delayMs);
    if (delayMs !== Number.POSITIVE_INFINITY) this.#arm(Math.max(0, delayMs));
  }

  #arm(delayMs: number): void {
    // Longer delays than Node accepts are reached in steps.
    const step = Math.min(delayMs, MAX_NODE_DELAY_MS);
    this.#handle = setTimeout(() => {
      const left = this.#due - performance.now();
      if (left > 1) {
        this.#arm(left);
        return;
      }
      this.#handle = undefined;
      this.#callback();
    }, step);
    if (this.#unref) this.#handle.unref();
  }

  cancel(): void {
    if (this.#handle !== undefined) clearTimeout(this.#handle);
    this.#handle = undefined;
  }

  unref(): void {
    this.#unref = true;
    this.#handle?.unref();
  }
}

/**
 * The real clock: `performance.now()` (which does not jump with wall-clock changes),
 * {@link sleep} and Node timers.
 */
export const realClock: Clock = Object.freeze({
  now: () => performance.now(),
  sleep,
  setTimeout: (callback: () => void, delayMs: number): ClockTimer =>
    new RealTimer(callback, delayMs),
});
