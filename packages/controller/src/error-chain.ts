/**
 * The first error in `err`'s chain that `matches`, or `undefined`: `err` itself, then its
 * `cause`, and every error of an `AggregateError`, depth first (Go's `errors.As` over wrapped
 * and joined errors). A chain that loops is walked once.
 */
export function findInErrorChain(err: unknown, matches: (candidate: unknown) => boolean): unknown {
  const seen = new Set<unknown>();
  const visit = (candidate: unknown): unknown => {
    if (candidate === undefined || candidate === null || seen.has(candidate)) return undefined;
    seen.add(candidate);
    if (matches(candidate)) return candidate;
    if (candidate instanceof AggregateError) {
      for (const inner of candidate.errors) {
        const found = visit(inner);
        if (found !== undefined) return found;
      }
    }
    return typeof candidate === 'object' && 'cause' in candidate
      ? visit((candidate as { cause?: unknown }).cause)
      : undefined;
  };
  return visit(err);
}
