// client-go's util/workqueue/delaying_queue_test.go, ported case by case: each test keeps the
// Go test's name, inputs and expectations. `addAfter` files an item synchronously and the fake
// clock fires due timers inside `step`, so the Go helpers that poll (`waitForAdded`,
// `waitForWaitingQueueToFill`) become direct checks.

import { FakeClock } from '@kubets/apimachinery/testing';
import { expect, it } from 'vitest';
import { newDelayingQueue } from './delaying-queue.js';

/**
 * One step of a Go test: `addAfter` an item, move the fake clock, check `len()` (the Go
 * `waitForAdded`), or `get` an item (and mark it done when `done` is set).
 */
type Step =
  | { addAfter: string; ms: number }
  | { step: number }
  | { len: number }
  | { get: string; done?: boolean };

async function play(steps: Step[]): Promise<void> {
  const fakeClock = new FakeClock(Date.parse('2024-01-01T00:00:00Z'));
  const q = newDelayingQueue<string>({ clock: fakeClock });
  for (const [i, step] of steps.entries()) {
    if ('addAfter' in step) q.addAfter(step.addAfter, step.ms);
    else if ('step' in step) fakeClock.step(step.step);
    else if ('len' in step) expect(q.len(), `step ${i}`).toBe(step.len);
    else {
      const { item } = await q.get();
      expect(item, `step ${i}`).toBe(step.get);
      if (step.done) q.done(step.get);
    }
  }
}

const add = (item: string, ms: number): Step => ({ addAfter: item, ms });
const step = (ms: number): Step => ({ step: ms });
const len = (n: number): Step => ({ len: n });
const get = (item: string): Step => ({ get: item });
const getDone = (item: string): Step => ({ get: item, done: true });

it('TestSimpleQueue', async () => {
  // The last step goes past the next heartbeat: nothing more arrives.
  await play([add('foo', 50), len(0), step(60), len(1), getDone('foo'), step(10_000), len(0)]);
});

it('TestDeduping', async () => {
  await play([
    ...[add('foo', 50), add('foo', 70), len(0)],
    // Past the first ready time the item arrives, once, and not again at the second.
    ...[step(60), len(1), getDone('foo'), step(20), len(0)],
    // Again, but this time the earlier ready time overrides.
    ...[add('foo', 50), add('foo', 30), len(0)],
    ...[step(40), len(1), getDone('foo'), step(20), len(0)],
  ]);
});

it('TestAddTwoFireEarly', async () => {
  await play([
    ...[add('foo', 1000), add('bar', 50), len(0)],
    ...[step(60), len(1), get('bar')],
    add('baz', 2000),
    ...[step(1000), len(1), get('foo')],
    ...[step(2000), len(1), get('baz')],
  ]);
});

it('TestCopyShifting', async () => {
  await play([
    ...[add('foo', 1000), add('bar', 500), add('baz', 250), len(0)],
    ...[step(2000), len(3), get('baz'), get('bar'), get('foo')],
  ]);
});
