// client-go's (k8s.io/apimachinery pkg/fields) selector tests, as data: each row keeps the
// Go test's input and expectation. Go-only cases are listed in the package README.
import { describe, expect, it } from 'vitest';
import {
  commonMatchRows,
  describeDeterministicParseAndEverything,
  describeSetString,
  fooBarBazBlahRows,
  type MatchRow,
} from '../test/selector-cases.js';
import {
  escapeFieldValue,
  everythingFieldSelector,
  FieldSelectorParseError,
  fieldSelectorFromSet,
  parseFieldSelector,
  unescapeFieldValue,
} from './fields.js';

describe('TestEscapeValue', () => {
  const rows: [unescaped: string, escaped: string][] = [
    ['', ''],
    ['a', 'a'],
    ['=', '\\='],
    [',', '\\,'],
    ['\\', '\\\\'],
    ['\\=\\,\\', '\\\\\\=\\\\\\,\\\\'],
  ];
  it.each(rows)('%j ⇄ %j', (unescaped, escaped) => {
    expect(escapeFieldValue(unescaped)).toBe(escaped);
    expect(unescapeFieldValue(escaped)).toBe(unescaped);
  });

  it.each(['\\', '\\\\\\', '\\a'])('refuses the escape sequence in %j', (value) => {
    expect(() => unescapeFieldValue(value)).toThrow(FieldSelectorParseError);
  });
});

describe('TestSelectorParse', () => {
  it.each(['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=a||y\\=b', 'x=a\\=\\=b'])(
    'parses %j and prints it back',
    (input) => {
      expect(parseFieldSelector(input).toString()).toBe(input);
    },
  );

  it.each(['x=a||y=b', 'x==a==b', 'x=a,b', 'x in (a)', 'x in (a,b,c)', 'x'])(
    'refuses %j',
    (input) => {
      expect(() => parseFieldSelector(input)).toThrow(FieldSelectorParseError);
    },
  );
});

describeDeterministicParseAndEverything(parseFieldSelector, everythingFieldSelector);

describeSetString(fieldSelectorFromSet);

describe('TestSelectorMatches', () => {
  const fieldset = { foo: 'bar', baz: 'blah', complex: '=value\\,\\' };
  const rows: MatchRow[] = [
    ...commonMatchRows(),
    ...fooBarBazBlahRows(fieldset),
    ['foo=bar,baz=blah,complex=\\=value\\\\\\,\\\\', fieldset, true],
  ];
  it.each(rows)('%j on %j: %s', (selector, fields, matches) => {
    expect(parseFieldSelector(selector).matches(fields)).toBe(matches);
  });
});

describe('TestSetMatches', () => {
  const fieldset = { foo: 'bar', baz: 'blah' };
  const rows: [set: Record<string, string>, matches: boolean][] = [
    [{}, true],
    [{ foo: 'bar' }, true],
    [{ baz: 'blah' }, true],
    [{ foo: 'bar', baz: 'blah' }, true],
    [{ foo: '=blah' }, false],
    [{ baz: '=bar' }, false],
    [{ foo: '=bar', foobar: 'bar', baz: 'blah' }, false],
  ];
  it.each(rows)('%j on {foo: bar, baz: blah}: %s', (set, matches) => {
    expect(fieldSelectorFromSet(set).matches(fieldset)).toBe(matches);
  });
});

describe('TestNilMapIsValid and TestSetIsEmpty', () => {
  it('a missing or empty set is the empty selector', () => {
    expect(fieldSelectorFromSet(undefined).empty()).toBe(true);
    expect(fieldSelectorFromSet({}).empty()).toBe(true);
    expect(fieldSelectorFromSet({ a: 'b' }).empty()).toBe(false);
  });
});
