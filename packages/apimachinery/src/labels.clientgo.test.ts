// client-go's (k8s.io/apimachinery pkg/labels) selector tests, as data: each row keeps the
// Go test's input and expectation. Go-only cases are listed in the package README.
import { describe, expect, it } from 'vitest';
import {
  commonMatchRows,
  describeDeterministicParseAndEverything,
  describeSetString,
  fooBarBazBlahRows,
  type MatchRow,
  matchPairs,
} from '../test/selector-cases.js';
import {
  everything,
  parseSelector,
  Requirement,
  type SelectionOperator,
  type Selector,
  SelectorParseError,
  selectorFromSet,
} from './labels.js';

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

describeDeterministicParseAndEverything(parseSelector, everything);

describeSetString(selectorFromSet);

describe('TestSelectorMatches', () => {
  const rows: MatchRow[] = [
    ...commonMatchRows(),
    ...matchPairs([
      ['x', { x: 'z' }, { y: 'z' }],
      ['!x', { y: 'z' }, { x: 'z' }],
      ['x>1', { x: '2' }, { x: '0' }],
      ['x<1', { x: '0' }, { x: '2' }],
    ]),
    ['x=z', {}, false],
    ...fooBarBazBlahRows({ foo: 'bar', baz: 'blah' }),
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

// A requirement as a row: [key, operator, values]. Go builds most of these rows with
// NewRequirement; a row kubets' constructor refuses is listed in the README instead.
type RequirementRow = [key: string, operator: SelectionOperator, values: string[]];
const selectorOf = (rows: RequirementRow[]): Selector =>
  everything().add(
    ...rows.map(([key, operator, values]) => new Requirement(key, operator, values)),
  );

describe('TestSetMatches', () => {
  const labelset = { foo: 'bar', baz: 'blah' };
  const sets: Record<string, string>[] = [{}, { foo: 'bar' }, { baz: 'blah' }, labelset];
  it.each(sets)('selectorFromSet(%j) matches the labelset', (set) => {
    expect(selectorFromSet(set).matches(labelset)).toBe(true);
  });
});

describe('TestNilMapIsValid', () => {
  it('an undefined set gives an empty selector', () => {
    expect(selectorFromSet(undefined).empty()).toBe(true);
  });
});

describe('TestSetIsEmpty', () => {
  // Go's NewSelector() is the selector with no requirements: kubets' everything().
  it('the empty set and the new selector are empty', () => {
    expect(selectorFromSet({}).empty()).toBe(true);
    expect(everything().empty()).toBe(true);
  });
});

describe('TestRequirementConstructor', () => {
  // valid: whether Go's NewRequirement returns no error. Go also compares the error's field
  // path; kubets reports one SelectorParseError whose message names the problem.
  const a254 = 'a'.repeat(254);
  const rows: [...RequirementRow, valid: boolean][] = [
    ['x1', 'in', [], false],
    ['x2', 'notin', [], false],
    ['x3', 'in', ['foo'], true],
    ['x4', 'notin', ['foo'], true],
    ['x5', '=', ['bar', 'foo'], false],
    ['x6', 'exists', [], true],
    ['x7', '!', [], true],
    ['x8', 'exists', ['foo'], false],
    ['x9', 'in', ['bar'], true],
    ['x10', 'in', ['bar'], true],
    ['x11', 'gt', ['1'], true],
    ['x12', 'lt', ['6'], true],
    ['x13', 'gt', [], false],
    ['x14', 'gt', ['bar'], false],
    ['x15', 'lt', ['bar'], false],
    [a254, 'exists', [], false],
    ['x16', '=', [a254], false],
    ['x17', '=', ['a b'], false],
    ['x18', 'unsupportedOp' as SelectionOperator, [], false],
  ];
  it.each(rows)('%s %s %j: valid %s', (key, operator, values, valid) => {
    const make = () => new Requirement(key, operator, values);
    if (valid) expect(make).not.toThrow();
    else expect(make).toThrow(SelectorParseError);
  });
});

describe('TestToString', () => {
  const rows: [requirements: RequirementRow[], out: string][] = [
    [
      [
        ['x', 'in', ['abc', 'def']],
        ['y', 'notin', ['jkl']],
        ['z', 'exists', []],
      ],
      'x in (abc,def),y notin (jkl),z',
    ],
    [
      [
        ['x', 'notin', ['abc', 'def']],
        ['y', '!=', ['jkl']],
        ['z', '!', []],
      ],
      'x notin (abc,def),y!=jkl,!z',
    ],
    [
      [
        ['x', 'notin', ['abc']],
        ['y', 'in', ['jkl', 'mno']],
        ['z', 'notin', ['']],
      ],
      'x notin (abc),y in (jkl,mno),z notin ()',
    ],
    [
      [
        ['x', '=', ['abc']],
        ['y', '==', ['jkl']],
        ['z', '!=', ['a']],
        ['z', 'exists', []],
      ],
      'x=abc,y==jkl,z!=a,z',
    ],
    [
      [
        ['x', 'gt', ['2']],
        ['y', 'lt', ['8']],
        ['z', 'exists', []],
      ],
      'x>2,y<8,z',
    ],
  ];
  it.each(rows)('%j → %j', (requirements, out) => {
    expect(selectorOf(requirements).toString()).toBe(out);
  });
});

describe('TestRequirementSelectorMatching', () => {
  const rows: [labels: Record<string, string>, requirements: RequirementRow[], match: boolean][] = [
    [
      { x: 'foo', y: 'baz' },
      [
        ['x', 'in', ['foo']],
        ['y', 'notin', ['alpha']],
      ],
      true,
    ],
    [
      { x: 'foo', y: 'baz' },
      [
        ['x', 'in', ['foo']],
        ['y', 'in', ['alpha']],
      ],
      false,
    ],
    [
      { y: '' },
      [
        ['x', 'notin', ['']],
        ['y', 'exists', []],
      ],
      true,
    ],
    [
      { y: '' },
      [
        ['x', '!', []],
        ['y', 'exists', []],
      ],
      true,
    ],
    [
      { y: '' },
      [
        ['x', 'notin', ['']],
        ['y', '!', []],
      ],
      false,
    ],
    [{ y: 'baz' }, [['x', 'in', ['']]], false],
    [{ z: '2' }, [['z', 'gt', ['1']]], true],
    [{ z: 'v2' }, [['z', 'gt', ['1']]], false],
  ];
  it.each(rows)('%j with %j: %s', (labels, requirements, match) => {
    expect(selectorOf(requirements).matches(labels)).toBe(match);
  });
});

describe('TestAdd', () => {
  const rows: [
    name: string,
    start: RequirementRow[],
    add: RequirementRow,
    want: RequirementRow[],
  ][] = [
    ['keyInOperator', [], ['key', 'in', ['value']], [['key', 'in', ['value']]]],
    [
      'keyEqualsOperator',
      [['key', 'in', ['value']]],
      ['key2', '=', ['value2']],
      [
        ['key', 'in', ['value']],
        ['key2', '=', ['value2']],
      ],
    ],
  ];
  it.each(rows)('%s', (_name, start, [key, operator, values], want) => {
    const added = selectorOf(start).add(new Requirement(key, operator, values));
    expect(added.requirements()).toEqual(selectorOf(want).requirements());
  });
});

describe('TestSetSelectorString', () => {
  // Go's ValidatedSetSelector is kubets' selectorFromSet (which validates too).
  const rows: [set: Record<string, string>, out: string][] = [
    [{}, ''],
    [{ app: 'foo' }, 'app=foo'],
    [{ app: 'foo', a: 'b' }, 'a=b,app=foo'],
  ];
  it.each(rows)('%j → %j', (set, out) => {
    expect(selectorFromSet(set).toString()).toBe(out);
  });
});

describe('TestRequiresExactMatch', () => {
  // value: what Go returns with found=true; undefined where Go's found is false.
  const rows: [name: string, requirements: RequirementRow[], label: string, value?: string][] = [
    ['keyInOperatorExactMatch', [['key', 'in', ['value']]], 'key', 'value'],
    ['keyInOperatorNotExactMatch', [['key', 'in', ['value', 'value2']]], 'key', undefined],
    [
      'keyInOperatorNotExactMatch (second key)',
      [
        ['key', 'in', ['value', 'value1']],
        ['key2', 'in', ['value2']],
      ],
      'key2',
      'value2',
    ],
    ['keyEqualOperatorExactMatch', [['key', '=', ['value']]], 'key', 'value'],
    ['keyDoubleEqualOperatorExactMatch', [['key', '==', ['value']]], 'key', 'value'],
    ['keyNotEqualOperatorExactMatch', [['key', '!=', ['value']]], 'key', undefined],
    [
      'keyEqualOperatorExactMatchFirst',
      [
        ['key', 'in', ['value']],
        ['key2', 'in', ['value2']],
      ],
      'key',
      'value',
    ],
  ];
  it.each(rows)('%s', (_name, requirements, label, value) => {
    expect(selectorOf(requirements).requiresExactMatch(label)).toBe(value);
  });
});

describe('TestValidatedSelectorFromSet', () => {
  // Go's ValidatedSelectorFromSet is kubets' selectorFromSet; Go's error is a throw here.
  it('Simple Set, no error', () => {
    expect(selectorFromSet({ key: 'val' }).requirements()).toEqual([
      new Requirement('key', '=', ['val']),
    ]);
  });
  it('Invalid Set, value too long', () => {
    expect(() =>
      selectorFromSet({ Key: 'axahm2EJ8Phiephe2eixohbee9eGeiyees1thuozi1xoh0GiuH3diewi8iem7Nui' }),
    ).toThrow(SelectorParseError);
  });
});
