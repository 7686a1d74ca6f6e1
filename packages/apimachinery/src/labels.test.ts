import { describe, expect, it } from 'vitest';
import { itMatches } from '../test/selector-cases.js';
import { thrownBy } from '../test/thrown.js';
import {
  everything,
  isValidLabelKey,
  isValidLabelValue,
  labelSelectorAsSelector,
  nothing,
  parseSelector,
  Requirement,
  type Selector,
  SelectorParseError,
  selectorFromSet,
} from './labels.js';

function parseError(selector: string): SelectorParseError {
  return thrownBy(() => parseSelector(selector), SelectorParseError, JSON.stringify(selector));
}

describe('parseSelector: matching', () => {
  const web = { app: 'web', tier: 'frontend', version: '3' };

  itMatches(parseSelector, web, [
    ['app=web', true],
    ['app==web', true],
    ['app=db', false],
    ['app!=db', true],
    ['app!=web', false],
    ['tier in (frontend,backend)', true],
    ['tier in (backend)', false],
    ['tier notin (frontend)', false],
    ['tier notin (backend,cache)', true],
    ['app', true],
    ['missing', false],
    ['!missing', true],
    ['!app', false],
    ['app=web,tier=frontend', true],
    ['app=web,tier=backend', false],
    ['version>2', true],
    ['version>3', false],
    ['version<4', true],
    ['', true],
  ]);

  it('!= and notin match when the label is absent', () => {
    expect(parseSelector('env!=prod').matches({ app: 'web' })).toBe(true);
    expect(parseSelector('env notin (prod)').matches({})).toBe(true);
    expect(parseSelector('env!=prod').matches(undefined)).toBe(true);
    expect(parseSelector('env notin (prod)').matches(undefined)).toBe(true);
  });

  it('=, in, exists and gt need the label present', () => {
    for (const selector of ['env=', 'env in (prod)', 'env', 'env>1']) {
      expect(parseSelector(selector).matches(undefined)).toBe(false);
      expect(parseSelector(selector).matches({})).toBe(false);
    }
    expect(parseSelector('version>1').matches({ version: 'x' })).toBe(false);
  });

  it('does not treat inherited properties as labels', () => {
    expect(parseSelector('toString').matches({})).toBe(false);
    expect(parseSelector('!constructor').matches({})).toBe(true);
  });

  it('key= compares against the empty value', () => {
    const selector = parseSelector('env=');
    expect(selector.matches({ env: '' })).toBe(true);
    expect(selector.matches({ env: 'prod' })).toBe(false);
    expect(selector.toString()).toBe('env=');
  });

  it('accepts empty values in a set', () => {
    const selector = parseSelector('env in (prod,)');
    expect(selector.matches({ env: '' })).toBe(true);
    expect(selector.matches({ env: 'prod' })).toBe(true);
    expect(selector.toString()).toBe('env in (,prod)');
  });

  it('treats in/notin as plain words in value position', () => {
    expect(parseSelector('mode=in').matches({ mode: 'in' })).toBe(true);
    expect(parseSelector('mode in (notin,in)').matches({ mode: 'notin' })).toBe(true);
  });

  it('tolerates whitespace', () => {
    const selector = parseSelector('  app = web ,  tier  in  ( frontend , backend ) , ! canary ');
    expect(selector.toString()).toBe('app=web,!canary,tier in (backend,frontend)');
    expect(selector.matches({ app: 'web', tier: 'backend' })).toBe(true);
    expect(parseSelector('   ').empty()).toBe(true);
  });
});

describe('parseSelector: canonical form', () => {
  it('sorts requirements by key and set values', () => {
    expect(parseSelector('z=1,a in (c,b,a),m!=x,!b').toString()).toBe('a in (a,b,c),!b,m!=x,z=1');
  });

  it('keeps operators as written and de-duplicates set values', () => {
    expect(parseSelector('a==1,b notin (x,x),c,d>5,e<7').toString()).toBe(
      'a==1,b notin (x),c,d>5,e<7',
    );
  });

  it('round-trips', () => {
    const text = 'app=web,!canary,env notin (dev,test),tier in (backend,frontend)';
    expect(parseSelector(parseSelector(text).toString()).toString()).toBe(text);
  });

  it('exposes requirements', () => {
    const [first, second] = parseSelector('tier in (b,a),app').requirements();
    expect(first).toMatchObject({ key: 'app', operator: 'exists', values: [] });
    expect(second).toMatchObject({ key: 'tier', operator: 'in', values: ['a', 'b'] });
  });
});

