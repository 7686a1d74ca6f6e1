import { describe, expect, it } from 'vitest';
import { formatCollections, parseCollections } from './gc-count.ts';
import {
  countsTowardsFigure,
  parseInstructionTotal,
  perEvent,
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
});
