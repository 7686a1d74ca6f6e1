import { FakeClock } from '@kubets/apimachinery/testing';
import { describe, expect, it } from 'vitest';
import type { Queue } from './queue.js';
import { ItemExponentialFailureRateLimiter } from './rate-limiters.js';
import { newRateLimitingQueue, RateLimitingQueue } from './rate-limiting-queue.js';

async function take<T>(queue: Queue<T>): Promise<T> {
  const result = await queue.get();
  if (result.shutdown) throw new Error('unexpected shutdown');
  return result.item;
}

describe('RateLimitingQueue', () => {
  it('addRateLimited waits the limiter delay: 5 ms · 2^n per failure', () => {
    const clock = new FakeClock();
    const q = newRateLimitingQueue<string>(new ItemExponentialFailureRateLimiter<string>(5, 1000), {
      clock,
    });
    q.addRateLimited('a');
    expect(q.numRequeues('a')).toBe(1);
    clock.step(4);
    expect(q.len()).toBe(0);
    clock.step(1);
    expect(q.len()).toBe(1);
    expect(clock.pending).toBe(0);
  });

  it('runs the retry loop of a controller: back off, give up, forget', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1_000_000),
    });
    const attemptsAt: number[] = [];
    q.add('default/mypod');
    for (;;) {
      const key = await take(q);
      attemptsAt.push(clock.now());
      // Fails every time: retry up to 5 times, then drop.
      if (q.numRequeues(key) < 5) {
        q.addRateLimited(key);
      } else {
        q.forget(key);
      }
      q.done(key);
      if (q.numRequeues(key) === 0) break;
      await clock.advance(clock.nextDue()! - clock.now());
    }
    // Delays 5, 10, 20, 40, 80 ms between attempts.
    expect(attemptsAt).toEqual([0, 5, 15, 35, 75, 155]);
    expect(q.len()).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it('uses the default controller limiter on the queue clock when none is given', () => {
    const clock = new FakeClock();
    const q = newRateLimitingQueue<string>(undefined, { clock });
    for (let i = 0; i < 100; i++) q.addRateLimited(`k${i}`);
    q.addRateLimited('over-burst');
    clock.step(5);
    expect(q.len()).toBe(100);
    clock.step(95);
    expect(q.len()).toBe(101);
    const viaClass = new RateLimitingQueue<string>({ clock });
    viaClass.addRateLimited('a');
    expect(viaClass.numRequeues('a')).toBe(1);
  });

  it('forget resets the backoff but leaves queued items alone', () => {
    const clock = new FakeClock();
    const q = newRateLimitingQueue<string>(
      new ItemExponentialFailureRateLimiter<string>(10, 1000),
      {
        clock,
      },
    );
    q.addRateLimited('a');
    q.addRateLimited('a'); // 20 ms, later than the waiting 10 ms: keeps 10 ms
    expect(q.numRequeues('a')).toBe(2);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
    clock.step(10);
    expect(q.len()).toBe(1);
  });

  it('ignores addRateLimited after shutdown and leaves no timers', () => {
    const clock = new FakeClock();
    const q = newRateLimitingQueue<string>(undefined, { clock });
    q.addRateLimited('a');
    q.shutDown();
    q.addRateLimited('b');
    expect(clock.pending).toBe(0);
    clock.step(10_000);
    expect(q.len()).toBe(0);
  });
});
