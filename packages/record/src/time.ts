import { realClock } from '@kubets/rest';

/**
 * The time source of the event machinery. `now()` is WALL-CLOCK time in milliseconds since
 * the Unix epoch (it stamps `firstTimestamp`/`lastTimestamp` and names events); `sleep`
 * waits between write retries. A `FakeClock` from `@kubets/rest` started at an epoch value
 * (`new FakeClock(Date.parse('2024-01-01T00:00:00Z'))`) fits, so tests never sleep.
 */
export interface EventClock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Resolves after `ms` milliseconds; rejects with `signal.reason` when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: `Date.now()` and an abortable `setTimeout`. */
export const systemClock: EventClock = Object.freeze({
  now: () => Date.now(),
  sleep: (ms: number, signal?: AbortSignal) => realClock.sleep(ms, signal),
});

/** RFC 3339 with second precision (`2024-01-01T00:00:00Z`), as `metav1.Time` is serialized. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

let lastNanos = 0n;

/**
 * A Unix-nanosecond stamp for `ms`, strictly increasing within the process, so two events
 * recorded in the same millisecond (or under a frozen fake clock) still get distinct names.
 */
export function uniqueUnixNanos(ms: number): bigint {
  let nanos = BigInt(Math.floor(ms)) * 1_000_000n;
  if (nanos <= lastNanos) nanos = lastNanos + 1n;
  lastNanos = nanos;
  return nanos;
}
