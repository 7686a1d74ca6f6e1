import { afterEach, describe, expect, it, vi } from 'vitest';
import { expectResolvesAfter } from '../test/timers.js';
import { Backoff, ExponentialBackoffManager, jitter } from './backoff.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('jitter', () => {
  it('adds up to maxFactor × duration', () => {
    expect(jitter(1000, 0.5, () => 0)).toBe(1000);
    expect(jitter(1000, 0.5, () => 0.5)).toBe(1250);
    expect(jitter(1000, 0.5, () => 0.999)).toBeCloseTo(1499.5);
  });

  it('treats a maxFactor of zero or less as 1.0', () => {
    expect(jitter(1000, 0, () => 0.5)).toBe(1500);
    expect(jitter(1000, -3, () => 0.5)).toBe(1500);
  });

  it('stays within bounds with Math.random', () => {
    for (let i = 0; i < 100; i++) {
      const value = jitter(100, 1);
      expect(value).toBeGreaterThanOrEqual(100);
      expect(value).toBeLessThan(200);
    }
  });
});

describe('Backoff', () => {
  it('grows by factor for the given steps, then stays', () => {
    const backoff = new Backoff({ duration: 10, factor: 2, steps: 3 });
    expect([1, 2, 3, 4, 5].map(() => backoff.step())).toEqual([10, 20, 40, 80, 80]);
  });

  it('stops at the cap and stops growing there', () => {
    const backoff = new Backoff({ duration: 100, factor: 3, steps: 10, cap: 500 });
    expect([1, 2, 3, 4].map(() => backoff.step())).toEqual([100, 300, 500, 500]);
    expect(backoff.steps).toBe(0);
  });

  it('keeps a constant delay with factor 0 or default options', () => {
    const constant = new Backoff({ duration: 50, factor: 0, steps: 3 });
    expect([1, 2, 3, 4].map(() => constant.step())).toEqual([50, 50, 50, 50]);
    const defaults = new Backoff({ duration: 7 });
    expect([defaults.step(), defaults.step()]).toEqual([7, 7]);
  });

  it('jitters every step, including after the steps run out', () => {
    const backoff = new Backoff({
      duration: 100,
      factor: 2,
      steps: 1,
      jitter: 0.5,
      random: () => 1,
    });
    expect(backoff.step()).toBe(150);
    expect(backoff.step()).toBe(300);
    expect(backoff.step()).toBe(300);
  });

  it('rejects a negative duration', () => {
    expect(() => new Backoff({ duration: -1 })).toThrow(RangeError);
    expect(() => new Backoff({ duration: Number.NaN })).toThrow(RangeError);
  });
});

describe('ExponentialBackoffManager', () => {
  function manager(random = () => 0) {
    let now = 0;
    const clock = {
      advance(ms: number) {
        now += ms;
      },
    };
    const backoff = new ExponentialBackoffManager({ now: () => now, random });
    return { backoff, clock };
  }

  it('uses the reflector defaults: 800 ms doubling, capped at 30 s', () => {
    const { backoff } = manager();
    const delays = Array.from({ length: 9 }, () => backoff.next());
    expect(delays).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000]);
  });

  it('applies jitter 1.0', () => {
    const { backoff } = manager(() => 0.5);
    expect(backoff.next()).toBe(1200);
    expect(backoff.next()).toBe(2400);
  });

  it('starts over after 2 minutes without backoff', () => {
    const { backoff, clock } = manager();
    backoff.next();
    backoff.next();
    clock.advance(120_000);
    expect(backoff.next()).toBe(3200);
    clock.advance(120_001);
    expect(backoff.next()).toBe(800);
  });

  it('reset starts over at once', () => {
    const { backoff } = manager();
    backoff.next();
    backoff.next();
    backoff.reset();
    expect(backoff.next()).toBe(800);
  });

  it('honours custom settings', () => {
    let now = 0;
    const backoff = new ExponentialBackoffManager({
      initialMs: 10,
      maxMs: 35,
      factor: 3,
      jitter: 0.1,
      resetAfterMs: 5,
      now: () => now,
      random: () => 0,
    });
    expect([backoff.next(), backoff.next(), backoff.next()]).toEqual([10, 30, 35]);
    now = 6;
    expect(backoff.next()).toBe(10);
  });

  it('wait sleeps for the next delay', async () => {
    vi.useFakeTimers();
    const backoff = new ExponentialBackoffManager({ now: () => 0, random: () => 0 });
    await expectResolvesAfter(backoff.wait(), 800);
  });
});
