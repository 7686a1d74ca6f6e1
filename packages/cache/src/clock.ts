// The clock moved to @kubets/apimachinery so every package shares one; these names keep
// `import { FakeClock, realClock, type CacheClock } from '@kubets/cache'` working.
import { realClock as apimachineryRealClock, type Clock } from '@kubets/apimachinery';
import { FakeClock as ApimachineryFakeClock } from '@kubets/apimachinery/testing';

/** @deprecated Use `Clock` from `@kubets/apimachinery`. */
export type CacheClock = Clock;

/** @deprecated Use `realClock` from `@kubets/apimachinery`. */
export const realClock: Clock = apimachineryRealClock;

/**
 * @deprecated Use `FakeClock` from `@kubets/apimachinery/testing`: its synchronous
 * `step(ms)` is this clock's `advance(ms)`, `stepToNext()` its `advanceToNext()`, `pending`
 * its `pending` and `requestedSleeps` its `sleeps`.
 */
export const FakeClock = ApimachineryFakeClock;
/** @deprecated Use `FakeClock` from `@kubets/apimachinery/testing`. */
export type FakeClock = ApimachineryFakeClock;
