import { describe, expect, it } from 'vitest';
import { describeWakeCosts, measureWakeCost, probeWakeCosts } from './wake-cost.ts';

describe('wake-up cost', () => {
  it('charges the CPU of the loop to each of its wakes', async () => {
    const cost = await measureWakeCost(0, 20);
    expect(cost).toMatchObject({ idleMs: 0, wakes: 20 });
    expect(cost.cpuMicros).toBeGreaterThan(0);
  });

  it('is measured in a child process, one figure per idle time asked for', async () => {
    const costs = await probeWakeCosts([0, 1], 5);
    expect(costs?.map((c) => [c.idleMs, c.wakes])).toEqual([
      [0, 5],
      [1, 5],
    ]);
  });

  it('reads as microseconds per idle time', () => {
    expect(
      describeWakeCosts([
        { idleMs: 1, wakes: 300, cpuMicros: 46.4 },
        { idleMs: 10, wakes: 300, cpuMicros: 185.6 },
      ]),
    ).toBe('46 µs after 1 ms idle, 186 µs after 10 ms idle');
  });
});
