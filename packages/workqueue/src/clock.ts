// The clock moved to @kubets/apimachinery so every package shares one; these names keep
// `import { FakeClock, realClock, type Clock } from '@kubets/workqueue'` working.
import {
  type Clock as ApimachineryClock,
  type ClockTimer as ApimachineryClockTimer,
  realClock as apimachineryRealClock,
} from '@kubets/apimachinery';
import { FakeClock as ApimachineryFakeClock } from '@kubets/apimachinery/testing';

/** @deprecated Use `Clock` from `@kubets/apimachinery`. */
export type Clock = ApimachineryClock;

/** @deprecated Use `ClockTimer` from `@kubets/apimachinery`. */
export type ClockTimer = ApimachineryClockTimer;

/** @deprecated Use `realClock` from `@kubets/apimachinery`. */
export const realClock: ApimachineryClock = apimachineryRealClock;

/**
 * @deprecated Use `FakeClock` from `@kubets/apimachinery/testing` (`pendingTimers()` is now
 * `pending`, `nextTimerAt()` is `nextDue()`).
 */
export const FakeClock = ApimachineryFakeClock;
/** @deprecated Use `FakeClock` from `@kubets/apimachinery/testing`. */
export type FakeClock = ApimachineryFakeClock;
