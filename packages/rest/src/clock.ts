// The clock moved to @kubets/apimachinery so every package shares one; these names keep
// `import { FakeClock, realClock, type Clock } from '@kubets/rest'` working.
import {
  type Clock as ApimachineryClock,
  realClock as apimachineryRealClock,
} from '@kubets/apimachinery';
import { FakeClock as ApimachineryFakeClock } from '@kubets/apimachinery/testing';

/** @deprecated Use `Clock` from `@kubets/apimachinery`. */
export type Clock = ApimachineryClock;

/** @deprecated Use `realClock` from `@kubets/apimachinery`. */
export const realClock: ApimachineryClock = apimachineryRealClock;

/**
 * @deprecated Use `FakeClock` from `@kubets/apimachinery/testing` (`pendingSleeps` is now
 * `pending`).
 */
export const FakeClock = ApimachineryFakeClock;
/** @deprecated Use `FakeClock` from `@kubets/apimachinery/testing`. */
export type FakeClock = ApimachineryFakeClock;
