// client-go's util/workqueue/default_rate_limiters_test.go, ported case by case: each test
// keeps the Go test's name, inputs and expectations, written as shared scripts (durations in
// milliseconds).

import { expect, it } from 'vitest';
import * as limiters from './rate-limiters.js';

type RateLimiter<T> = limiters.RateLimiter<T>;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The script the exponential, fast-slow and max-of tests share: five failures of "one", two
 * of "two", then "one" is forgotten and starts over at its first delay.
 */
function playOneTwoForget(limiter: RateLimiter<string>, one: number[], two: number[]): void {
  expect(one.map(() => limiter.when('one'))).toEqual(one);
  expect(limiter.numRequeues('one')).toBe(5);
  expect(two.map(() => limiter.when('two'))).toEqual(two);
  expect(limiter.numRequeues('two')).toBe(2);
  limiter.forget('one');
  expect(limiter.numRequeues('one')).toBe(0);
  expect(limiter.when('one')).toBe(one[0]);
}

/** Calls `when(item)` `failures` times, then returns the delay of the next call. */
function delayAfter(limiter: RateLimiter<string>, item: string, failures: number): number {
  for (let n = 0; n < failures; n++) limiter.when(item);
  return limiter.when(item);
}

it('TestItemExponentialFailureRateLimiter', () => {
  playOneTwoForget(
    new limiters.ItemExponentialFailureRateLimiter(1, SECOND),
    [1, 2, 4, 8, 16],
    [1, 2],
  );
});

it('TestItemExponentialFailureRateLimiterOverFlow', () => {
  const limiter = new limiters.ItemExponentialFailureRateLimiter<string>(1, 1000 * SECOND);
  expect(delayAfter(limiter, 'one', 5)).toBe(32);
  expect(delayAfter(limiter, 'overflow1', 1000)).toBe(1000 * SECOND);
  const minutes = new limiters.ItemExponentialFailureRateLimiter<string>(MINUTE, 1000 * HOUR);
  expect(delayAfter(minutes, 'two', 2)).toBe(4 * MINUTE);
  expect(delayAfter(minutes, 'overflow2', 1000)).toBe(1000 * HOUR);
});

it('TestItemFastSlowRateLimiter', () => {
  const slow = 10 * SECOND;
  playOneTwoForget(new limiters.ItemFastSlowRateLimiter(5, slow, 3), [5, 5, 5, slow, slow], [5, 5]);
});

it('TestMaxOfRateLimiter', () => {
  const limiter = new limiters.MaxOfRateLimiter<string>(
    new limiters.ItemFastSlowRateLimiter(5, 3 * SECOND, 3),
    new limiters.ItemExponentialFailureRateLimiter(1, SECOND),
  );
  playOneTwoForget(limiter, [5, 5, 5, 3 * SECOND, 3 * SECOND], [5, 5]);
});

/** client-go's test `StepRateLimiter`: `baseDelay` for the first `threshold` calls, then `maxDelay`. */
class StepRateLimiter implements RateLimiter<number> {
  #count = 0;
  readonly #baseDelay: number;
  readonly #maxDelay: number;
  readonly #threshold: number;
  constructor(baseDelay: number, maxDelay: number, threshold: number) {
    this.#baseDelay = baseDelay;
    this.#maxDelay = maxDelay;
    this.#threshold = threshold;
  }
  when(): number {
    this.#count += 1;
    return this.#count <= this.#threshold ? this.#baseDelay : this.#maxDelay;
  }
  numRequeues(): number {
    return 0;
  }
  forget(): void {}
}

it('TestWithMaxWaitRateLimiter', () => {
  const limiter = new limiters.WithMaxWaitRateLimiter(
    new StepRateLimiter(5, 1000 * SECOND, 100),
    500 * SECOND,
  );
  for (let i = 0; i < 100; i++) expect(limiter.when(i)).toBe(5);
  for (let i = 100; i < 200; i++) expect(limiter.when(i)).toBe(500 * SECOND);
});
