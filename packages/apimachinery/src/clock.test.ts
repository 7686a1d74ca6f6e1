import { afterEach, describe, expect, it, vi } from 'vitest';
import { expectResolvesAfter } from '../test/timers.js';
import { realClock, sleep } from './clock.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('sleep', () => {
  it('resolves after the delay and leaves no timer', async () => {
    vi.useFakeTimers();
    await expectResolvesAfter(sleep(100), 100);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with the abort reason and clears its timer', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const sleeping = sleep(10_000, controller.signal);
    expect(vi.getTimerCount()).toBe(1);
    const reason = new Error('stopping');
    controller.abort(reason);
    await expect(sleeping).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects at once for an already aborted signal, starting no timer', async () => {
    vi.useFakeTimers();
    const signal = AbortSignal.abort('gone');
    await expect(sleep(10, signal)).rejects.toBe('gone');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('removes its abort listener once it resolves', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const addListener = vi.spyOn(controller.signal, 'addEventListener');
    const removeListener = vi.spyOn(controller.signal, 'removeEventListener');
    const sleeping = sleep(5, controller.signal);
    await vi.advanceTimersByTimeAsync(5);
    await sleeping;
    expect(removeListener).toHaveBeenCalledTimes(1);
    expect(removeListener.mock.calls[0]?.[0]).toBe('abort');
    expect(removeListener.mock.calls[0]?.[1]).toBe(addListener.mock.calls[0]?.[1]);
    // Aborting afterwards has no effect on the settled promise.
    controller.abort();
    await expect(sleeping).resolves.toBeUndefined();
  });
});

describe('realClock', () => {
  it('reads a monotonic clock', () => {
    const a = realClock.now();
    const b = realClock.now();
    expect(b).toBeGreaterThanOrEqual(a);
  });

  it('runs a timer and cancels another', async () => {
    const fired: string[] = [];
    await new Promise<void>((resolve) => {
      const cancelled = realClock.setTimeout(() => fired.push('cancelled'), 0);
      cancelled.cancel();
      realClock.setTimeout(() => {
        fired.push('ran');
        resolve();
      }, 1);
    });
    expect(fired).toEqual(['ran']);
  });

  it('never fires an Infinity timer, and unref is available', () => {
    const t = realClock.setTimeout(() => {
      throw new Error('must not fire');
    }, Number.POSITIVE_INFINITY);
    t.unref?.();
    t.cancel();
  });

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