describe('parseSelector: errors', () => {
  it('names the expected token and the position', () => {
    const err = parseError('app in (a');
    expect(err.message).toBe(
      `invalid label selector "app in (a": expected ',' or ')' at position 9`,
    );
    expect(err.position).toBe(9);
    expect(err.input).toBe('app in (a');
  });

  it.each([
    ['app in a', `found "a", expected '(' at position 7`],
    ['app=web,', "expected a label key or '!' at position 8"],
    [',app', `found ",", expected a label key or '!' at position 0`],
    ['a=b=c', `found "=", expected ',' or end of selector at position 3`],
    [
      'a b',
      "found \"b\", expected '=', '==', '!=', 'in', 'notin', '>', '<', ',' or end of selector after a label key at position 2",
    ],
    ['!', "expected a label key after '!' at position 1"],
    ['a in (x y)', `found "y", expected ',' or ')' at position 8`],
    ['a>', "expected an integer after '>' at position 2"],
    ['(a)', 'found "(", expected a label key or \'!\' at position 0'],
  ])('%j', (selector, message) => {
    const err = parseError(selector);
    expect(err.message).toContain(message);
  });

  it('rejects invalid keys naming the key', () => {
    const err = parseError('-bad=1');
    expect(err.message).toContain('invalid label key "-bad"');
    expect(err.message).toContain('at position 0');
    expect(err.position).toBe(0);
    expect(parseError('x,-bad').position).toBe(2);
  });

  it('rejects invalid values naming the value', () => {
    expect(parseError('app=-web').message).toContain('invalid label value "-web"');
    expect(parseError(`app=${'v'.repeat(64)}`).message).toContain('no more than 63');
  });

  it('rejects operators with the wrong values', () => {
    expect(parseError('a>x').message).toContain("'gt' needs exactly one integer value");
  });

  it('reads `()` as the value set {""} and `in`/`notin` as keys, as client-go does', () => {
    expect(parseSelector('a in ()').toString()).toBe('a in ()');
    expect(parseSelector('a in ()').requirements()[0]?.values).toEqual(['']);
    expect(parseSelector('a notin ()').matches({ a: '' })).toBe(false);
    expect(parseSelector('a notin ()').matches({ a: 'x' })).toBe(true);
    expect(parseSelector('notin,in in (a)').toString()).toBe('in in (a),notin');
    expect(parseSelector('!in').matches({})).toBe(true);
    expect(parseSelector('notin notin (in)').matches({ notin: 'x' })).toBe(true);
  });

  it('rejects characters the API does not allow in keys', () => {
    expect(parseError('a@b').message).toContain('invalid label key "a@b"');
  });
});

describe('label key and value validation', () => {
  // The longest name (after any `prefix/`) and the longest prefix a key may have.
  const longestName = 'a'.repeat(63);
  const longestPrefix = 'a'.repeat(253);

  it.each([
    'app',
    'a',
    'app.kubernetes.io/name',
    'example.com/my_key-1.x',
    'A9',
    longestName,
    `${longestPrefix}/x`,
  ])('accepts key %j', (key) => {
    expect(isValidLabelKey(key)).toBe(true);
  });

  it.each([
    '',
    '-bad',
    'bad-',
    '_x',
    'a b',
    '/name',
    'prefix/',
    'Example.com/name',
    'a/b/c',
    `${longestName}a`,
    `${longestPrefix}a/x`,
    '-pre.fix/name',
  ])('rejects key %j', (key) => {
    expect(isValidLabelKey(key)).toBe(false);
    expect(() => new Requirement(key, 'exists')).toThrow(
      `invalid label key ${JSON.stringify(key)}`,
    );
  });

  it('validates values', () => {
    expect(isValidLabelValue('')).toBe(true);
    expect(isValidLabelValue('v1.2_3-x')).toBe(true);
    expect(isValidLabelValue('v'.repeat(63))).toBe(true);
    expect(isValidLabelValue('v'.repeat(64))).toBe(false);
    expect(isValidLabelValue('.x')).toBe(false);
    expect(isValidLabelValue('x/y')).toBe(false);
  });
});

describe('Requirement', () => {
  it('checks the value count per operator', () => {
    expect(() => new Requirement('a', '=', [])).toThrow("'=' needs exactly one value, got 0");
    expect(() => new Requirement('a', '!=', ['x', 'y'])).toThrow('exactly one value, got 2');
    expect(() => new Requirement('a', 'exists', ['x'])).toThrow("'exists' takes no values");
    expect(() => new Requirement('a', '!', ['x'])).toThrow("'does not exist' takes no values");
    expect(() => new Requirement('a', 'in', [])).toThrow(SelectorParseError);
    expect(() => new Requirement('a', 'lt', ['1.5'])).toThrow('integer');
  });

  it('is immutable', () => {
    const requirement = new Requirement('a', 'in', ['y', 'x']);
    expect(Object.isFrozen(requirement)).toBe(true);
    expect(Object.isFrozen(requirement.values)).toBe(true);
    expect(requirement.values).toEqual(['x', 'y']);
  });
});

