import { FakeClock } from '@kubets/apimachinery/testing';
import { describe, expect, it } from 'vitest';
import { DelayingQueue, newDelayingQueue } from './delaying-queue.js';
import type { Queue } from './queue.js';

async function take<T>(queue: Queue<T>): Promise<T> {
  const result = await queue.get();
  if (result.shutdown) throw new Error('unexpected shutdown');
  return result.item;
}

async function takeAll<T>(queue: Queue<T>): Promise<T[]> {
  const out: T[] = [];
  while (queue.len() > 0) out.push(await take(queue));
  return out;
}

/** A delaying queue driven by a fake clock of its own. */
function onFakeClock<T = string>(): { clock: FakeClock; q: DelayingQueue<T> } {
  const clock = new FakeClock();
  return { clock, q: new DelayingQueue<T>({ clock }) };
}

/** Items added with delays, the clock stepped once, and the order they come out in. */
interface OrderCase {
  name: string;
  adds: [item: string, delay: number][];
  stepMs: number;
  order: string[];
}

describe('DelayingQueue', () => {
  it('adds the item once its delay has passed, not before', () => {
    const clock = new FakeClock();
    const q = newDelayingQueue<string>({ clock });
    q.addAfter('a', 100);
    expect(q.len()).toBe(0);
    expect(q.waitingLen()).toBe(1);
    clock.step(99);
    expect(q.len()).toBe(0);
    clock.step(1);
    expect(q.len()).toBe(1);
    expect(q.waitingLen()).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it('adds at once for a delay of zero, a negative delay or NaN', () => {
    const { clock, q } = onFakeClock();
    q.addAfter('zero', 0);
    q.addAfter('negative', -10);
    q.addAfter('nan', Number.NaN);
    expect(q.len()).toBe(3);
    expect(clock.pending).toBe(0);
  });

  it.each<OrderCase>([
    {
      name: 'hands items out earliest ready time first, whatever the order of addAfter',
      adds: [
        ['c', 300],
        ['a', 100],
        ['d', 400],
        ['b', 200],
      ],
      stepMs: 1000,
      order: ['a', 'b', 'c', 'd'],
    },
    {
      name: 'moves a duplicate ahead of other waiting items when its new time is earlier',
      adds: [
        ['x', 100],
        ['y', 200],
        ['z', 300],
        ['z', 50],
      ],
      stepMs: 300,
      order: ['z', 'x', 'y'],
    },
  ])('$name', async ({ adds, stepMs, order }) => {
    const { clock, q } = onFakeClock();
    for (const [item, delay] of adds) q.addAfter(item, delay);
    clock.step(stepMs);
    expect(await takeAll(q)).toEqual(order);
  });

  it('uses a single timer, re-armed to the earliest waiting item', () => {
    const { clock, q } = onFakeClock();
    const adds: [item: string, delay: number, nextDue: number][] = [
      ['late', 500, 500],
      ['later', 800, 500],
      ['early', 50, 50],
    ];
    for (const [item, delay, nextDue] of adds) {
      q.addAfter(item, delay);
      expect(clock.pending).toBe(1);
      expect(clock.nextDue()).toBe(nextDue);
    }
    const steps: [ms: number, len: number, nextDue: number][] = [
      [50, 1, 500],
      [450, 2, 800],
    ];
    for (const [ms, len, nextDue] of steps) {
      clock.step(ms);
      expect(q.len()).toBe(len);
      expect(clock.nextDue()).toBe(nextDue);
    }
    clock.step(300);
    expect(q.len()).toBe(3);
    expect(clock.pending).toBe(0);
  });

  it('keeps the earliest ready time for a duplicate item', () => {
    const { clock, q } = onFakeClock();
    q.addAfter('a', 100);
    q.addAfter('a', 500); // later: ignored
    expect(q.waitingLen()).toBe(1);
    clock.step(100);
    expect(q.len()).toBe(1);
    clock.step(1000);
    expect(q.len()).toBe(1);

    q.addAfter('b', 500);
    q.addAfter('b', 50); // earlier: wins
    expect(q.waitingLen()).toBe(1);
    expect(clock.nextDue()).toBe(clock.now() + 50);
    clock.step(50);
    expect(q.len()).toBe(2);
    clock.step(1000);
    expect(q.len()).toBe(2);
  });

  it('adds every item that became ready by the time the timer fires', async () => {
    const { clock, q } = onFakeClock<number>();
    for (let i = 0; i < 50; i++) q.addAfter(i, 10 + (i % 5));
    clock.step(14);
    expect(q.len()).toBe(50);
    expect(q.waitingLen()).toBe(0);
    const order = await takeAll(q);
    // Earliest ready time first, ties in the order they were added.
    expect(order.slice(0, 10)).toEqual([0, 5, 10, 15, 20, 25, 30, 35, 40, 45]);
  });

  it('wakes a waiting get when the delay passes', async () => {
    const { clock, q } = onFakeClock();
    const got = q.get();
    q.addAfter('a', 1000);
    await clock.advance(1000);
    expect(await got).toEqual({ item: 'a', shutdown: false });
  });

  it('an item waiting and added directly is handed out now and again when its delay passes', async () => {
    const { clock, q } = onFakeClock();
    q.addAfter('a', 100);
    q.add('a');
    expect(await take(q)).toBe('a');
    q.done('a');
    clock.step(100);
    expect(await take(q)).toBe('a');
  });

  it('leaves no timer behind after shutDown and ignores addAfter afterwards', () => {
    const { clock, q } = onFakeClock();
    q.addAfter('a', 100);
    q.addAfter('b', 200);
    expect(clock.pending).toBe(1);
    q.shutDown();
    expect(clock.pending).toBe(0);
    expect(q.waitingLen()).toBe(0);
    q.addAfter('c', 10);
    q.addAfter('d', 0);
    expect(clock.pending).toBe(0);
    clock.step(1000);
    expect(q.len()).toBe(0);
  });

  it('leaves no timer behind after shutDownWithDrain', async () => {
    const { clock, q } = onFakeClock();
    q.addAfter('a', 100);
    await q.shutDownWithDrain();
    expect(clock.pending).toBe(0);
  });

  it('keeps an item with an infinite delay waiting without arming a timer', () => {
    const { clock, q } = onFakeClock();
    q.addAfter('never', Number.POSITIVE_INFINITY);
    expect(q.waitingLen()).toBe(1);
    expect(clock.pending).toBe(0);
    q.addAfter('never', 10);
    expect(clock.pending).toBe(1);
    clock.step(10);
    expect(q.len()).toBe(1);
  });
});
