import { describe, expect, it } from 'vitest';

/** What label and field selectors have in common for these tests. */
interface Matcher<Subject> {
  matches(subject: Subject): boolean;
}

/** One test per `[selector, expected]` row: whether `parse(selector)` matches `subject`. */
export function itMatches<Subject>(
  parse: (selector: string) => Matcher<Subject>,
  subject: Subject,
  cases: [selector: string, expected: boolean][],
): void {
  it.each(cases)('%j → %s', (selector, expected) => {
    expect(parse(selector).matches(subject)).toBe(expected);
  });
}

type Fields = Record<string, string>;

/** A `TestSelectorMatches` row: the selector, the label or field set, whether it matches. */
export type MatchRow = [selector: string, set: Fields, matches: boolean];

/** Rows from `[selector, a set it matches, a set it does not match]` triples, two each. */
export function matchPairs(triples: [selector: string, yes: Fields, no: Fields][]): MatchRow[] {
  return triples.flatMap(([selector, yes, no]): MatchRow[] => [
    [selector, yes, true],
    [selector, no, false],
  ]);
}

/** The `TestSelectorMatches` rows that labels' and fields' Go tests both have. */
export function commonMatchRows(): MatchRow[] {
  return [
    ['', { x: 'y' }, true],
    ['notin=in', { notin: 'in' }, true],
    ...matchPairs([
      ['x=y', { x: 'y' }, { x: 'z' }],
      ['x=y,z=w', { x: 'y', z: 'w' }, { x: 'w', z: 'w' }],
      ['x!=y,z!=w', { x: 'z', z: 'a' }, { x: 'z', z: 'w' }],
    ]),
  ];
}

/** Both Go tests' rows over the set `{foo: bar, baz: blah}` (`set` may hold more). */
export function fooBarBazBlahRows(set: Fields): MatchRow[] {
  const matching = ['foo=bar', 'baz=blah', 'foo=bar,baz=blah'];
  const failing = ['foo=blah', 'baz=bar', 'foo=bar,foobar=bar,baz=blah'];
  return [
    ...matching.map((selector): MatchRow => [selector, set, true]),
    ...failing.map((selector): MatchRow => [selector, set, false]),
  ];
}

/** What a label or field selector offers to `TestDeterministicParse` and `TestEverything`. */
interface ParsedSelector {
  toString(): string;
  matches(set: Fields): boolean;
  empty(): boolean;
}

/** client-go's `TestDeterministicParse` and `TestEverything`, for labels and fields alike. */
export function describeDeterministicParseAndEverything(
  parse: (selector: string) => ParsedSelector,
  everything: () => ParsedSelector,
): void {
  describe('TestDeterministicParse', () => {
    it('prints x=a,a=x and a=x,x=a alike', () => {
      expect(parse('x=a,a=x').toString()).toBe(parse('a=x,x=a').toString());
    });
  });

  describe('TestEverything', () => {
    it('matches anything and is empty', () => {
      expect(everything().matches({ x: 'y' })).toBe(true);
      expect(everything().empty()).toBe(true);
    });
  });
}

/**
 * client-go's `TestSetString` (labels and fields alike): a selector built from a set prints
 * its terms sorted by key. `fromSet` is Go's `Set.String()` path in kubets.
 */
export function describeSetString(fromSet: (set: Fields) => { toString(): string }): void {
  describe('TestSetString', () => {
    const rows: [set: Fields, out: string][] = [
      [{ x: 'y' }, 'x=y'],
      [{ foo: 'bar' }, 'foo=bar'],
      [{ foo: 'bar', baz: 'qup' }, 'baz=qup,foo=bar'],
    ];
    it.each(rows)('%j → %j', (set, out) => {
      expect(fromSet(set).toString()).toBe(out);
    });
  });
}
