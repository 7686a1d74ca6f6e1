import { FakeClock } from '@kubets/apimachinery/testing';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { MetricsProvider } from './metrics.js';
import { newPriorityQueue, PriorityQueue } from './priority-queue.js';
import {
  MAX_REPORTED_PRIORITIES,
  PRIORITY_CARDINALITY_EXCEEDED,
  PrometheusMetricsProvider,
} from './prometheus.js';
import type { RateLimitingWorkQueue } from './rate-limiting-queue.js';

/** Lets every other pending task run. */
const yieldTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await yieldTurn();
  return done;
}

/** Takes the next item, checks it, and marks it done. */
async function takeDone(q: PriorityQueue<string>): Promise<string | undefined> {
  const { item } = await q.get();
  if (item !== undefined) q.done(item);
  return item;
}

describe('PriorityQueue', () => {
  it('serves wherever a rate-limiting queue is used, a controller worker loop included', async () => {
    const clock = new FakeClock();
    const queue: RateLimitingWorkQueue<string> = newPriorityQueue<string>({ clock });
    const synced: string[] = [];
    let failures = 2;
    const worker = (async () => {
      for (;;) {
        const { item, shutdown } = await queue.get();
        if (shutdown) return;
        if (item === 'default/db' && failures-- > 0) {
          queue.addRateLimited(item);
        } else {
          synced.push(`${item} at ${clock.now()}`);
          queue.forget(item);
        }
        queue.done(item);
      }
    })();
    queue.add('default/web');
    queue.add('default/db');
    await clock.advance(4);
    expect(queue.numRequeues('default/db')).toBe(1);
    // Per-item exponential backoff by default: 5 ms, then 10 ms.
    await clock.advance(20);
    expect(synced).toEqual(['default/web at 0', 'default/db at 15']);
    expect(queue.numRequeues('default/db')).toBe(0);
    await queue.shutDownWithDrain();
    await worker;
  });

  it('hands a batch to waiting gets best first', async () => {
    const q = new PriorityQueue<string>();
    const first = q.getWithPriority();
    const second = q.getWithPriority();
    q.addWithOpts({ priority: -100 }, 'listed-1', 'listed-2');
    expect(await first).toMatchObject({ item: 'listed-1', priority: -100 });
    expect(await second).toMatchObject({ item: 'listed-2', priority: -100 });

    const third = q.getWithPriority();
    q.addWithOpts({ priority: -100 }, 'listed-3', 'listed-4');
    q.addWithOpts({}, 'changed');
    expect(await third).toMatchObject({ item: 'listed-3' });
    expect(await q.getWithPriority()).toMatchObject({ item: 'changed', priority: 0 });
    expect(await q.getWithPriority()).toMatchObject({ item: 'listed-4', priority: -100 });
  });

  it('holds an item re-added while processing until done, then ranks it by its raised priority', async () => {
    const q = new PriorityQueue<string>();
    q.add('a');
    expect(await takeDone(q)).toBe('a');
    q.add('a');
    expect((await q.get()).item).toBe('a');
    q.addWithOpts({ priority: -5 }, 'a');
    q.addWithOpts({ priority: 1 }, 'b');
    q.addWithOpts({ priority: 3 }, 'a');
    expect(q.len()).toBe(2);
    // 'a' is processing: 'b' goes first however high 'a' ranks.
    expect(await q.getWithPriority()).toMatchObject({ item: 'b', priority: 1 });
    const next = q.getWithPriority();
    expect(await settled(next)).toBe(false);
    q.done('a');
    expect(await next).toMatchObject({ item: 'a', priority: 3 });
  });

  it('keeps the earlier ready time of a delayed item, and readies it at once on a plain add', () => {
    const clock = new FakeClock();
    const q = new PriorityQueue<string>({ clock });
    q.addAfter('x', 100);
    q.addAfter('x', 50);
    q.addAfter('x', 80);
    expect(q.waitingLen()).toBe(1);
    clock.step(49);
    expect(q.len()).toBe(0);
    clock.step(1);
    expect([q.len(), q.waitingLen()]).toEqual([1, 0]);

    q.addAfter('y', 1000);
    q.add('y');
    expect([q.len(), q.waitingLen()]).toEqual([2, 0]);
    expect(clock.pending).toBe(0);
  });

  it('takes the shorter of after and the rate limiter delay', () => {
    const clock = new FakeClock();
    const q = new PriorityQueue<string>({ clock });
    q.addWithOpts({ rateLimited: true, after: 1 }, 'short-after');
    q.addWithOpts({ rateLimited: true, after: 1000 }, 'long-after');
    clock.step(1);
    expect(q.len()).toBe(1);
    clock.step(4);
    expect(q.len()).toBe(2);
    expect(q.numRequeues('short-after')).toBe(1);
  });

  it('treats NaN, zero and negative delays as ready now', () => {
    const q = new PriorityQueue<string>({ clock: new FakeClock() });
    q.addWithOpts({ after: Number.NaN }, 'nan');
    q.addAfter('zero', 0);
    q.addAfter('negative', -5);
    expect([q.len(), q.waitingLen()]).toEqual([3, 0]);
  });

  it('refuses a priority that is not an integer, adding nothing', () => {
    const q = new PriorityQueue<string>();
    for (const priority of [1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => q.addWithOpts({ priority }, 'x')).toThrow(
        new RangeError(`priority must be an integer, got ${priority}`),
      );
    }
    expect(q.len()).toBe(0);
  });

  it('after shutDown: hands out what is ready, held items once done, drops delayed ones and their timer', async () => {
    const clock = new FakeClock();
    const q = new PriorityQueue<string>({ clock });
    q.add('processing');
    expect(await takeDone(q)).toBe('processing');
    q.add('processing');
    await q.get();
    q.add('processing');
    q.addWithOpts({ priority: -1 }, 'ready');
    q.addAfter('delayed', 10);
    expect(clock.pending).toBe(1);

    q.shutDown();
    expect(clock.pending).toBe(0);
    expect(q.shuttingDown()).toBe(true);
    q.add('after-shutdown');
    expect(q.waitingLen()).toBe(0);
    expect(await q.getWithPriority()).toMatchObject({ item: 'ready', priority: -1 });
    q.done('processing');
    expect(await q.getWithPriority()).toMatchObject({ item: 'processing', priority: 0 });
    expect(await q.getWithPriority()).toEqual({
      item: undefined,
      priority: undefined,
      shutdown: true,
    });
  });

  it('shutDownWithDrain waits for the items in flight; shutDown ends the wait', async () => {
    const q = new PriorityQueue<string>();
    q.add('a');
    q.add('b');
    await q.get();
    await q.get();
    const drained = q.shutDownWithDrain();
    q.done('a');
    expect(await settled(drained)).toBe(false);
    q.done('b');
    expect(await settled(drained)).toBe(true);

    const other = new PriorityQueue<string>();
    other.add('c');
    await other.get();
    const aborted = new AbortController();
    const drainAborted = other.shutDownWithDrain(aborted.signal);
    aborted.abort(new Error('grace period over'));
    await expect(drainAborted).rejects.toThrow('grace period over');
    const drainEnded = other.shutDownWithDrain();
    other.shutDown();
    expect(await settled(drainEnded)).toBe(true);
  });

  it('a get whose signal aborts takes nothing', async () => {
    const q = new PriorityQueue<string>();
    const aborted = new AbortController();
    const get = q.get(aborted.signal);
    aborted.abort(new Error('stop'));
    await expect(get).rejects.toThrow('stop');
    await expect(q.get(aborted.signal)).rejects.toThrow('stop');
    q.add('x');
    expect(q.len()).toBe(1);
  });
});

