/** The default and smallest watch timeout, in seconds (client-go `defaultMinWatchTimeout`). */
export const defaultMinWatchTimeoutSeconds = 300;

// A lower floor set by tests; on globalThis under a registry symbol, so that every copy of
// this package (and each of its entry points) sees it.
const floorKey = Symbol.for('kubets.cache.minWatchTimeoutFloorSeconds');

interface FloorGlobal {
  [floorKey]?: number;
}

/**
 * The smallest `minWatchTimeoutSeconds` a reflector created now honours: 300, unless a test
 * lowered it with {@link setMinWatchTimeoutFloorSeconds}.
 */
export function minWatchTimeoutFloorSeconds(): number {
  return (globalThis as FloorGlobal)[floorKey] ?? defaultMinWatchTimeoutSeconds;
}

/**
 * Lowers (or, with `undefined`, restores) the smallest watch timeout reflectors created from
 * now on honour, for tests that need a watch to end within seconds (chaos tests against a
 * real API server). Returns the previous floor.
 *
 * @throws {RangeError} for a floor that is not a positive number.
 */
export function setMinWatchTimeoutFloorSeconds(seconds: number | undefined): number {
  if (seconds !== undefined && !(seconds > 0)) {
    throw new RangeError(
      `the watch timeout floor must be a positive number of seconds, not ${seconds}`,
    );
  }
  const previous = minWatchTimeoutFloorSeconds();
  (globalThis as FloorGlobal)[floorKey] = seconds;
  return previous;
}
