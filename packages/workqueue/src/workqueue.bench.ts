// Throughput of the work queues. Run with `pnpm bench` (vitest bench --run) in this package.
// Each benchmark function handles a fixed batch, so ops/s × batch size = items/s.

import { FakeClock } from '@kubets/apimachinery/testing';
import { test } from 'vitest';
import { PriorityQueue } from './priority-queue.js';
import { Queue, type WorkQueue } from './queue.js';
import { ItemExponentialFailureRateLimiter, type RateLimiter } from './rate-limiters.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';

const ITEMS = 100_000;
const KEYS = Array.from({ length: 1000 }, (_, i) => `namespace-${i % 10}/object-${i}`);

/** The key of the i-th add: the 1k keys in turn. */
function keyAt(i: number): string {
  return KEYS[i % KEYS.length] as string;
}

/** The queues measured side by side: client-go's FIFO and controller-runtime's priority queue. */
const queues: [string, () => WorkQueue<string>][] = [
  ['queue', () => new Queue<string>()],
  ['priority queue', () => new PriorityQueue<string>()],
];

/** Takes the next item and marks it done at once: a worker with nothing to do. */
async function processNext(q: WorkQueue<string>): Promise<void> {
  const r = await q.get();
  if (!r.shutdown) q.done(r.item);
}

test.for(queues)(
  '%s: add + get + done, 100k items over 1k keys, one worker',
  async ([name, newQueue], { bench }) => {
    await bench(`${name}: add/get/done ×100k (1 worker)`, async () => {
      const q = newQueue();
      for (let i = 0; i < ITEMS; i++) {
        q.add(keyAt(i));
        await processNext(q);
      }
    }).run();
  },
);

test.for(queues)(
  '%s: 100k adds (1k keys, mostly duplicates) then drain',
  async ([name, newQueue], { bench }) => {
    await bench(`${name}: add ×100k dedup + drain`, async () => {
      const q = newQueue();
      for (let i = 0; i < ITEMS; i++) q.add(keyAt(i));
      while (q.len() > 0) await processNext(q);
    }).run();
  },
);

test.for(queues)(
  '%s: 8 async workers over 100k adds of 1k keys, re-added while processing',
  async ([name, newQueue], { bench }) => {
    await bench(`${name}: 8 workers ×100k adds`, async () => {
      const q = newQueue();
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
  },
);

const rateLimitingQueues: [
  string,
  (
    clock: FakeClock,
    rateLimiter: RateLimiter<string>,
  ) => RateLimitingQueue<string> | PriorityQueue<string>,
][] = [
  ['rate-limiting queue', (clock, rateLimiter) => new RateLimitingQueue({ clock, rateLimiter })],
  ['priority queue', (clock, rateLimiter) => new PriorityQueue({ clock, rateLimiter })],
];

test.for(rateLimitingQueues)(
  '%s: rate-limited add: 100k addRateLimited over 1k keys, fired on a fake clock',
  async ([name, newQueue], { bench }) => {
    await bench(`${name}: addRateLimited ×100k + fire + forget`, async () => {
      const clock = new FakeClock();
      const q = newQueue(clock, new ItemExponentialFailureRateLimiter<string>(5, 1000));
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
  },
);

test('priority queue: 1k keys at 10 priorities (the initial list low), add then get + done', async ({
  bench,
}) => {
  // controller-runtime's BenchmarkAddGetDone, with priorities: 1k adds, then 1k gets.
  await bench('priority queue: 1k adds over 10 priorities, then 1k get/done ×10', async () => {
    const q = new PriorityQueue<string>();
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < KEYS.length; i++) q.addWithOpts({ priority: -100 + (i % 10) }, keyAt(i));
      for (let i = 0; i < KEYS.length; i++) await processNext(q);
    }
  }).run();
});
