// Throughput of the work queues. Run with `pnpm bench` (vitest bench --run) in this package.
// Each benchmark function handles a fixed batch, so ops/s × batch size = items/s.

import { FakeClock } from '@kubets/apimachinery/testing';
import { test } from 'vitest';
import { Queue } from './queue.js';
import { ItemExponentialFailureRateLimiter } from './rate-limiters.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';

const ITEMS = 100_000;
const KEYS = Array.from({ length: 1000 }, (_, i) => `namespace-${i % 10}/object-${i}`);

/** The key of the i-th add: the 1k keys in turn. */
function keyAt(i: number): string {
  return KEYS[i % KEYS.length] as string;
}

/** Takes the next item and marks it done at once: a worker with nothing to do. */
async function processNext(q: Queue<string>): Promise<void> {
  const r = await q.get();
  if (!r.shutdown) q.done(r.item);
}

test('add + get + done, 100k items over 1k keys, one worker', async ({ bench }) => {
  await bench('add/get/done ×100k (1 worker)', async () => {
    const q = new Queue<string>();
    for (let i = 0; i < ITEMS; i++) {
      q.add(keyAt(i));
      await processNext(q);
    }
  }).run();
});

test('100k adds (1k keys, mostly duplicates) then drain', async ({ bench }) => {
  await bench('add ×100k dedup + drain', async () => {
    const q = new Queue<string>();
    for (let i = 0; i < ITEMS; i++) q.add(keyAt(i));
    while (q.len() > 0) await processNext(q);
  }).run();
});

test('8 async workers over 100k adds of 1k keys, re-added while processing', async ({ bench }) => {
  await bench('8 workers ×100k adds', async () => {
    const q = new Queue<string>();
    const worker = async (): Promise<void> => {
      for (;;) {
        const r = await q.get();
        if (r.shutdown) return;
        await Promise.resolve();
        q.done(r.item);
      }
    };
    const workers = Array.from({ length: 8 }, worker);
    for (let i = 0; i < ITEMS; i++) {
      q.add(keyAt(i));
      if (i % 64 === 0) await Promise.resolve();
    }
    await q.shutDownWithDrain();
    await Promise.all(workers);
  }).run();
});

test('rate-limited add: 100k addRateLimited over 1k keys, fired on a fake clock', async ({
  bench,
}) => {
  await bench('addRateLimited ×100k + fire + forget', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1000),
    });
    for (let i = 0; i < ITEMS; i++) q.addRateLimited(keyAt(i));
    clock.step(1000);
    while (q.len() > 0) {
      const r = await q.get();
      if (!r.shutdown) {
        q.forget(r.item);
        q.done(r.item);
      }
    }
    q.shutDown();
  }).run();
});
