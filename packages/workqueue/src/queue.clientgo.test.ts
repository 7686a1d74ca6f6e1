// client-go's util/workqueue/queue_test.go, ported case by case: each test keeps the Go
// test's name, inputs and expectations. Goroutines become async loops that yield to the event
// loop where the Go test sleeps, so the interleaving is exercised without wall-clock time.
// Cases that cannot apply are listed in the README ("client-go tests not ported").

import { describe, expect, it } from 'vitest';
import { newQueue, type Queue, type WorkQueue } from './queue.js';

/** Lets every other pending task run: the Go tests' `time.Sleep` between steps. */
const yieldTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Whether `promise` has settled once the event loop has had a turn. */
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

/** The two ways the Go tables shut a queue down. */
const shutDowns: [string, (q: WorkQueue<unknown>) => unknown][] = [
  ['ShutDown', (q) => q.shutDown()],
  ['ShutDownWithDrain', (q) => q.shutDownWithDrain()],
];

describe('TestBasic', () => {
  it.each(shutDowns)('%s', async (_name, queueShutDown) => {
    const queue = newQueue<unknown>();
    const producers = Array.from({ length: 50 }, async (_, i) => {
      for (let j = 0; j < 50; j++) {
        queue.add(i);
        await yieldTurn();
      }
    });
    const gotAfterShutdown: unknown[] = [];
    const consumers = Array.from({ length: 10 }, async () => {
      for (;;) {
        const { item, shutdown } = await queue.get();
        if (item === 'added after shutdown!') gotAfterShutdown.push(item);
        if (shutdown) return;
        await yieldTurn();
        queue.done(item);
      }
    });
    await Promise.all(producers);
    const drained = queueShutDown(queue);
    queue.add('added after shutdown!');
    await Promise.all(consumers);
    await drained;
    expect(gotAfterShutdown).toEqual([]);
    expect(queue.len()).toBe(0);
  });
});

describe('TestAddWhileProcessing', () => {
  it.each(shutDowns)('%s', async (_name, queueShutDown) => {
    const queue = newQueue<unknown>();
    const producers = Array.from({ length: 50 }, async (_, i) => {
      queue.add(i);
    });
    const consumers = Array.from({ length: 10 }, async () => {
      // Every worker re-adds every item up to two times: the dirty-while-processing case.
      const counters = new Map<unknown, number>();
      for (;;) {
        const { item, shutdown } = await queue.get();
        if (shutdown) return;
        const count = (counters.get(item) ?? 0) + 1;
        counters.set(item, count);
        if (count < 2) queue.add(item);
        await yieldTurn();
        queue.done(item);
      }
    });
    await Promise.all(producers);
    const drained = queueShutDown(queue);
    await Promise.all(consumers);
    await drained;
    expect(queue.len()).toBe(0);
  });
});

it('TestLen', () => {
  const q = newQueue<string>();
  q.add('foo');
  expect(q.len()).toBe(1);
  q.add('bar');
  expect(q.len()).toBe(2);
  q.add('foo'); // no longer than before
  expect(q.len()).toBe(2);
});

/** Takes the next item, which must be there (the Go tests ignore the shutdown flag). */
async function take<T>(q: Queue<T>): Promise<T | undefined> {
  return (await q.get()).item;
}

/** Takes the next item, checks it is `expected`, and marks it done. */
async function takeDone(q: Queue<string>, expected: string): Promise<void> {
  expect(await take(q)).toBe(expected);
  q.done(expected);
}

it('TestReinsert', async () => {
  const q = newQueue<string>();
  q.add('foo');
  expect(await take(q)).toBe('foo');
  q.add('foo'); // back while processing
  q.done('foo');
  await takeDone(q, 'foo'); // it was queued again
  expect(q.len()).toBe(0);
});

it('TestCollapse', async () => {
  const q = newQueue<string>();
  q.add('bar');
  q.add('bar');
  await takeDone(q, 'bar');
  expect(q.len()).toBe(0);
});

it('TestCollapseWhileProcessing', async () => {
  const q = newQueue<string>();
  q.add('foo');
  expect(await take(q)).toBe('foo');
  q.add('foo');
  q.add('foo');
  // Another worker consuming the queue.
  const worker = (async () => {
    const i = await take(q);
    expect(i).toBe('foo');
    q.done('foo');
  })();
  expect(await settled(worker), 'worker should be blocked until we are done').toBe(false);
  q.done('foo');
  await worker;
  expect(q.len()).toBe(0);
});

/** The Go tests' start: "foo" and "bar" added and both handed out, in that order. */
async function twoInFlight(): Promise<{ q: Queue<string>; items: (string | undefined)[] }> {
  const q = newQueue<string>();
  q.add('foo');
  q.add('bar');
  return { q, items: [await take(q), await take(q)] };
}

/** Starts `shutDownWithDrain` and gets until the queue reports the shutdown. */
async function drainStarted(q: Queue<string>): Promise<{ finished: Promise<void> }> {
  const finished = q.shutDownWithDrain();
  let shuttingDown = false;
  while (!shuttingDown) shuttingDown = (await q.get()).shutdown;
  return { finished };
}

it('TestQueueDrainageUsingShutDownWithDrain', async () => {
  const { q, items } = await twoInFlight();
  const { finished } = await drainStarted(q);
  expect(await settled(finished)).toBe(false);
  for (const item of items) q.done(item as string);
  await finished;
});

it('TestNoQueueDrainageUsingShutDown', async () => {
  const { q } = await twoInFlight();
  // ShutDown returns at once, with both items still not done.
  expect(q.shutDown()).toBeUndefined();
  expect(q.shuttingDown()).toBe(true);
});

it('TestForceQueueShutdownUsingShutDown', async () => {
  const { q } = await twoInFlight();
  const { finished } = await drainStarted(q);
  // A second ShutDown (a second SIGTERM) forces the drain to end with nothing done.
  q.shutDown();
  await finished;
});

it('TestQueueDrainageUsingShutDownWithDrainWithDirtyItem', async () => {
  const q = newQueue<string>();
  q.add('foo');
  const gotten = await take(q);
  q.add('foo');
  const { finished } = await drainStarted(q);
  q.done(gotten as string);
  // Done put the dirty item back: the queue hands it out again.
  const again = await q.get();
  expect(again.shutdown).toBe(false);
  q.done(again.item as string);
  expect((await q.get()).shutdown).toBe(true);
  await finished;
});
