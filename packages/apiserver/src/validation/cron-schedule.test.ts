import { describe, expect, it } from 'vitest';
import { cronScheduleProblem } from './cron-schedule.js';

/** Schedules and the error kube-apiserver 1.20 quoted for them in a CronJob (undefined: accepted). */
const CASES: [string, string | undefined][] = [
  ['*/5 * * * *', undefined],
  ['0 0 1 jan-dec sun', undefined],
  ['* * * JAN-DEC SUN', undefined],
  ['+5 * * * *', undefined],
  ['@weekly', undefined],
  ['@every 1h30m', undefined],
  ['bad', 'Expected exactly 5 fields, found 1: bad'],
  ['* * * *', 'Expected exactly 5 fields, found 4: * * * *'],
  ['61 * * * *', 'End of range (61) above maximum (59): 61'],
  ['0 0 0 * *', 'Beginning of range (0) below minimum (1): 0'],
  ['5-1 * * * *', 'Beginning of range (5) beyond end of range (1): 5-1'],
  ['x * * * *', 'Failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
  ['1-2-3 * * * *', 'Too many hyphens: 1-2-3'],
  ['*/0 * * * *', 'Step of range should be a positive number: */0'],
  ['1/2/3 * * * *', 'Too many slashes: 1/2/3'],
  ['-1 * * * *', 'Failed to parse int from : strconv.Atoi: parsing "": invalid syntax'],
  ['* * * 13 *', 'End of range (13) above maximum (12): 13'],
  ['* * * * 7', 'End of range (7) above maximum (6): 7'],
  [
    '99999999999999999999 * * * *',
    'Failed to parse int from 99999999999999999999: strconv.Atoi: parsing "99999999999999999999": value out of range',
  ],
  ['@often', 'Unrecognized descriptor: @often'],
  ['@every 5q', 'Failed to parse duration @every 5q: time: unknown unit "q" in duration "5q"'],
];

describe('cronScheduleProblem', () => {
  it.each(CASES)('%j → %s', (schedule, expected) => {
    expect(cronScheduleProblem(schedule)).toBe(expected);
  });
});
