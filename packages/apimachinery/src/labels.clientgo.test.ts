// client-go's (k8s.io/apimachinery pkg/labels) selector tests, as data: each row keeps the
// Go test's input and expectation. Go-only cases are listed in the package README.
import { describe, expect, it } from 'vitest';
import { everything, parseSelector, SelectorParseError } from './labels.js';

describe('TestSelectorParse', () => {
  const good = [
    'x=a,y=b,z=c',
    '',
    'x!=a,y=b',
    'x=',
    'x= ',
    'x=,z= ',
    'x= ,z= ',
    '!x',
    'x>1',
    'x>1,z<5',
  ];
  it.each(good)('parses %j and prints it without spaces', (input) => {
    expect(parseSelector(input).toString()).toBe(input.replaceAll(' ', ''));
  });

  const bad = ['x=a||y=b', 'x==a==b', '!x=a', 'x<a'];
  it.each(bad)('refuses %j', (input) => {
    expect(() => parseSelector(input)).toThrow(SelectorParseError);
  });
});

describe('TestDeterministicParse', () => {
  it('prints x=a,a=x and a=x,x=a alike', () => {
    expect(parseSelector('x=a,a=x').toString()).toBe(parseSelector('a=x,x=a').toString());
  });
});

describe('TestEverything', () => {
  it('matches anything and is empty', () => {
    expect(everything().matches({ x: 'y' })).toBe(true);
    expect(everything().empty()).toBe(true);
  });
});

describe('TestSelectorMatches', () => {
  const labelset = { foo: 'bar', baz: 'blah' };
  const rows: [selector: string, labels: Record<string, string>, matches: boolean][] = [
    ['', { x: 'y' }, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x', { x: 'z' }, true],
    ['!x', { y: 'z' }, true],
    ['x>1', { x: '2' }, true],
    ['x<1', { x: '0' }, true],
    ['x=z', {}, false],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['x', { y: 'z' }, false],
    ['!x', { x: 'z' }, false],
    ['x>1', { x: '0' }, false],
    ['x<1', { x: '2' }, false],
    ['foo=bar', labelset, true],
    ['baz=blah', labelset, true],
    ['foo=bar,baz=blah', labelset, true],
    ['foo=blah', labelset, false],
    ['baz=bar', labelset, false],
    ['foo=bar,foobar=bar,baz=blah', labelset, false],
  ];
  it.each(rows)('%j on %j: %s', (selector, labels, matches) => {
    expect(parseSelector(selector).matches(labels)).toBe(matches);
  });
});

describe('TestSetSelectorParser', () => {
  // out: the parsed selector in client-go's String() form (requirements sorted by key);
  // undefined where Go's row expects an error.
  const rows: [input: string, out: string | undefined][] = [
    ['', ''],
    ['\rx', 'x'],
    ['this-is-a-dns.domain.com/key-with-dash', 'this-is-a-dns.domain.com/key-with-dash'],
    [
      'this-is-another-dns.domain.com/key-with-dash in (so,what)',
      'this-is-another-dns.domain.com/key-with-dash in (so,what)',
    ],
    [
      '0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)',
      '0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)',
    ],
    ['foo  in\t (abc)', 'foo in (abc)'],
    ['x notin\n (abc)', 'x notin (abc)'],
    ['x  notin\t\t\t(abc,def)', 'x notin (abc,def)'],
    ['x in (abc,def)', 'x in (abc,def)'],
    ['x in (abc,)', 'x in (,abc)'],
    ['x in (abc,abc)', 'x in (abc)'],
    ['x in ()', 'x in ()'],
    ['x in (a,,)', 'x in (,a)'],
    ['x in (a,,,)', 'x in (,a)'],
    ['x in (a,,,,,,)', 'x in (,a)'],
    ['x in (a,,a,,a,,a,,)', 'x in (,a)'],
    ['x notin (abc,,def),bar,z in (),w', 'bar,w,x notin (,abc,def),z in ()'],
    ['x,y in (a)', 'x,y in (a)'],
    ['x=a', 'x=a'],
    ['x>1', 'x>1'],
    ['x<7', 'x<7'],
    ['x=a,y!=b', 'x=a,y!=b'],
    ['x=a,y!=b,z in (h,i,j)', 'x=a,y!=b,z in (h,i,j)'],
    ['x=a||y=b', undefined],
    ['x,,y', undefined],
    [',x,y', undefined],
    ['x nott in (y)', undefined],
    ['x notin ( )', 'x notin ()'],
    ['x notin (, a)', 'x notin (,a)'],
    ['a in (xyz),', undefined],
    ['a in (xyz)b notin ()', undefined],
    ['a ', 'a'],
    ['a in (x,y,notin, z,in)', 'a in (in,notin,x,y,z)'],
    ['a in (xyz abc)', undefined],
    ['a notin(', undefined],
    ['a (', undefined],
    ['(', undefined],
  ];
  it.each(rows)('%j → %j', (input, out) => {
    if (out === undefined) {
      expect(() => parseSelector(input)).toThrow(SelectorParseError);
    } else {
      expect(parseSelector(input).toString()).toBe(out);
    }
  });
});
