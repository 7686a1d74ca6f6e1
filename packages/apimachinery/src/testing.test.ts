import { describe, expect, it } from 'vitest';
import { FakeClock } from './testing.js';

describe('FakeClock', () => {
  it('stands still until stepped', () => {
    const clock = new FakeClock(1000);
    expect(clock.now()).toBe(1000);
    clock.step(250);
    expect(clock.now()).toBe(1250);
  });

  it('fires due timers in due-time order, ties in creation order, each at its due time', () => {
    const clock = new FakeClock();
    const fired: [string, number][] = [];
    clock.setTimeout(() => fired.push(['c', clock.now()]), 30);
    clock.setTimeout(() => fired.push(['a', clock.now()]), 10);
    clock.setTimeout(() => fired.push(['b1', clock.now()]), 20);
    clock.setTimeout(() => fired.push(['b2', clock.now()]), 20);
    clock.setTimeout(() => fired.push(['late', clock.now()]), 31);
    clock.step(30);
    expect(fired).toEqual([
      ['a', 10],
      ['b1', 20],
      ['b2', 20],
      ['c', 30],
    ]);
    expect(clock.now()).toBe(30);
    expect(clock.pending).toBe(1);
    expect(clock.nextDue()).toBe(31);
  });

  it('fires timers set by callbacks during the same step when they fall inside it', () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    clock.setTimeout(() => {
      fired.push(clock.now());
      clock.setTimeout(() => fired.push(clock.now()), 5);
      clock.setTimeout(() => fired.push(clock.now()), 50);
    }, 10);
    clock.step(20);
    expect(fired).toEqual([10, 15]);
    expect(clock.pending).toBe(1);
  });

  it('does not fire cancelled timers and counts only pending ones', () => {
    const clock = new FakeClock();
    let fired = false;
    const t = clock.setTimeout(() => {
      fired = true;
    }, 10);
    expect(clock.pending).toBe(1);
    t.cancel();
    t.cancel();
    expect(clock.pending).toBe(0);
    expect(clock.nextDue()).toBeUndefined();
    clock.step(100);
    expect(fired).toBe(false);
  });

  it('treats negative and NaN delays as zero and never schedules Infinity', () => {
    const clock = new FakeClock();
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('neg'), -5);
    clock.setTimeout(() => fired.push('nan'), Number.NaN);
    clock.setTimeout(() => fired.push('inf'), Number.POSITIVE_INFINITY);
    expect(clock.pending).toBe(2);
    expect(fired).toEqual([]);
    clock.step(0);
    expect(fired).toEqual(['neg', 'nan']);
  });

  it('rejects negative steps', async () => {
    const clock = new FakeClock();
    expect(() => clock.step(-1)).toThrow(RangeError);
    await expect(clock.advance(-1)).rejects.toThrow(RangeError);
  });

  it('advance lets promise chains woken by a timer run before the next timer', async () => {
    const clock = new FakeClock();
    const log: string[] = [];
    let wake: () => void = () => {};
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    void woken.then(() => log.push(`continuation@${clock.now()}`));
    clock.setTimeout(() => {
      log.push('timer1');
      wake();
    }, 10);
    clock.setTimeout(() => log.push('timer2'), 20);
    await clock.advance(30);
    expect(log).toEqual(['timer1', 'continuation@10', 'timer2']);
    expect(clock.now()).toBe(30);
  });

  it('wakes sleepers in time order when stepped', async () => {
    const clock = new FakeClock(100);
    const woken: string[] = [];
    void clock.sleep(300).then(() => woken.push(`late@${clock.now()}`));
    void clock.sleep(100).then(() => woken.push(`early@${clock.now()}`));
    clock.step(99);
    await new Promise(setImmediate);
    expect(woken).toEqual([]);
    clock.step(500);
    await new Promise(setImmediate);
    expect(woken).toEqual(['early@699', 'late@699']);
    expect(clock.now()).toBe(699);
    expect(clock.requestedSleeps).toEqual([300, 100]);
  });

  it('forgets aborted sleepers', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const sleeping = clock.sleep(10, controller.signal);
    expect(clock.pending).toBe(1);
    controller.abort(new Error('no'));
    await expect(sleeping).rejects.toThrow('no');
    expect(clock.pending).toBe(0);
  });
});
