import { expect, it } from 'vitest';

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
