import { getEventListeners } from 'node:events';
import { seededRandom } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { type GetResult, newQueue, Queue } from './queue.js';

/** Lets every pending promise callback run (a macrotask turn). */
function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Tracks whether a promise has settled, without awaiting it. */
function track<T>(promise: Promise<T>): { settled: () => boolean; value: () => T | undefined } {
  let settled = false;
  let value: T | undefined;
  promise.then(
    (v) => {
      settled = true;
      value = v;
    },
    () => {
      settled = true;
    },
  );
  return { settled: () => settled, value: () => value };
}

/** Adds `items` one after the other. */
function addAll<T>(queue: Queue<T>, ...items: T[]): void {
  for (const item of items) queue.add(item);
}

async function take<T>(queue: Queue<T>): Promise<T> {
  const result = await queue.get();
  if (result.shutdown) throw new Error('unexpected shutdown');
  return result.item;
}

describe('Queue: FIFO and deduplication', () => {
  it('hands items out in the order they were added', async () => {
    const q = newQueue<string>();
    addAll(q, 'a', 'b', 'c');
    expect(q.len()).toBe(3);
    expect(await take(q)).toBe('a');
    expect(await take(q)).toBe('b');
    expect(await take(q)).toBe('c');
    expect(q.len()).toBe(0);
  });

  it('collapses adds of an item that is already waiting, keeping its first position', async () => {
    const q = new Queue<string>();
    addAll(q, 'a', 'b', 'a', 'a');
    expect(q.len()).toBe(2);
    expect(await take(q)).toBe('a');
    expect(await take(q)).toBe('b');
    expect(q.len()).toBe(0);
  });

  it('compares strings by value and objects by identity', async () => {
    const q = new Queue<string | { key: string }>();
    q.add(['default', 'web'].join('/'));
    q.add('default/web');
    expect(q.len()).toBe(1);
    const o1 = { key: 'x' };
    const o2 = { key: 'x' };
    addAll(q, o1, o2, o1);
    expect(q.len()).toBe(3);
  });

  it('grows past its initial ring buffer without losing order', async () => {
    const q = new Queue<number>();
    for (let i = 0; i < 5; i++) q.add(i);
    for (let i = 0; i < 3; i++) expect(await take(q)).toBe(i);
    for (let i = 5; i < 100; i++) q.add(i);
    for (let i = 3; i < 100; i++) expect(await take(q)).toBe(i);
  });
});

describe('Queue: processing', () => {
  it('never hands an item that is being processed to a second get', async () => {
    const q = new Queue<string>();
    q.add('a');
    expect(await take(q)).toBe('a');
    q.add('a');
    expect(q.len()).toBe(0);
    const second = track(q.get());
    await flush();
    expect(second.settled()).toBe(false);
    q.done('a');
    await flush();
    expect(second.value()).toEqual({ item: 'a', shutdown: false });
  });

  it('queues an item added while processing again at done, once', async () => {
    const q = new Queue<string>();
    q.add('a');
    await take(q);
    addAll(q, 'a', 'a', 'b');
    expect(q.len()).toBe(1);
    q.done('a');
    expect(q.len()).toBe(2);
    expect(await take(q)).toBe('b');
    expect(await take(q)).toBe('a');
    q.done('a');
    expect(q.len()).toBe(0);
  });

  it('does not queue an item again at done when it was not re-added', async () => {
    const q = new Queue<string>();
    q.add('a');
    await take(q);
    q.done('a');
    expect(q.len()).toBe(0);
  });

  it('ignores done for an item that is not being processed', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.done('a');
    q.done('zzz');
    expect(q.len()).toBe(1);
    expect(await take(q)).toBe('a');
    expect(q.len()).toBe(0);
  });
});

