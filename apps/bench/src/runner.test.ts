import { describe, expect, it } from 'vitest';
import { generationLabel, generationValue } from './fixture.ts';
import { Counters } from './runner.ts';

const pod = (generation: string, pass = 0) => ({
  metadata: { labels: { [generationLabel]: generationValue(generation, pass) } },
});

describe('Counters', () => {
  it('counts only the patch round, and nothing after its window closed', async () => {
    const counters = new Counters(2);
    counters.updated(pod('g1')); // before the patch round: not counted
    const window = counters.expectUpdates('g1', 2);
    counters.updated(pod('g0')); // another generation: not counted
    for (let i = 0; i < 2; i++) {
      counters.updated(pod('g1'));
      counters.worked(true, true);
    }
    const { cpuSeconds } = await window;
    expect(cpuSeconds).toBeGreaterThanOrEqual(0);
    expect(counters.updates).toBe(2);
    // A relist that hands every object to the handler again is not part of the window.
    counters.updated(pod('g1'));
    counters.updateSeen();
    expect(counters.updates).toBe(2);
  });

  it('counts every pass of a round with several updates per Pod, and no other round', async () => {
    const counters = new Counters(2);
    const window = counters.expectUpdates('g1', 4);
    counters.updated(pod('g10')); // a generation whose name starts the same: not counted
    counters.updated({ metadata: { labels: { [generationLabel]: 'g1' } } }); // no pass
    for (const pass of [0, 1]) {
      for (let i = 0; i < 2; i++) {
        counters.updated(pod('g1', pass));
        counters.worked(true, true);
      }
    }
    await window;
    expect(counters.updates).toBe(4);
  });

  it('closes the window only once the queue is empty', async () => {
    const counters = new Counters(1);
    let closed = false;
    const window = counters.expectUpdates('g1', 1).then(() => {
      closed = true;
    });
    counters.updated(pod('g1'));
    counters.worked(false, true);
    await Promise.resolve();
    expect(closed).toBe(false);
    counters.worked(true, true);
    await window;
    expect(closed).toBe(true);
  });

  it('serves runners without a queue: every event handled, unchecked updates for the floor', async () => {
    const counters = new Counters(3);
    for (let i = 0; i < 3; i++) {
      counters.added();
      counters.handled();
    }
    await counters.initialWorked();
    counters.updateSeen(); // before the patch round: not counted
    const window = counters.expectUpdates('g1', 3);
    for (let i = 0; i < 3; i++) {
      counters.updateSeen();
      counters.handled();
    }
    await window;
    expect(counters.updates).toBe(3);
    expect(counters.misses).toBe(0);
  });
});
