import { FakeClock } from '@kubets/apimachinery/testing';
import { describe, expect, it } from 'vitest';
import type { RateLimiter } from './rate-limiters.js';
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  WithMaxWaitRateLimiter,
} from './rate-limiters.js';

/** What `limiter.when(item)` answers `times` times in a row. */
function delays(limiter: RateLimiter<string>, item: string, times: number): number[] {
  return Array.from({ length: times }, () => limiter.when(item));
}

describe('ItemExponentialFailureRateLimiter', () => {
  it('waits 5 ms · 2^n by default, per item, up to 1000 s', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>();
    const got = delays(limiter, 'a', 20);
    const expected = Array.from({ length: 20 }, (_, n) => Math.min(5 * 2 ** n, 1_000_000));
    expect(got).toEqual(expected);
    expect(got.slice(0, 5)).toEqual([5, 10, 20, 40, 80]);
    // 5·2^17 = 655,360 ms is the last below the cap; 5·2^18 is capped.
    expect(got[17]).toBe(655_360);
    expect(got[18]).toBe(1_000_000);
    expect(limiter.numRequeues('a')).toBe(20);
    expect(limiter.when('b')).toBe(5);
    expect(limiter.numRequeues('b')).toBe(1);
  });

  it('starts over after forget', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(1, 1000);
    delays(limiter, 'a', 2);
    expect(limiter.when('a')).toBe(4);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    expect(limiter.when('a')).toBe(1);
  });

  it('takes the cap once 2^n overflows, however many failures', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
    let last = 0;
    for (let i = 0; i < 5000; i++) last = limiter.when('a');
    expect(last).toBe(1_000_000);
    expect(Number.isFinite(last)).toBe(true);
    const zero = new ItemExponentialFailureRateLimiter<string>(0, 100);
    for (let i = 0; i < 2000; i++) expect(zero.when('a')).toBe(0);
  });

  it('rejects negative or NaN delays', () => {
    expect(() => new ItemExponentialFailureRateLimiter(-1, 10)).toThrow(RangeError);
    expect(() => new ItemExponentialFailureRateLimiter(1, Number.NaN)).toThrow(RangeError);
  });
});

describe('BucketRateLimiter', () => {
  it('lets a burst of 100 through, then spaces items 100 ms apart (10 qps)', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>({ clock });
    for (let i = 0; i < 100; i++) expect(limiter.when(`item-${i}`)).toBe(0);
    expect(limiter.when('x')).toBe(100);
    expect(limiter.when('y')).toBe(200);
    expect(limiter.when('z')).toBe(300);
    expect(limiter.numRequeues('x')).toBe(0);
  });

  it('refills with time, up to the burst', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>({ qps: 10, burst: 2, clock });
    expect(delays(limiter, 'a', 3)).toEqual([0, 0, 100]);
    // The reservation above is paid back after 100 ms; one more token after 200 ms.
    clock.step(200);
    expect(delays(limiter, 'a', 2)).toEqual([0, 100]);
    // A long quiet period refills only up to the burst.
    clock.step(60_000);
    expect(delays(limiter, 'a', 3)).toEqual([0, 0, 100]);
  });

  it('forget does not give tokens back', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>({ qps: 1, burst: 1, clock });
    expect(limiter.when('a')).toBe(0);
    limiter.forget('a');
    expect(limiter.when('a')).toBe(1000);
  });

  it('never waits with an infinite rate and rejects impossible settings', () => {
    const limiter = new BucketRateLimiter<string>({ qps: Number.POSITIVE_INFINITY, burst: 1 });
    for (let i = 0; i < 10; i++) expect(limiter.when('a')).toBe(0);
    expect(() => new BucketRateLimiter({ qps: 0 })).toThrow(RangeError);
    expect(() => new BucketRateLimiter({ burst: 0 })).toThrow(RangeError);
  });
});

