import { describe, expect, it } from 'vitest';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain } from './index.js';

const longest = (n: number, c = 'a') => c.repeat(n);

describe('isDNS1123Label', () => {
  it.each(['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', '0', '01', '1-a', longest(63)])(
    'accepts %s',
    (value) => expect(isDNS1123Label(value)).toEqual([]),
  );
  it.each(['', 'A', 'ABC', 'aBc', 'A1', 'a_1', 'a.1', 'a 1', '-', '-a', 'a-', '1 ', ' 1'])(
    'rejects %j with the format',
    (value) => {
      const [problem, ...rest] = isDNS1123Label(value);
      expect(rest).toEqual([]);
      expect(problem).toMatch(/^a lowercase RFC 1123 label must consist of .*'\[a-z0-9\]/);
    },
  );
  it('names a length above 63 characters', () => {
    expect(isDNS1123Label(longest(64))).toEqual(['must be no more than 63 characters']);
  });
});

describe('isDNS1123Subdomain', () => {
  it.each(['a', 'a.b.c', 'a1.b2', '0.1', 'a-1.b-2', 'example.com', longest(253)])(
    'accepts %s',
    (value) => expect(isDNS1123Subdomain(value)).toEqual([]),
  );
  it.each(['', 'A', 'a.B', '.a', 'a.', 'a..b', 'a_b', '-a.b', 'a.b-', 'a@b'])(
    'rejects %j with the format',
    (value) => {
      expect(isDNS1123Subdomain(value)).toEqual([
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ]);
    },
  );
  it('names a length above 253 characters, and the format as well when both are wrong', () => {
    expect(isDNS1123Subdomain(longest(254))).toEqual(['must be no more than 253 characters']);
    const [length, format] = isDNS1123Subdomain(longest(254, 'A'));
    expect(length).toBe('must be no more than 253 characters');
    expect(format).toMatch(/^a lowercase RFC 1123 subdomain/);
  });
});

describe('isDNS1035Label', () => {
  it.each(['a', 'ab', 'a1', 'a-1', 'a--1--2--b', longest(63)])('accepts %s', (value) =>
    expect(isDNS1035Label(value)).toEqual([]),
  );
  it.each(['', '0', '01', '1-a', 'A', 'aBc', 'a_1', 'a.1', '-a', 'a-'])(
    'rejects %j with the format',
    (value) => {
      expect(isDNS1035Label(value)).toEqual([
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ]);
    },
  );
  it('names a length above 63 characters', () => {
    expect(isDNS1035Label(longest(64))).toEqual(['must be no more than 63 characters']);
  });
});
