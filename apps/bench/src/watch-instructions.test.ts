import { describe, expect, it } from 'vitest';
import { parseInstructionTotal, perEvent } from './watch-instructions.ts';

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
});