describe('ItemFastSlowRateLimiter', () => {
  it('gives the fast delay for the first attempts, then the slow one, per item', () => {
    const limiter = new ItemFastSlowRateLimiter<string>(5, 10_000, 3);
    expect(delays(limiter, 'a', 3)).toEqual([5, 5, 5]);
    expect(limiter.when('a')).toBe(10_000);
    expect(limiter.when('a')).toBe(10_000);
    expect(limiter.numRequeues('a')).toBe(5);
    expect(limiter.when('b')).toBe(5);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    expect(limiter.when('a')).toBe(5);
  });
});

describe('MaxOfRateLimiter', () => {
  it('returns the longest delay, asking every limiter', () => {
    const fastSlow = new ItemFastSlowRateLimiter<string>(5, 3000, 3);
    const exponential = new ItemExponentialFailureRateLimiter<string>(1, 1000);
    const limiter = new MaxOfRateLimiter<string>(fastSlow, exponential);
    // max(fast-slow, 1·2^n capped at 1000)
    expect(delays(limiter, 'a', 12)).toEqual([
      5, 5, 5, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000,
    ]);
    expect(fastSlow.numRequeues('a')).toBe(12);
    expect(exponential.numRequeues('a')).toBe(12);
    expect(limiter.numRequeues('a')).toBe(12);
  });

  it('follows the exponential limiter once it passes the slow delay', () => {
    const limiter = new MaxOfRateLimiter<string>(
      new ItemFastSlowRateLimiter<string>(2, 30, 2),
      new ItemExponentialFailureRateLimiter<string>(1, 100),
    );
    expect(delays(limiter, 'a', 9)).toEqual([2, 2, 30, 30, 30, 32, 64, 100, 100]);
  });

  it('forgets in every limiter and reports the largest count', () => {
    const a = new ItemFastSlowRateLimiter<string>(1, 2, 1);
    const b = new ItemExponentialFailureRateLimiter<string>(1, 10);
    const limiter = new MaxOfRateLimiter<string>(a, b);
    limiter.when('x');
    b.when('x');
    expect(limiter.numRequeues('x')).toBe(2);
    limiter.forget('x');
    expect(a.numRequeues('x')).toBe(0);
    expect(b.numRequeues('x')).toBe(0);
    expect(() => new MaxOfRateLimiter<string>()).toThrow(RangeError);
  });
});

describe('WithMaxWaitRateLimiter', () => {
  it('caps the delay of the wrapped limiter', () => {
    const inner = new ItemExponentialFailureRateLimiter<string>(100, 100_000);
    const limiter = new WithMaxWaitRateLimiter<string>(inner, 350);
    expect(delays(limiter, 'a', 4)).toEqual([100, 200, 350, 350]);
    expect(limiter.numRequeues('a')).toBe(4);
    limiter.forget('a');
    expect(inner.numRequeues('a')).toBe(0);
  });
});

describe('defaultControllerRateLimiter', () => {
  it('is the max of 5 ms exponential (1000 s cap) and a 10 qps / 100 burst bucket', () => {
    const clock = new FakeClock();
    const limiter: RateLimiter<string> = defaultControllerRateLimiter<string>({ clock });
    // Per item: 5, 10, 20, ... while the bucket has tokens.
    expect(delays(limiter, 'a', 3)).toEqual([5, 10, 20]);
    expect(limiter.numRequeues('a')).toBe(3);
    // 97 tokens left: drain them with distinct first failures (5 ms each).
    for (let i = 0; i < 97; i++) expect(limiter.when(`k${i}`)).toBe(5);
    // The bucket now dominates a first failure: 100 ms, then 200 ms.
    expect(limiter.when('fresh1')).toBe(100);
    expect(limiter.when('fresh2')).toBe(200);
    // And the exponential side dominates a long-failing item.
    for (let i = 0; i < 20; i++) limiter.when('bad');
    expect(limiter.when('bad')).toBe(1_000_000);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
  });
});
