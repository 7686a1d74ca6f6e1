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
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('zero', 0);
    q.addAfter('negative', -10);
    q.addAfter('nan', Number.NaN);
    expect(q.len()).toBe(3);
    expect(clock.pending).toBe(0);
  });

  it('hands items out earliest ready time first, whatever the order of addAfter', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('c', 300);
    q.addAfter('a', 100);
    q.addAfter('d', 400);
    q.addAfter('b', 200);
    clock.step(1000);
    expect(await takeAll(q)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('uses a single timer, re-armed to the earliest waiting item', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('late', 500);
    expect(clock.pending).toBe(1);
    expect(clock.nextDue()).toBe(500);
    q.addAfter('later', 800);
    expect(clock.pending).toBe(1);
    expect(clock.nextDue()).toBe(500);
    q.addAfter('early', 50);
    expect(clock.pending).toBe(1);
    expect(clock.nextDue()).toBe(50);
    clock.step(50);
    expect(q.len()).toBe(1);
    expect(clock.nextDue()).toBe(500);
    clock.step(450);
    expect(q.len()).toBe(2);
    expect(clock.nextDue()).toBe(800);
    clock.step(300);
    expect(q.len()).toBe(3);
    expect(clock.pending).toBe(0);
  });

  it('keeps the earliest ready time for a duplicate item', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
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

  it('moves a duplicate ahead of other waiting items when its new time is earlier', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('x', 100);
    q.addAfter('y', 200);
    q.addAfter('z', 300);
    q.addAfter('z', 50);
    clock.step(300);
    expect(await takeAll(q)).toEqual(['z', 'x', 'y']);
  });

  it('adds every item that became ready by the time the timer fires', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<number>({ clock });
    for (let i = 0; i < 50; i++) q.addAfter(i, 10 + (i % 5));
    clock.step(14);
    expect(q.len()).toBe(50);
    expect(q.waitingLen()).toBe(0);
    const order = await takeAll(q);
    // Earliest ready time first, ties in the order they were added.
    expect(order.slice(0, 10)).toEqual([0, 5, 10, 15, 20, 25, 30, 35, 40, 45]);
  });

  it('wakes a waiting get when the delay passes', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    const got = q.get();
    q.addAfter('a', 1000);
    await clock.advance(1000);
    expect(await got).toEqual({ item: 'a', shutdown: false });
  });

  it('an item waiting and added directly is handed out now and again when its delay passes', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('a', 100);
    q.add('a');
    expect(await take(q)).toBe('a');
    q.done('a');
    clock.step(100);
    expect(await take(q)).toBe('a');
  });

  it('leaves no timer behind after shutDown and ignores addAfter afterwards', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
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
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('a', 100);
    await q.shutDownWithDrain();
    expect(clock.pending).toBe(0);
  });

  it('keeps an item with an infinite delay waiting without arming a timer', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('never', Number.POSITIVE_INFINITY);
    expect(q.waitingLen()).toBe(1);
    expect(clock.pending).toBe(0);
    q.addAfter('never', 10);
    expect(clock.pending).toBe(1);
    clock.step(10);
    expect(q.len()).toBe(1);
  });
});
