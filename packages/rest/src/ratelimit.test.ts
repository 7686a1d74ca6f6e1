import { FakeClock } from '@kubets/apimachinery/testing';
import { nextTurn } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { rateLimiterFor, TokenBucketRateLimiter } from './ratelimit.js';

describe('TokenBucketRateLimiter', () => {
  it('accepts a burst, then qps tokens per second', () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter(5, 10, { clock });
    let accepted = 0;
    while (limiter.tryAccept()) accepted++;
    expect(accepted).toBe(10);

    clock.step(1000);
    accepted = 0;
    while (limiter.tryAccept()) accepted++;
    expect(accepted).toBe(5);

    clock.step(199);
    expect(limiter.tryAccept()).toBe(false);
    clock.step(1);
    expect(limiter.tryAccept()).toBe(true);
  });

  it('never stores more than burst tokens', () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter(5, 10, { clock });
    clock.step(60_000);
    let accepted = 0;
    while (limiter.tryAccept()) accepted++;
    expect(accepted).toBe(10);
  });

  it('holds waiters to qps over time, in arrival order', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter(5, 10, { clock });
    const granted: number[] = [];
    for (let i = 0; i < 30; i++) void limiter.wait().then(() => granted.push(i));
    await nextTurn();
    expect(granted).toHaveLength(10);

    for (let second = 1; second <= 4; second++) {
      clock.step(1000);
      await nextTurn();
      expect(granted).toHaveLength(Math.min(30, 10 + 5 * second));
    }
    expect(granted).toEqual([...Array(30).keys()]);
    expect(clock.pending).toBe(0);
  });

  it('spaces queued waiters 1/qps apart', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter(2, 1, { clock });
    const grantedAt: number[] = [];
    for (let i = 0; i < 4; i++) void limiter.wait().then(() => grantedAt.push(clock.now()));
    for (let step = 0; step < 8; step++) {
      await nextTurn();
      clock.step(250);
    }
    await nextTurn();
    expect(grantedAt).toEqual([0, 500, 1000, 1500]);
  });

  it('makes tryAccept wait its turn behind queued waiters', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter(1, 1, { clock });
    expect(limiter.tryAccept()).toBe(true);
    const waiting = limiter.wait();
    clock.step(1000);
    // The token that just arrived belongs to the queued waiter.
    expect(limiter.tryAccept()).toBe(false);
    await waiting;
  });

  it('lets an aborted waiter leave without taking a token or leaving a timer', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter(1, 1, { clock });
    expect(limiter.tryAccept()).toBe(true);
    const controller = new AbortController();
    const aborted = limiter.wait(controller.signal);
    await nextTurn();
    expect(clock.pending).toBe(1);
    controller.abort(new Error('gave up'));
    await expect(aborted).rejects.toThrow('gave up');
    await nextTurn();
    expect(clock.pending).toBe(0);
    clock.step(1000);
    expect(limiter.tryAccept()).toBe(true);
  });

  it('rejects at once for an already aborted signal', async () => {
    const limiter = new TokenBucketRateLimiter(1, 1, { clock: new FakeClock() });
    await expect(limiter.wait(AbortSignal.abort(new Error('early')))).rejects.toThrow('early');
    expect(limiter.tryAccept()).toBe(true);
  });

  it('rejects nonsensical settings', () => {
    expect(() => new TokenBucketRateLimiter(0, 10)).toThrow(RangeError);
    expect(() => new TokenBucketRateLimiter(5, 0)).toThrow(/burst/);
  });
});

describe('rateLimiterFor', () => {
  it('defaults to qps 5, burst 10', () => {
    const limiter = rateLimiterFor({}, { clock: new FakeClock() });
    expect(limiter).toBeInstanceOf(TokenBucketRateLimiter);
    expect((limiter as TokenBucketRateLimiter).qps).toBe(5);
    expect((limiter as TokenBucketRateLimiter).burst).toBe(10);
  });

  it('disables throttling for a negative qps', () => {
    expect(rateLimiterFor({ qps: -1 })).toBeUndefined();
  });

  it('returns a shared limiter as is', () => {
    const shared = new TokenBucketRateLimiter(1, 1);
    expect(rateLimiterFor({ qps: 100, rateLimiter: shared })).toBe(shared);
  });
});