describe('PriorityQueue metrics', () => {
  it('reports depth by priority to Prometheus, beside the other queues and their metrics', async () => {
    const registry = new Registry();
    const clock = new FakeClock();
    const metricsProvider = new PrometheusMetricsProvider({ registry });
    const q = new PriorityQueue<string>({ clock, name: 'pods', metricsProvider });
    q.addWithOpts({ priority: -100 }, 'a', 'b');
    q.add('c');
    q.addAfter('d', 5);
    clock.step(2);
    const got = await q.getWithPriority();
    clock.step(3);
    q.done(got.item as string);
    clock.step(500);
    const text = await registry.metrics();
    for (const sample of [
      'workqueue_depth{name="pods",priority="-100"} 2',
      'workqueue_depth{name="pods",priority="0"} 1',
      'workqueue_adds_total{name="pods"} 4',
      'workqueue_retries_total{name="pods"} 1',
      'workqueue_queue_duration_seconds_count{name="pods"} 1',
      'workqueue_queue_duration_seconds_sum{name="pods"} 0.002',
      'workqueue_work_duration_seconds_sum{name="pods"} 0.003',
      'workqueue_unfinished_work_seconds{name="pods"} 0',
      'workqueue_longest_running_processor_seconds{name="pods"} 0',
    ]) {
      expect(text).toContain(sample);
    }
    q.shutDown();
    expect(clock.pending).toBe(0);
  });

  it('reports unfinished work and the longest running item while processing', async () => {
    const registry = new Registry();
    const clock = new FakeClock();
    const q = new PriorityQueue<string>({
      clock,
      name: 'slow',
      metricsProvider: new PrometheusMetricsProvider({ registry }),
    });
    q.add('a');
    await q.get();
    clock.step(1000);
    q.add('b');
    await q.get();
    clock.step(500);
    const text = await registry.metrics();
    expect(text).toContain('workqueue_unfinished_work_seconds{name="slow"} 2');
    expect(text).toContain('workqueue_longest_running_processor_seconds{name="slow"} 1.5');
    q.shutDown();
  });

  it(`reports priorities beyond the first ${MAX_REPORTED_PRIORITIES} under one label, as controller-runtime does`, async () => {
    const registry = new Registry();
    const q = new PriorityQueue<number>({
      clock: new FakeClock(),
      name: 'many',
      metricsProvider: new PrometheusMetricsProvider({ registry }),
    });
    for (let p = 0; p <= MAX_REPORTED_PRIORITIES; p++) q.addWithOpts({ priority: p }, p);
    const text = await registry.metrics();
    expect(text).toContain(`workqueue_depth{name="many",priority="24"} 1`);
    expect(text).toContain(
      `workqueue_depth{name="many",priority="${PRIORITY_CARDINALITY_EXCEEDED}"} 1`,
    );
    expect(text).not.toContain(`priority="25"`);
    q.shutDown();
  });

  it('counts every priority in the plain depth gauge of a provider without depth by priority', async () => {
    let depth = 0;
    const counter = { inc: () => {} };
    const provider: MetricsProvider = {
      newDepthMetric: () => ({
        inc: () => {
          depth++;
        },
        dec: () => {
          depth--;
        },
      }),
      newAddsMetric: () => counter,
      newRetriesMetric: () => counter,
      newLatencyMetric: () => ({ observe: () => {} }),
      newWorkDurationMetric: () => ({ observe: () => {} }),
      newUnfinishedWorkSecondsMetric: () => ({ set: () => {} }),
      newLongestRunningProcessorSecondsMetric: () => ({ set: () => {} }),
    };
    const q = new PriorityQueue<string>({
      clock: new FakeClock(),
      name: 'plain',
      metricsProvider: provider,
    });
    q.addWithOpts({ priority: 7 }, 'a');
    q.addWithOpts({ priority: -3 }, 'b');
    q.addWithOpts({ priority: 9 }, 'b');
    expect(depth).toBe(2);
    await q.get();
    expect(depth).toBe(1);
    q.shutDown();
  });
});