describe('Selector', () => {
  it('add returns a new, re-sorted selector', () => {
    const base = parseSelector('m=1');
    const extended = base.add(new Requirement('a', 'exists'), new Requirement('z', '!'));
    expect(extended.toString()).toBe('a,m=1,!z');
    expect(base.toString()).toBe('m=1');
  });

  it('several requirements on one key keep their order and all apply', () => {
    const selector = parseSelector('a!=1,a!=2');
    expect(selector.toString()).toBe('a!=1,a!=2');
    expect(selector.matches({ a: '2' })).toBe(false);
    expect(selector.matches({ a: '3' })).toBe(true);
  });

  it('requiresExactMatch finds a pinned value', () => {
    const selector = parseSelector('app=web,tier in (fe),env in (a,b),x!=y');
    const keys = ['app', 'tier', 'env', 'x', 'nope'];
    expect(keys.map((key) => selector.requiresExactMatch(key))).toEqual([
      'web',
      'fe',
      undefined,
      undefined,
      undefined,
    ]);
  });

  /** Checks that `selector` answers `matches` whatever the labels, and prints as `''`. */
  function expectConstant(selector: Selector, matches: boolean): void {
    expect(selector.matches(undefined)).toBe(matches);
    expect(selector.matches({ a: 'b' })).toBe(matches);
    expect(selector.toString()).toBe('');
  }

  it('everything matches all and is empty', () => {
    const all = everything();
    expectConstant(all, true);
    expect(all.empty()).toBe(true);
    expect(all.requirements()).toEqual([]);
    expect(all.add(new Requirement('a', 'exists')).toString()).toBe('a');
  });

  it('nothing matches none, is not empty, and stays nothing', () => {
    const none = nothing();
    expectConstant(none, false);
    expect(none.empty()).toBe(false);
    expect(none.add(new Requirement('a', 'exists')).matches({ a: 'b' })).toBe(false);
  });
});

describe('selectorFromSet', () => {
  it('requires every pair, sorted by key', () => {
    const selector = selectorFromSet({ tier: 'fe', app: 'web' });
    expect(selector.toString()).toBe('app=web,tier=fe');
    expect(selector.matches({ app: 'web', tier: 'fe', extra: 'x' })).toBe(true);
    expect(selector.matches({ app: 'web' })).toBe(false);
  });

  it('empty or missing set selects everything', () => {
    expect(selectorFromSet({}).empty()).toBe(true);
    expect(selectorFromSet(undefined).matches({ a: 'b' })).toBe(true);
  });

  it('rejects invalid pairs', () => {
    expect(() => selectorFromSet({ '-a': 'b' })).toThrow(SelectorParseError);
    expect(() => selectorFromSet({ a: 'b c' })).toThrow('invalid label value "b c"');
  });
});

describe('labelSelectorAsSelector', () => {
  it('null/undefined selects nothing, {} selects everything', () => {
    expect(labelSelectorAsSelector(null).matches({})).toBe(false);
    expect(labelSelectorAsSelector(undefined).matches({ a: 'b' })).toBe(false);
    expect(labelSelectorAsSelector({}).matches(undefined)).toBe(true);
    expect(labelSelectorAsSelector({ matchLabels: {}, matchExpressions: [] }).empty()).toBe(true);
  });

  it('combines matchLabels and matchExpressions', () => {
    const selector = labelSelectorAsSelector({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['fe', 'be'] },
        { key: 'env', operator: 'NotIn', values: ['dev'] },
        { key: 'team', operator: 'Exists' },
        { key: 'canary', operator: 'DoesNotExist', values: [] },
      ],
    });
    expect(selector.toString()).toBe('app=web,!canary,env notin (dev),team,tier in (be,fe)');
    expect(selector.matches({ app: 'web', tier: 'fe', team: 'x' })).toBe(true);
    expect(selector.matches({ app: 'web', tier: 'fe', team: 'x', env: 'dev' })).toBe(false);
    expect(selector.matches({ app: 'web', tier: 'fe', team: 'x', canary: '1' })).toBe(false);
    expect(selector.matches({ app: 'web', tier: 'fe' })).toBe(false);
  });

  it('rejects In/NotIn without values and Exists/DoesNotExist with values', () => {
    expect(() =>
      labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }),
    ).toThrow("'in' needs at least one value");
    expect(() =>
      labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'NotIn' }] }),
    ).toThrow(SelectorParseError);
    expect(() =>
      labelSelectorAsSelector({
        matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }],
      }),
    ).toThrow("'exists' takes no values");
    expect(() =>
      labelSelectorAsSelector({
        matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x'] }],
      }),
    ).toThrow(SelectorParseError);
  });

  it('rejects unknown operators', () => {
    expect(() =>
      labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }),
    ).toThrow('"Gt" is not a valid label selector operator');
    expect(() =>
      labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'toString' }] }),
    ).toThrow('not a valid label selector operator');
  });
});
