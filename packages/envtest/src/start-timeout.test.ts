import { describe, expect, it } from 'vitest';
import { parseGoDurationMs, startTimeoutMs } from './start-timeout.js';

describe('parseGoDurationMs', () => {
  it.each([
    ['90s', 90_000],
    ['2m', 120_000],
    ['1m30s', 90_000],
    ['1500ms', 1_500],
    ['1.5s', 1_500],
    ['1h', 3_600_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseGoDurationMs(text)).toBe(ms);
  });

  it.each(['', '90', 's', '2 m', '1d', '-5s', '5s!'])('%j is not a duration', (text) => {
    expect(parseGoDurationMs(text)).toBeUndefined();
  });
});

describe('startTimeoutMs', () => {
  const variable = 'KUBEBUILDER_CONTROLPLANE_START_TIMEOUT';

  it('takes the option first, then the variable, then 60 s', () => {
    expect(startTimeoutMs(5_000, { [variable]: '3m' })).toBe(5_000);
    expect(startTimeoutMs(undefined, { [variable]: '3m' })).toBe(180_000);
    expect(startTimeoutMs(undefined, {})).toBe(60_000);
    expect(startTimeoutMs(undefined, { [variable]: '' })).toBe(60_000);
  });

  it('refuses a value that is not a positive duration, naming the variable', () => {
    expect(() => startTimeoutMs(undefined, { [variable]: '180' })).toThrow(
      /KUBEBUILDER_CONTROLPLANE_START_TIMEOUT="180" is not a positive Go duration/,
    );
    expect(() => startTimeoutMs(undefined, { [variable]: '0s' })).toThrow(RangeError);
  });
});