describe('Queue: get waits', () => {
  it('waits without an item and is resolved by add, waiters in FIFO order', async () => {
    const q = new Queue<string>();
    const first = track(q.get());
    const second = track(q.get());
    await flush();
    expect(first.settled()).toBe(false);
    expect(second.settled()).toBe(false);
    q.add('a');
    await flush();
    expect(first.value()).toEqual({ item: 'a', shutdown: false });
    expect(second.settled()).toBe(false);
    expect(q.len()).toBe(0);
    q.add('b');
    await flush();
    expect(second.value()).toEqual({ item: 'b', shutdown: false });
  });

  it('moves the item to processing as it wakes a waiter, so a later get cannot take it', async () => {
    const q = new Queue<string>();
    const waiting = q.get();
    q.add('a');
    // Synchronously after add: the item already belongs to the waiter.
    expect(q.len()).toBe(0);
    q.add('a'); // dirty while processing: not queued
    expect(q.len()).toBe(0);
    expect(await waiting).toEqual({ item: 'a', shutdown: false });
  });

  it('rejects with the abort reason and leaves no waiter behind', async () => {
    const q = new Queue<string>();
    const controller = new AbortController();
    const aborted = q.get(controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    // Had the aborted waiter stayed, it would swallow this item.
    q.add('a');
    expect(q.len()).toBe(1);
    expect(await take(q)).toBe('a');
  });

  it('removes an aborted waiter from the middle of the line', async () => {
    const q = new Queue<string>();
    const first = track(q.get());
    const controller = new AbortController();
    const middle = q.get(controller.signal);
    const last = track(q.get());
    controller.abort();
    await expect(middle).rejects.toBeInstanceOf(DOMException);
    addAll(q, 'a', 'b');
    await flush();
    expect(first.value()?.item).toBe('a');
    expect(last.value()?.item).toBe('b');
  });

  it('rejects at once when the signal is already aborted, taking nothing', async () => {
    const q = new Queue<string>();
    q.add('a');
    const reason = new Error('already');
    await expect(q.get(AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(q.len()).toBe(1);
  });

  it('removes its abort listener when it gets an item', async () => {
    const q = new Queue<string>();
    const controller = new AbortController();
    const pending = q.get(controller.signal);
    q.add('a');
    expect(await pending).toEqual({ item: 'a', shutdown: false });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    controller.abort(); // too late to matter
    expect(q.len()).toBe(0);
    q.done('a');
  });
});

describe('Queue: shutdown', () => {
  it('wakes waiting gets with shutdown', async () => {
    const q = new Queue<string>();
    const controller = new AbortController();
    const a = q.get(controller.signal);
    const b = q.get();
    expect(q.shuttingDown()).toBe(false);
    q.shutDown();
    expect(q.shuttingDown()).toBe(true);
    expect(await a).toEqual({ item: undefined, shutdown: true });
    expect(await b).toEqual({ item: undefined, shutdown: true });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('still hands out queued items after shutDown, then reports shutdown', async () => {
    const q = new Queue<string>();
    addAll(q, 'a', 'b');
    q.shutDown();
    expect(await q.get()).toEqual({ item: 'a', shutdown: false });
    expect(await q.get()).toEqual({ item: 'b', shutdown: false });
    const end: GetResult<string> = await q.get();
    expect(end.shutdown).toBe(true);
    expect(end.item).toBeUndefined();
  });

  it('ignores adds after shutdown', async () => {
    const q = new Queue<string>();
    q.shutDown();
    q.add('a');
    expect(q.len()).toBe(0);
    expect((await q.get()).shutdown).toBe(true);
  });

  it('queues an item re-added before shutdown again at done after shutdown', async () => {
    const q = new Queue<string>();
    q.add('a');
    await take(q);
    q.add('a');
    q.shutDown();
    q.done('a');
    expect(await q.get()).toEqual({ item: 'a', shutdown: false });
    q.done('a');
    expect((await q.get()).shutdown).toBe(true);
  });

  it('shutDownWithDrain waits for an in-flight item', async () => {
    const q = new Queue<string>();
    addAll(q, 'a', 'b');
    await take(q);
    await take(q);
    const drained = track(q.shutDownWithDrain());
    expect(q.shuttingDown()).toBe(true);
    await flush();
    expect(drained.settled()).toBe(false);
    q.done('a');
    await flush();
    expect(drained.settled()).toBe(false);
    q.done('b');
    await flush();
    expect(drained.settled()).toBe(true);
  });

  it('shutDownWithDrain resolves at once with nothing in flight, even with items queued', async () => {
    const q = new Queue<string>();
    q.add('a');
    await q.shutDownWithDrain();
    expect(await q.get()).toEqual({ item: 'a', shutdown: false });
  });

  it('shutDown releases a shutDownWithDrain that is still waiting', async () => {
    const q = new Queue<string>();
    q.add('a');
    await take(q);
    const drained = track(q.shutDownWithDrain());
    await flush();
    expect(drained.settled()).toBe(false);
    q.shutDown();
    await flush();
    expect(drained.settled()).toBe(true);
  });

  it('shutDownWithDrain rejects when its signal aborts, and the queue stays shut down', async () => {
    const q = new Queue<string>();
    q.add('a');
    await take(q);
    const controller = new AbortController();
    const drained = q.shutDownWithDrain(controller.signal);
    const reason = new Error('gave up');
    controller.abort(reason);
    await expect(drained).rejects.toBe(reason);
    expect(q.shuttingDown()).toBe(true);
    // A later drain still works.
    const again = track(q.shutDownWithDrain());
    q.done('a');
    await flush();
    expect(again.settled()).toBe(true);
    await expect(q.shutDownWithDrain(AbortSignal.abort())).resolves.toBeUndefined();
  });
});

async function yieldTimes(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
}

describe('Queue: concurrent workers', () => {
  it.each([1, 2, 3])(
    '8 async workers over 10,000 adds of 100 keys never overlap on a key and lose no final add (seed %i)',
    async (seed) => {
      const random = seededRandom(seed);
      const q = new Queue<string>();
      const keys = Array.from({ length: 100 }, (_, i) => `ns/key-${i}`);
      const version = new Map<string, number>(); // the "cache": latest version of each key
      const lastAddSeq = new Map<string, number>();
      const lastProcessStartSeq = new Map<string, number>();
      const lastProcessedVersion = new Map<string, number>();
      const inFlight = new Set<string>();
      let seq = 0;
      let overlaps = 0;
      let maxConcurrent = 0;
      let processed = 0;

      const worker = async (): Promise<void> => {
        for (;;) {
          const result = await q.get();
          if (result.shutdown) return;
          const key = result.item;
          if (inFlight.has(key)) overlaps++;
          inFlight.add(key);
          maxConcurrent = Math.max(maxConcurrent, inFlight.size);
          // Read the state at the start of processing, as a controller reads its cache.
          lastProcessStartSeq.set(key, seq++);
          const seen = version.get(key) ?? 0;
          await yieldTimes(Math.floor(random() * 8));
          lastProcessedVersion.set(key, seen);
          processed++;
          inFlight.delete(key);
          q.done(key);
        }
      };

      const workers = Array.from({ length: 8 }, () => worker());
      for (let i = 0; i < 10_000; i++) {
        const key = keys[Math.floor(random() * keys.length)] as string;
        version.set(key, (version.get(key) ?? 0) + 1);
        lastAddSeq.set(key, seq++);
        q.add(key);
        if (random() < 0.3) await yieldTimes(Math.floor(random() * 4));
      }
      await q.shutDownWithDrain();
      await Promise.all(workers);

      expect(overlaps).toBe(0);
      expect(maxConcurrent).toBeGreaterThan(1); // the workers really ran concurrently
      expect(processed).toBeLessThan(10_000); // and duplicates collapsed
      expect(q.len()).toBe(0);
      for (const key of version.keys()) {
        expect(lastProcessStartSeq.get(key)).toBeGreaterThan(lastAddSeq.get(key) as number);
        expect(lastProcessedVersion.get(key)).toBe(version.get(key));
      }
    },
  );
});
