// client-go's tools/cache/store_test.go, ported case by case: each test keeps the Go test's
// name, inputs and expectations. Cases that cannot apply are listed in the README ("client-go
// tests not ported").

import { afterEach, describe, expect, it } from 'vitest';
import { newInformerName } from './identity.js';
import {
  type InformerMetricsProvider,
  noopInformerMetricsProvider,
  setInformerMetricsProvider,
} from './informer-metrics.js';
import type { KeyFunc } from './keys.js';
import { CacheIndexer, type Indexer, newIndexer, newStore, type Store } from './store.js';
import type { Indexers } from './thread-safe-store.js';

/** client-go's `testStoreObject`. */
interface TestStoreObject {
  id: string;
  val: string;
}

const mkObj = (id: string, val: string): TestStoreObject => ({ id, val });
const testStoreKeyFunc: KeyFunc = (obj) => (obj as TestStoreObject).id;
const testStoreIndexers = (): Indexers<TestStoreObject> => ({ by_val: (obj) => [obj.val] });

/** client-go's `doTestStore`: the public interface of a store. */
function doTestStore(store: Store<TestStoreObject>): void {
  store.add(mkObj('foo', 'bar'));
  expect(store.get(mkObj('foo', ''))?.val).toBe('bar');
  store.update(mkObj('foo', 'baz'));
  expect(store.get(mkObj('foo', ''))?.val).toBe('baz');
  store.delete(mkObj('foo', ''));
  expect(store.get(mkObj('foo', ''))).toBeUndefined();

  // List.
  store.add(mkObj('a', 'b'));
  store.add(mkObj('c', 'd'));
  store.add(mkObj('e', 'e'));
  expect(new Set(store.list().map((o) => o.val))).toEqual(new Set(['b', 'd', 'e']));
  expect(store.list()).toHaveLength(3);

  // Replace.
  store.replace([mkObj('foo', 'foo'), mkObj('bar', 'bar')], '0');
  expect(new Set(store.list().map((o) => o.val))).toEqual(new Set(['foo', 'bar']));
  expect(store.list()).toHaveLength(2);
}

/** client-go's `doTestIndex`: the index of an indexer. */
function doTestIndex(indexer: Indexer<TestStoreObject>): void {
  const expected = new Map([
    ['b', ['a', 'c']],
    ['f', ['e']],
    ['h', ['g']],
  ]);
  indexer.add(mkObj('a', 'b'));
  indexer.add(mkObj('c', 'b'));
  indexer.add(mkObj('e', 'f'));
  indexer.add(mkObj('g', 'h'));
  for (const [k, ids] of expected) {
    const found = new Set(indexer.index('by_val', mkObj('', k)).map((o) => o.id));
    for (const id of ids) expect(found).toContain(id);
  }
}

afterEach(() => setInformerMetricsProvider(noopInformerMetricsProvider));

describe('client-go store_test.go', () => {
  it('TestCache', () => {
    doTestStore(newStore<TestStoreObject>(testStoreKeyFunc));
  });

  it('TestCacheWithTransformer', () => {
    let transformerCalled = false;
    doTestStore(
      newStore<TestStoreObject>(testStoreKeyFunc, {
        transformer: (obj) => {
          transformerCalled = true;
          if (typeof obj.id !== 'string') throw new Error('wrong object type');
          return obj;
        },
      }),
    );
    expect(transformerCalled).toBe(true);
  });

  it('TestIndex', () => {
    doTestIndex(newIndexer<TestStoreObject>(testStoreKeyFunc, testStoreIndexers()));
  });

  describe('TestCacheTransactionShouldIndexErrors', () => {
    const successObj1 = 1;
    const successObj2 = 2;
    const failObj1 = 3;
    const failObj2 = 4;
    it.each([
      { name: 'txn all success objects should work', objs: [successObj1, successObj2] },
      {
        name: 'txn all fail objects should work',
        objs: [failObj1, failObj2],
        successfulIndices: [] as number[],
      },
      {
        name: 'txn mix success and fail objects should work',
        objs: [successObj1, failObj1, successObj2, failObj2],
        successfulIndices: [0, 2],
      },
    ])('$name', ({ objs, successfulIndices }) => {
      const testKeyFunc: KeyFunc = (obj) => {
        if (obj === successObj1 || obj === successObj2) return '';
        throw new Error('test error');
      };
      const testStore = new CacheIndexer<number>(testKeyFunc);
      const txnErr = testStore.transaction(
        ...objs.map((object) => ({ object, type: 'Add' as const })),
      );
      if (successfulIndices !== undefined) {
        expect(txnErr?.successfulIndices).toEqual(successfulIndices);
        return;
      }
      expect(txnErr).toBeUndefined();
    });
  });

  it('TestWithStoreMetricsDefaulting', () => {
    const name = newInformerName('test-informer');
    try {
      const id = name.withResource({ group: 'apps', version: 'v1', resource: 'deployments' });
      // No provider given: the store takes the global one (a recording provider here, so
      // that "populated" is observable; with the default no-op one there is nothing to hold).
      const set: number[] = [];
      const recording: InformerMetricsProvider = {
        ...noopInformerMetricsProvider,
        newStoreResourceVersionMetric: () => ({ set: (v) => void set.push(v) }),
      };
      setInformerMetricsProvider(recording);
      const s = newStore<{ metadata: { name: string; resourceVersion: string } }>(undefined, {
        identifier: id,
        informerMetricsProvider: undefined,
      });
      s.add({ metadata: { name: 'a', resourceVersion: '7' } });
      expect(set).toEqual([7]);
    } finally {
      name.release();
    }
  });
});
