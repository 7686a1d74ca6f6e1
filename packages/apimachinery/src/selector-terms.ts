/**
 * What label and field selectors share: an immutable conjunction of terms, all of which must
 * hold. A subclass says how one term matches, how it is written, and which value (if any) it
 * pins a key to. Internal: the public types are the `Selector` and `FieldSelector` interfaces.
 */
export abstract class TermConjunction<Term, Subject> {
  readonly #terms: readonly Term[];

  protected constructor(terms: readonly Term[]) {
    this.#terms = Object.freeze([...terms]);
  }

  /** Whether `term` holds for `subject`. */
  protected abstract termMatches(term: Term, subject: Subject): boolean;
  /** The selector-string form of `term`. */
  protected abstract termString(term: Term): string;
  /** The value `term` requires `key` to equal, or `undefined` when it pins none. */
  protected abstract pinnedValue(term: Term, key: string): string | undefined;

  matches(subject: Subject): boolean {
    return this.#terms.every((term) => this.termMatches(term, subject));
  }

  empty(): boolean {
    return this.#terms.length === 0;
  }

  requirements(): readonly Term[] {
    return this.#terms;
  }

  toString(): string {
    return this.#terms.map((term) => this.termString(term)).join(',');
  }

  requiresExactMatch(key: string): string | undefined {
    for (const term of this.#terms) {
      const value = this.pinnedValue(term, key);
      if (value !== undefined) return value;
    }
    return undefined;
  }
}
