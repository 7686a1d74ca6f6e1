// Shared by the unit tests: small async utilities. The loopback stub server they use is
// @kubets/stub-server.
import type { Clock } from './clock.js';

/** Lets pending promise callbacks and I/O callbacks run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A clock whose sleeps return at once and are recorded, for asserting retry waits. */
export function recordingClock(): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => 0,
    sleep(ms: number, signal?: AbortSignal): Promise<void> {
      if (signal?.aborted) return Promise.reject(signal.reason);
      sleeps.push(ms);
      return Promise.resolve();
    },
  };
}
