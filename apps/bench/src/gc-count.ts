// Garbage collections counted over a measured window. A major collection inside a window
// costs as much as thousands of watch events, so a figure is printed with its count and a
// figure that does not repeat can be told apart from one that took a collection.

import {
  type PerformanceEntry,
  PerformanceObserver,
  constants as perfConstants,
} from 'node:perf_hooks';

/** Collections counted in a window. */
export interface Collections {
  major: number;
  minor: number;
}

/**
 * Counts the garbage collections from now: `read()` gives those so far, `stop()` those so far
 * and ends the count.
 */
export function countCollections(): { read(): Collections; stop(): Collections } {
  const counted: Collections = { major: 0, minor: 0 };
  const add = (entries: readonly PerformanceEntry[]): void => {
    for (const entry of entries) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) counted.major++;
      else if (kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) counted.minor++;
    }
  };
  const observer = new PerformanceObserver((list) => add(list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  const read = (): Collections => {
    // Entries reach the callback asynchronously: take the ones not yet delivered.
    add(observer.takeRecords());
    return { ...counted };
  };
  return {
    read,
    stop() {
      const last = read();
      observer.disconnect();
      return last;
    },
  };
}

/** `gc major=1 minor=37`, the form {@link parseCollections} reads back. */
export function formatCollections(collections: Collections): string {
  return `gc major=${collections.major} minor=${collections.minor}`;
}

/** The collections of the last window printed in `output`, if one was. */
export function parseCollections(output: string): Collections | undefined {
  const last = [...output.matchAll(/gc major=(\d+) minor=(\d+)/g)].at(-1);
  return last === undefined ? undefined : { major: Number(last[1]), minor: Number(last[2]) };
}

/** The collections between two counts of {@link countCollections}: `later` minus `earlier`. */
export function collectionsBetween(earlier: Collections, later: Collections): Collections {
  return { major: later.major - earlier.major, minor: later.minor - earlier.minor };
}
