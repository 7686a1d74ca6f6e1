import { describe, expect, it } from 'vitest';
import { matchesFormat } from './formats.js';

/** Values kube-apiserver 1.20 accepted and refused for each string format (probed). */
const PROBED: Record<string, { valid: string[]; invalid: string[] }> = {
  uuid: {
    valid: ['123e4567-e89b-12d3-a456-426614174000', '123E4567E89B12D3A456426614174000'],
    invalid: ['x', '123e4567-e89b-12d3-a456-42661417400'],
  },
  uuid4: {
    valid: ['123e4567-e89b-42d3-a456-426614174000'],
    invalid: ['123e4567-e89b-12d3-a456-426614174000', '123E4567E89B12D3A456426614174000'],
  },
  hexcolor: { valid: ['#fff', 'abcdef'], invalid: ['#ffff'] },
  rgbcolor: { valid: ['rgb(1,2,3)', 'rgb( 1 , 2 , 3 )'], invalid: ['rgb(256,0,0)'] },
  ssn: { valid: ['123-45-6789'], invalid: ['123456789', '12-345-6789'] },
  bsonobjectid: { valid: ['507f1f77bcf86cd799439011'], invalid: ['507f1f77bcf86cd79943901'] },
  email: {
    valid: ['a@b.c', 'Joe <joe@example.com>', 'a.b@c'],
    invalid: ['nope', 'a..b@c', '@c', 'a@', 'a b@c'],
  },
  ipv4: { valid: ['1.2.3.4', '0.0.0.0'], invalid: ['1.2.3', '01.2.3.4', '1.2.3.256'] },
  ipv6: {
    valid: ['::1', '::', '::ffff:1.2.3.4', '1:2:3:4:5:6:7:8'],
    invalid: ['1.2.3.4', '1::2::3', 'fe80::1%eth0', '1:2:3:4:5:6:7:8:9'],
  },
  cidr: { valid: ['10.0.0.0/8', '::/0', '1.2.3.4/32'], invalid: ['10.0.0.0', '1.2.3.4/33'] },
  duration: {
    valid: ['3s', '1h30m', '3 days', '1.5h', '-3s', '2 weeks'],
    invalid: ['xx', '5'],
  },
  'date-time': {
    valid: ['2020-01-01T00:00:00Z', '2020-01-01t00:00:00z', '2020-01-01T00:00:00.123+02:00'],
    invalid: ['2020-01-01', '2020-01-01T25:00:00Z', '2020-02-30T00:00:00Z', '2020-01-01 00:00:00Z'],
  },
  date: { valid: ['2020-12-01', '2020-02-29'], invalid: ['2020-13-01', '2019-02-29', '2020-1-01'] },
  byte: { valid: ['aGk=', 'YQ=='], invalid: ['###', '', 'aGk', 'aGk=\n'] },
  uri: {
    valid: ['http://x', '/path', 'mailto:a@b', '//host/p'],
    invalid: ['rel', 'x', 'http://a b'],
  },
  mac: {
    valid: ['00:11:22:33:44:55', '00-11-22-33-44-55', '0011.2233.4455', '00:11:22:33:44:55:66:77'],
    invalid: ['zz'],
  },
  hostname: {
    valid: ['example.com', 'localhost', 'a-b.example', 'xn--bcher-kva.example'],
    invalid: ['-bad-', 'a.b', 'ex.c0m'],
  },
  // Not checked by 1.20: numbers' formats and unknown ones.
  int32: { valid: ['x'], invalid: [] },
  whatever: { valid: ['x'], invalid: [] },
};

describe('matchesFormat', () => {
  it.each(Object.entries(PROBED))(
    'accepts and refuses %s values as kube-apiserver 1.20 did',
    (format, { valid, invalid }) => {
      for (const value of valid)
        expect([value, matchesFormat(format, value)]).toEqual([value, true]);
      for (const value of invalid)
        expect([value, matchesFormat(format, value)]).toEqual([value, false]);
    },
  );
});
