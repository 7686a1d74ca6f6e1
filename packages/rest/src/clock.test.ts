import { nextTurn } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { FakeClock, realClock } from './clock.js';

describe('realClock', () => {
  it('sleeps and can be woken early by aborting', async () => {
    const started = performance.now();
    await realClock.sleep(20);
    expect(realClock.now() - started).toBeGreaterThanOrEqual(15);
    const controller = new AbortController();
    const sleeping = realClock.sleep(60_000, controller.signal);
    controller.abort(new Error('woken'));
    await expect(sleeping).rejects.toThrow('woken');
  });
});

describe('FakeClock', () => {
  it('wakes sleepers in time order when stepped', async () => {
    const clock = new FakeClock(100);
    const woken: string[] = [];
    void clock.sleep(300).then(() => woken.push(`late@${clock.now()}`));
    void clock.sleep(100).then(() => woken.push(`early@${clock.now()}`));
    clock.step(99);
    await nextTurn();
    expect(woken).toEqual([]);
    clock.step(500);
    await nextTurn();
    expect(woken).toEqual(['early@699', 'late@699']);
    expect(clock.now()).toBe(699);
    expect(clock.requestedSleeps).toEqual([300, 100]);
  });

  it('forgets aborted sleepers', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const sleeping = clock.sleep(10, controller.signal);
    expect(clock.pendingSleeps).toBe(1);
    controller.abort(new Error('no'));
    await expect(sleeping).rejects.toThrow('no');
    expect(clock.pendingSleeps).toBe(0);
  });
});
