// client-go's util/workqueue/rate_limiting_queue_test.go, ported: the Go test reads each
// entry's ready time off the delaying queue's channel; here a subclass records the delay each
// `addAfter` is given, which is that ready time minus now (the fake clock never moves).

import { FakeClock } from '@kubets/apimachinery/testing';
import { expect, it } from 'vitest';
import { ItemExponentialFailureRateLimiter } from './rate-limiters.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';

class RecordingQueue<T> extends RateLimitingQueue<T> {
  readonly delays: number[] = [];
  override addAfter(item: T, delayMs: number): void {
    this.delays.push(delayMs);
    super.addAfter(item, delayMs);
  }
}

it('TestRateLimitingQueue', () => {
  const limiter = new ItemExponentialFailureRateLimiter<string>(1, 1000);
  const queue = new RecordingQueue<string>({ rateLimiter: limiter, clock: new FakeClock() });
  const nextDelay = () => queue.delays.shift();

  queue.addRateLimited('one');
  expect(nextDelay()).toBe(1);
  queue.addRateLimited('one');
  expect(nextDelay()).toBe(2);
  expect(queue.numRequeues('one')).toBe(2);

  queue.addRateLimited('two');
  expect(nextDelay()).toBe(1);
  queue.addRateLimited('two');
  expect(nextDelay()).toBe(2);

  queue.forget('one');
  expect(queue.numRequeues('one')).toBe(0);
  queue.addRateLimited('one');
  expect(nextDelay()).toBe(1);
});
