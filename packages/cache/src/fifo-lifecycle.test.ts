import { describe, expect, it } from 'vitest';
import { pod, type TestPod } from '../test/helpers.js';
import { DeltaFIFO } from './compat.js';
import { isFIFOClosedError } from './fifo-lifecycle.js';
import { RealFIFO } from './the-real-fifo.js';

const fifos = [
  { fifo: 'RealFIFO', make: () => new RealFIFO<TestPod>() },
  { fifo: 'DeltaFIFO', make: () => new DeltaFIFO<TestPod>() },
];

describe.each(fifos)('$fifo.whenItems', ({ make }) => {
  it('resolves at once when something is queued', async () => {
    const fifo = make();
    fifo.add(pod('a'));
    await expect(fifo.whenItems()).resolves.toBeUndefined();
  });

  it('waits for the next add; consumers waiting together share one promise', async () => {
    const fifo = make();
    const first = fifo.whenItems();
    const second = fifo.whenItems();
    expect(second).toBe(first);
    let woken = false;
    void first.then(() => {
      woken = true;
    });
    await Promise.resolve();
    expect(woken).toBe(false);
    fifo.add(pod('a'));
    await first;
    expect(woken).toBe(true);
    // The next wait is a new one: the promise of the last wake is spent.
    fifo.tryPop(() => undefined);
    expect(fifo.whenItems()).not.toBe(first);
  });

  it('rejects with FIFOClosedError once closed and empty, and wakes a waiting consumer', async () => {
    const fifo = make();
    const waiting = fifo.whenItems();
    fifo.close();
    await expect(waiting).resolves.toBeUndefined();
    const afterClose = await fifo.whenItems().then(
      () => 'resolved',
      (err: unknown) => (isFIFOClosedError(err) ? 'closed' : String(err)),
    );
    expect(afterClose).toBe('closed');
  });

  it('still resolves for what was queued before the close', async () => {
    const fifo = make();
    fifo.add(pod('a'));
    fifo.close();
    await expect(fifo.whenItems()).resolves.toBeUndefined();
  });
});
