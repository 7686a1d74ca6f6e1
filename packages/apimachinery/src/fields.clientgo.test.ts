// client-go's (k8s.io/apimachinery pkg/fields) selector tests, as data: each row keeps the
// Go test's input and expectation. Go-only cases are listed in the package README.
import { describe, expect, it } from 'vitest';
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

describe('TestDeterministicParse', () => {
  it('prints x=a,a=x and a=x,x=a alike', () => {
    expect(parseFieldSelector('x=a,a=x').toString()).toBe(parseFieldSelector('a=x,x=a').toString());
  });
});

describe('TestEverything', () => {
  it('matches anything and is empty', () => {
    expect(everythingFieldSelector().matches({ x: 'y' })).toBe(true);
    expect(everythingFieldSelector().empty()).toBe(true);
  });
});

describe('TestSelectorMatches', () => {
  const fieldset = { foo: 'bar', baz: 'blah', complex: '=value\\,\\' };
  const rows: [selector: string, fields: Record<string, string>, matches: boolean][] = [
    ['', { x: 'y' }, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['foo=bar', fieldset, true],
    ['baz=blah', fieldset, true],
    ['foo=bar,baz=blah', fieldset, true],
    ['foo=bar,baz=blah,complex=\\=value\\\\\\,\\\\', fieldset, true],
    ['foo=blah', fieldset, false],
    ['baz=bar', fieldset, false],
    ['foo=bar,foobar=bar,baz=blah', fieldset, false],
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
