// Test support for this package's unit tests (@kubets/test-utils depends on this package,
// so its tests cannot use that).

/** The error of class `type` that `fn` throws; fails when it returns or throws another. */
export function thrownBy<E extends Error>(
  fn: () => unknown,
  type: abstract new (...args: never[]) => E,
  what: string,
): E {
  try {
    fn();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected ${what} to be rejected`);
}
