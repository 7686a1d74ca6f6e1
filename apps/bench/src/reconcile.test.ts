import { describe, expect, it } from 'vitest';
import { type ReconcileSample, reconcileTable } from './reconcile.ts';

const sample = (workers: number, elapsedMs: number, extra: Partial<ReconcileSample> = {}) => ({
  workers,
  pods: 10_000,
  reconciled: 10_000,
  elapsedMs,
  cpuSeconds: 2,
  peakRssBytes: 120e6,
  ...extra,
});

describe('reconcileTable', () => {
  it('gives each worker count its medians, fewest workers first', () => {
    const table = reconcileTable([
      sample(2, 3000),
      sample(1, 4000),
      sample(1, 5000, { cpuSeconds: 3 }),
      sample(1, 6000),
    ]);
    const [, , one, two] = table.split('\n');
    // 10,000 Pods in the median 5 s: 2,000 per second; 2 CPU-s / 10,000 = 200 µs each.
    expect(one).toBe('| 1 | 5.00 | 2,000 | 200.0 | 120 | 3 |');
    expect(two).toBe('| 2 | 3.00 | 3,333 | 200.0 | 120 | 1 |');
  });

  it('says when a run ended before every object was reconciled', () => {
    const table = reconcileTable([sample(4, 1000, { reconciled: 9_000 })]);
    expect(table.split('\n')[2]).toContain('| 1 (1 incomplete) |');
  });
});
