// A clock fake for this package's unit tests; what every package's tests share is in
// @kubets/test-utils.
import type { Clock } from '@kubets/apimachinery';

/**
 * A clock whose sleeps return at once and are recorded, for asserting retry waits. Timers
 * go to `timers` when given (a `FakeClock` that never advances keeps them from firing).
 */
export function recordingClock(timers?: Clock): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => 0,
    sleep(ms: number, signal?: AbortSignal): Promise<void> {
      if (signal?.aborted) return Promise.reject(signal.reason);
      sleeps.push(ms);
      return Promise.resolve();
    },
    setTimeout(callback: () => void, delayMs: number) {
      if (timers) return timers.setTimeout(callback, delayMs);
      throw new Error(
        'recordingClock has no timers; use FakeClock from @kubets/apimachinery/testing',
      );
    },
  };
}
