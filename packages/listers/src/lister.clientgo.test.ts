// client-go's tools/cache/listers_test.go, ported case by case: the test keeps the Go test's
// name, inputs and expectations, with the object counts divided by 100 (see the README).

import { everything, selectorFromSet } from '@kubets/apimachinery';
import { newStore, type Store } from '@kubets/cache';
import { describe, expect, it } from 'vitest';
import { listAll } from './lister.js';

interface PartialObjectMetadata {
  metadata: { name: string; labels: Record<string, string> };
}

/** client-go's `mustCreateStore`: `numObjects` objects keyed by name, the first `numMatching` labelled. */
function mustCreateStore(
  numObjects: number,
  numMatching: number,
  labels: Record<string, string>,
): Store<PartialObjectMetadata> {
  if (numMatching > numObjects) throw new Error('there can not be more matches than objects');
  const store = newStore<PartialObjectMetadata>(
    (obj) => (obj as PartialObjectMetadata).metadata.name,
  );
  for (let i = 0; i < numObjects; i++) {
    store.add({ metadata: { name: `obj-${i}`, labels: i < numMatching ? labels : {} } });
  }
  return store;
}

describe('client-go listers_test.go', () => {
  it.each<{
    name: string;
    numObjects: number;
    numMatching: number;
    matchingLabels: Record<string, string>;
    selector: ReturnType<typeof everything>;
    expectedCount: number;
  }>([
    {
      name: 'subset match',
      numObjects: 100_000 / 100,
      numMatching: 10_000 / 100,
      matchingLabels: { match: 'true' },
      selector: selectorFromSet({ match: 'true' }),
      expectedCount: 10_000 / 100,
    },
    {
      name: 'all match',
      numObjects: 1_000_000 / 100,
      numMatching: 0,
      matchingLabels: {},
      selector: everything(),
      expectedCount: 1_000_000 / 100,
    },
    {
      name: 'no match',
      numObjects: 1_000_000 / 100,
      numMatching: 0,
      matchingLabels: { nomatch: 'true' },
      selector: selectorFromSet({ match: 'true' }),
      expectedCount: 0,
    },
  ])('TestListAll: $name', (tc) => {
    const store = mustCreateStore(tc.numObjects, tc.numMatching, tc.matchingLabels);
    expect(listAll(store, tc.selector)).toHaveLength(tc.expectedCount);
  });
});
