import { FakeClock } from '@kubets/apimachinery/testing';
import { describe, expect, it } from 'vitest';
import * as workqueue from './index.js';
import {
  defaultControllerRateLimiter,
  newRateLimitingQueue,
  type RateLimitingWorkQueue,
} from './index.js';

describe('package entry', () => {
  it("exports the queues, limiters and metrics API (the clock is @kubets/apimachinery's)", () => {
    expect(Object.keys(workqueue).sort()).toEqual(
      [
        'BucketRateLimiter',
        'DelayingQueue',
        'ItemExponentialFailureRateLimiter',
        'ItemFastSlowRateLimiter',
        'MaxOfRateLimiter',
        'PriorityQueue',
        'Queue',
        'RateLimitingQueue',
        'UNFINISHED_WORK_UPDATE_PERIOD_MS',
        'WithMaxWaitRateLimiter',
        'defaultControllerRateLimiter',
        'getMetricsProvider',
        'newDelayingQueue',
        'newPriorityQueue',
        'newQueue',
        'newRateLimitingQueue',
        'noopQueueMetricsProvider',
        'setMetricsProvider',
      ].sort(),
    );
  });
});

/** The README's worker loop (client-go's processNextItem / handleErr), run on a fake clock. */
describe('README worker loop', () => {
  async function processNextItem(
    queue: RateLimitingWorkQueue<string>,
    sync: (key: string) => Promise<void>,
    log: string[],
  ): Promise<boolean> {
    const { item: key, shutdown } = await queue.get();
    if (shutdown) return false;
    try {
      await sync(key);
      queue.forget(key);
    } catch (err) {
      if (queue.numRequeues(key) < 5) {
        log.push(`Error syncing pod ${key}: ${(err as Error).message}`);
        queue.addRateLimited(key);
      } else {
        log.push(`Dropping pod ${key} out of the queue: ${(err as Error).message}`);
        queue.forget(key);
      }
    } finally {
      queue.done(key);
    }
    return true;
  }

  it('retries a failing key 5 times with backoff, then drops it; a good key syncs once', async () => {
    const clock = new FakeClock();
    const queue = newRateLimitingQueue<string>(defaultControllerRateLimiter({ clock }), {
      clock,
      name: 'pods',
    });
    const log: string[] = [];
    const synced: string[] = [];
    const sync = async (key: string): Promise<void> => {
      if (key === 'default/broken') throw new Error('boom');
      synced.push(`${key}@${clock.now()}`);
    };
    const worker = (async () => {
      while (await processNextItem(queue, sync, log));
    })();
    queue.add('default/mypod');
    queue.add('default/broken');
    await clock.advance(1000);
    queue.shutDown();
    await worker;
    expect(synced).toEqual(['default/mypod@0']);
    expect(log).toEqual([
      ...Array.from({ length: 5 }, () => 'Error syncing pod default/broken: boom'),
      'Dropping pod default/broken out of the queue: boom',
    ]);
    expect(queue.numRequeues('default/broken')).toBe(0);
    expect(clock.pending).toBe(0);
  });
});
