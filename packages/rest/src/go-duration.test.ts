import { describe, expect, it } from 'vitest';
import { goDurationString, goDurationStringOfMs } from './go-duration.js';

const second = 1_000_000_000n;
const minute = 60n * second;
const hour = 60n * minute;

// Go's time.Duration.String() table (time_test.go durationTests), as nanoseconds.
const goTable: ReadonlyArray<readonly [bigint, string]> = [
  [0n, '0s'],
  [1n, '1ns'],
  [1_100n, '1.1µs'],
  [2_200_000n, '2.2ms'],
  [3_300_000_000n, '3.3s'],
  [4n * minute + 5n * second, '4m5s'],
  [4n * minute + 5_001_000_000n, '4m5.001s'],
  [5n * hour + 6n * minute + 7_001_000_000n, '5h6m7.001s'],
  [8n * minute + 1n, '8m0.000000001s'],
  [2n ** 63n - 1n, '2562047h47m16.854775807s'],
  [-(2n ** 63n), '-2562047h47m16.854775808s'],
];

describe('goDurationString', () => {
  it.each(goTable)('writes %s ns as %s', (nanos, expected) => {
    expect(goDurationString(nanos)).toBe(expected);
  });

  it.each([
    [-1n, '-1ns'],
    [-1_500_000n, '-1.5ms'],
    [999n, '999ns'],
    [1_000n, '1µs'],
    [1_000_000n, '1ms'],
    [second, '1s'],
    [minute, '1m0s'],
    [hour, '1h0m0s'],
  ])('writes %s ns as %s at the unit boundaries', (nanos, expected) => {
    expect(goDurationString(nanos)).toBe(expected);
  });
});

describe('goDurationStringOfMs', () => {
  it.each([
    [1500, '1.5s'],
    [30_000, '30s'],
    [60_000, '1m0s'],
    [500, '500ms'],
    [0.25, '250µs'],
    [90_061_001, '25h1m1.001s'],
  ])('writes %s ms as %s', (ms, expected) => {
    expect(goDurationStringOfMs(ms)).toBe(expected);
  });
});
