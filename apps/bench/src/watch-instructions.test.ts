import { describe, expect, it } from 'vitest';
import { formatCollections, parseCollections } from './gc-count.ts';
import {
  countsTowardsFigure,
  outliers,
  outlierTolerance,
  parseInstructionTotal,
  parseTraceGc,
  parseValgrindPid,
  perEvent,
  type Repeat,
  summarizeLayer,
  windowCollections,
} from './watch-instructions.ts';

describe('watch-instructions', () => {
  it("reads the total of cachegrind's summary", () => {
    const output = [
      '[watch-floor] round 1: floor: 13.705 CPU-s / 10k',
      '==4187== ',
      '==4187== I   refs:      3,711,644,735',
    ].join('\n');
    expect(parseInstructionTotal(output)).toBe(3_711_644_735);
    expect(parseInstructionTotal('valgrind: command not found')).toBeUndefined();
  });

  it('takes the instructions per event from the difference of two runs', () => {
    expect(perEvent(1_381_681_247, 2000, 2_415_765_276, 6000)).toBeCloseTo(258_521, 0);
    expect(() => perEvent(10, 3000, 20, 1000)).toThrow(RangeError);
  });

  it('gives the median of repeats that agree, with their spread', () => {
    const summary = summarizeLayer([206_331, 202_535, 208_516], 0.03);
    expect(summary.valid).toBe(true);
    expect(summary.valid && summary.median).toBe(206_331);
    expect(summary.spread).toBeCloseTo((208_516 - 202_535) / 206_331, 6);
    expect(summarizeLayer([100, 102, 101, 103], 0.03)).toEqual({
      valid: true,
      median: 101.5,
      spread: 3 / 101.5,
    });
  });

  it('voids a layer whose repeats do not agree within the spread allowed', () => {
    // client-node's informer in two runs of 2026-11-28: a collection in one window.
    const summary = summarizeLayer([225_229, 356_518, 229_012], 0.03);
    expect(summary).toEqual({ valid: false, spread: (356_518 - 225_229) / 229_012 });
    expect(() => summarizeLayer([], 0.03)).toThrow(RangeError);
  });

  it("reads back the last window's collections that watch-floor.ts printed", () => {
    const output = [
      `[watch-floor] round 1: warm-up (load 0.1, ${formatCollections({ major: 0, minor: 3 })})`,
      `[watch-floor] round 1: floor: 13.705 CPU-s / 10k (load 0.2, ${formatCollections({ major: 1, minor: 40 })})`,
    ].join('\n');
    expect(parseCollections(output)).toEqual({ major: 1, minor: 40 });
    expect(parseCollections('no collections printed')).toBeUndefined();
  });
  it('sets aside a repeat with a major collection in its extra events, not one with minor ones', () => {
    // The floor's third repeat of 2026-11-29: one major collection in the 2,000 extra events
    // made the figure 545,698 against 208,399 and 217,258.
    const withMajor = {
      few: { instructions: 4_408_328_701, collections: { major: 0, minor: 0 } },
      many: { instructions: 5_499_724_316, collections: { major: 1, minor: 0 } },
    };
    const withMinors = {
      few: { instructions: 4_629_064_262, collections: { major: 0, minor: 0 } },
      many: { instructions: 5_110_963_414, collections: { major: 0, minor: 2 } },
    };
    expect(windowCollections(withMajor)).toEqual({ major: 1, minor: 0 });
    expect(countsTowardsFigure(withMajor)).toBe(false);
    expect(windowCollections(withMinors)).toEqual({ major: 0, minor: 2 });
    expect(countsTowardsFigure(withMinors)).toBe(true);
    // A major collection during the warm-up or the first N events is in both runs: it cancels.
    const majorBeforeWindow = {
      few: { instructions: 1, collections: { major: 1, minor: 3 } },
      many: { instructions: 2, collections: { major: 1, minor: 5 } },
    };
    expect(countsTowardsFigure(majorBeforeWindow)).toBe(true);
    const uncounted = { few: { instructions: 1, collections: undefined }, many: withMajor.many };
    expect(windowCollections(uncounted)).toBeUndefined();
  });

  // The kubets pipeline's processes of 2026-11-29 (N = 2,000 events): three of 2,000 events,
  // and of 6,000 events one that took two major collections the others did not (737 million
  // instructions more) beside one that did not and a third (hypothetical) as that one.
  const fewTotals = [4_600_557_076, 4_606_814_877, 4_597_978_631];
  const manyTotals = [5_332_080_254, 6_069_013_362, 5_335_000_000];
  const counted = (instructions: number) => ({ instructions, collections: undefined });
  const repeats: Repeat[] = fewTotals.map((few, i) => ({
    few: counted(few),
    many: counted(manyTotals[i]!),
  }));

  it('allows a process as far from its group as 1 % of the 4,000-event difference', () => {
    // The medians' difference: 5,335,000,000 - 4,600,557,076.
    expect(outlierTolerance(repeats, 0.01)).toBeCloseTo(7_344_429.24, 1);
    expect(outlierTolerance(repeats, 0)).toBe(0);
  });

  it('finds the one process that counted work the others did not', () => {
    const tolerance = outlierTolerance(repeats, 0.01);
    // The 2,000-event processes lie within 6.3 million instructions of each other: they fit.
    expect(outliers(fewTotals, tolerance)).toEqual([false, false, false]);
    expect(outliers(manyTotals, tolerance)).toEqual([false, true, false]);
    // Less work than the others (a collection it did not take) does not fit either.
    expect(outliers([100, 100, 60, 101], 5)).toEqual([false, false, true, false]);
    // Its repeat's figure without the check: 365,550 per event against about 183,000.
    expect(perEvent(fewTotals[1]!, 2000, manyTotals[1]!, 6000)).toBeCloseTo(365_550, 0);
  });

  it('cannot tell the odd one of fewer than three processes', () => {
    expect(outliers([fewTotals[0]!, manyTotals[1]!], 1)).toEqual([false, false]);
    expect(outliers([1], 0)).toEqual([false]);
    expect(outliers([], 0)).toEqual([]);
  });

  it('with no tolerance, lets only totals equal to the median fit', () => {
    expect(outliers([10, 10, 11], 0)).toEqual([false, false, true]);
  });

  it("counts the collections of one process in V8's --trace-gc lines, start to exit", () => {
    const output = [
      '[20058:0x6cc4000]    21777 ms: Scavenge 9.2 (9.6) -> 8.8 (9.6) MB, pooled: 1 MB, 212.54 / 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure; ',
      '[20798:0x27be3000]    3438 ms: Scavenge (interleaved) 52.2 (69.2) -> 46.2 (108.2) MB, pooled: 0 MB, 22.62 / 0.02 ms  (average mu = 0.960, current mu = 0.960) task; ',
      '[20058:0x6cc4000]    57415 ms: Mark-Compact 32.5 (40.1) -> 25.1 (53.9) MB, pooled: 0 MB, 1121.26 / 1.89 ms  (+ 761.5 ms in 187 steps since start of marking) allocation failure; Incremental marking forced finalization',
      '[20058:0x6cc4000]   115430 ms: Scavenge (interleaved) 68.2 (99.1) -> 47.5 (103.6) MB, pooled: 0 MB, 149.19 / 3.69 ms  (average mu = 0.968, current mu = 0.968) task; ',
      '[20058:0x6cc4000]   120001 ms: Minor Mark-Sweep 70.1 (99.1) -> 48.0 (103.6) MB',
      '[20058:0x6cc4000]   145151 ms: Mark-Compact (reduce) 91.0 (119.4) -> 75.7 (201.6) MB',
      '[20798:0x27be3000]   24451 ms: Mark-Compact 107.1 (193.7) -> 70.1 (200.5) MB',
      '[watch-floor] round 1: kubets-pipeline: 23.081 CPU-s / 10k (load 5.0, gc major=1 minor=0, probes 1)',
      '| layer | Mark-Compact |',
    ].join('\n');
    expect(parseTraceGc(output, 20058)).toEqual({ major: 2, minor: 3 });
    expect(parseTraceGc(output, 20798)).toEqual({ major: 1, minor: 1 });
    expect(parseTraceGc(output, 1)).toEqual({ major: 0, minor: 0 });
  });

  it("reads the process id of valgrind's output", () => {
    const output = [
      '==20058== Cachegrind, a cache and branch-prediction profiler',
      '==20058== I   refs:      6,069,013,362',
    ].join('\n');
    expect(parseValgrindPid(output)).toBe(20058);
    expect(parseValgrindPid('valgrind: command not found')).toBeUndefined();
  });
});
