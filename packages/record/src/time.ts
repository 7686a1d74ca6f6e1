import { type Clock, realClock } from '@kubets/apimachinery';

/**
 * The event machinery's default clock: `@kubets/apimachinery`'s `realClock` with `now()` read
 * from `Date.now()`, because it stamps `firstTimestamp`/`lastTimestamp` and names events,
 * which need WALL-CLOCK milliseconds since the Unix epoch. A `FakeClock` from `@kubets/apimachinery/testing`
 * started at an epoch value (`new FakeClock(Date.parse('2024-01-01T00:00:00Z'))`) fits, so
 * tests never sleep.
 */
export const systemClock: Clock = Object.freeze({ ...realClock, now: () => Date.now() });

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
