import { describe, expect, it } from 'vitest';
import { dns1035LabelErrors, dns1123LabelErrors, dns1123SubdomainErrors } from './validation.js';

describe('dns1123LabelErrors', () => {
  it.each(['a', 'ab', 'a-b', '0', '1a', 'a1', 'a--b', 'a'.repeat(63)])('accepts %j', (value) => {
    expect(dns1123LabelErrors(value)).toEqual([]);
  });
  it.each(['', 'A', 'a.b', '-a', 'a-', 'a_b', 'a b', 'ab.'])(
    'refuses %j by its pattern',
    (value) => {
      expect(dns1123LabelErrors(value)).toEqual([
        expect.stringContaining('a lowercase RFC 1123 label must consist of'),
      ]);
    },
  );
  it('refuses 64 characters by its length alone', () => {
    expect(dns1123LabelErrors('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });
});

describe('dns1123SubdomainErrors', () => {
  it.each(['a', 'a.b', 'example.com', '0.a-b.c', 'a'.repeat(253)])('accepts %j', (value) => {
    expect(dns1123SubdomainErrors(value)).toEqual([]);
  });
  it.each(['', 'A.com', 'a..b', '.a', 'a.', 'a_b.com', '-a.b'])(
    'refuses %j by its pattern',
    (value) => {
      expect(dns1123SubdomainErrors(value)).toEqual([
        expect.stringContaining('a lowercase RFC 1123 subdomain must consist of'),
      ]);
    },
  );
  it('refuses 254 characters by its length, and a bad one of that length twice', () => {
    expect(dns1123SubdomainErrors('a'.repeat(254))).toEqual([
      'must be no more than 253 characters',
    ]);
    expect(dns1123SubdomainErrors(`-${'a'.repeat(253)}`)).toHaveLength(2);
  });
});

describe('dns1035LabelErrors', () => {
  it.each(['a', 'a1', 'a-b', 'v1alpha1', 'a'.repeat(63)])('accepts %j', (value) => {
    expect(dns1035LabelErrors(value)).toEqual([]);
  });
  it.each(['', '1a', 'A', 'a-', 'a.b', 'a_b'])('refuses %j by its pattern', (value) => {
    expect(dns1035LabelErrors(value)).toEqual([
      expect.stringContaining(
        "start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123'",
      ),
    ]);
  });
  it('refuses 64 characters by its length alone', () => {
    expect(dns1035LabelErrors('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });
});
