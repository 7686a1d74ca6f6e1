// client-go's tools/cache/thread_safe_store_test.go, ported case by case: each test keeps
// the Go test's name, inputs and expectations. The Go tests read the index's sets directly;
// these read them through `indexKeys` and `listIndexFuncValues`.

import { describe, expect, it } from 'vitest';
import { ThreadSafeStore, type ThreadSafeStoreTransaction } from './thread-safe-store.js';

/** client-go's `&metav1.ObjectMeta{ResourceVersion: rv}`: an object with metadata. */
const withRV = (resourceVersion: string) => ({ metadata: { resourceVersion } });

describe('client-go thread_safe_store_test.go', () => {
  it('TestThreadSafeStoreDeleteRemovesEmptySetsFromIndex', () => {
    const testIndexer = 'testIndexer';
    const store = new ThreadSafeStore<string>({ [testIndexer]: (obj) => [obj] });
    const testKey = 'testKey';
    store.add(testKey, testKey);
    // Assumption check: a set for `testKey` with one element in the index.
    expect(store.indexKeys(testIndexer, testKey)).toHaveLength(1);

    store.delete(testKey);
    expect(store.listIndexFuncValues(testIndexer)).not.toContain(testKey);
  });

  it('TestThreadSafeStoreAddKeepsNonEmptySetPostDeleteFromIndex', () => {
    const testIndexer = 'testIndexer';
    const testIndex = 'testIndex';
    const store = new ThreadSafeStore<string>({ [testIndexer]: () => [testIndex] });
    store.add('retain', 'retain');
    store.add('delete', 'delete');
    expect(store.indexKeys(testIndexer, testIndex)).toHaveLength(2);

    store.delete('delete');
    expect(store.listIndexFuncValues(testIndexer)).toContain(testIndex);
    expect(store.indexKeys(testIndexer, testIndex)).toHaveLength(1);
  });

  it('TestThreadSafeStoreIndexingFunctionsWithMultipleValues', () => {
    const testIndexer = 'testIndexer';
    const store = new ThreadSafeStore<string>({ [testIndexer]: (obj) => obj.split(',') });
    const compare = (key: string, expected: string[]): void => {
      expect(store.indexKeys(testIndexer, key).sort(), `index for key ${key}`).toEqual(expected);
    };

    store.add('key1', 'foo');
    store.add('key2', 'bar');
    compare('foo', ['key1']);
    compare('bar', ['key2']);

    store.update('key2', 'foo,bar');
    compare('foo', ['key1', 'key2']);
    compare('bar', ['key2']);

    store.update('key1', 'foo,bar');
    compare('foo', ['key1', 'key2']);
    compare('bar', ['key1', 'key2']);

    store.add('key3', 'foo,bar,baz');
    compare('foo', ['key1', 'key2', 'key3']);
    compare('bar', ['key1', 'key2', 'key3']);
    compare('baz', ['key3']);

    store.update('key1', 'foo');
    compare('foo', ['key1', 'key2', 'key3']);
    compare('bar', ['key2', 'key3']);
    compare('baz', ['key3']);

    store.update('key2', 'bar');
    compare('foo', ['key1', 'key3']);
    compare('bar', ['key2', 'key3']);
    compare('baz', ['key3']);

    store.delete('key1');
    compare('foo', ['key3']);
    compare('bar', ['key2', 'key3']);
    compare('baz', ['key3']);

    store.delete('key3');
    compare('foo', []);
    compare('bar', ['key2']);
    compare('baz', []);
  });

  describe('TestThreadSafeStoreRV', () => {
    it('Initial state', () => {
      const store = new ThreadSafeStore<unknown>();
      expect(store.lastStoreSyncResourceVersion()).toBe('');
    });

    // Each case: the operations, each with the store's resourceVersion after it.
    const cases: Record<string, [(store: ThreadSafeStore<unknown>) => void, string][]> = {
      'Add Update and Delete': [
        [(store) => store.add('key1', withRV('10')), '10'],
        [(store) => store.add('key3', withRV('10')), '10'],
        [(store) => store.add('key4', withRV('20')), '20'],
        // Delete an earlier object with a newer RV.
        [(store) => store.deleteWithObject('key4', withRV('30')), '30'],
        // A non-meta object leaves it.
        [(store) => store.add('key5', 'just a string'), '30'],
        [(store) => store.add('key6', withRV('40')), '40'],
        // Nil delete.
        [(store) => store.delete('key6'), '40'],
        [
          (store) =>
            store.transaction([
              { object: withRV('40'), type: 'Update', key: 'key9' },
              { object: withRV('30'), type: 'Update', key: 'key10' },
              { object: withRV('50'), type: 'Update', key: 'key11' },
            ] satisfies ThreadSafeStoreTransaction<unknown>[]),
          '50',
        ],
      ],
      Replace: [
        [(store) => store.add('key1', withRV('10')), '10'],
        [
          (store) =>
            store.replace(
              new Map<string, unknown>([
                ['key3', withRV('40')],
                ['key2', withRV('30')],
              ]),
              '50',
            ),
          '50',
        ],
      ],
      Delete: [
        [(store) => store.add('key1', withRV('10')), '10'],
        [(store) => store.deleteWithObject('key1', withRV('20')), '20'],
      ],
    };

    it.each(Object.entries(cases))('%s', (_name, operations) => {
      const store = new ThreadSafeStore<unknown>();
      for (const [operate, resourceVersion] of operations) {
        operate(store);
        expect(store.lastStoreSyncResourceVersion()).toBe(resourceVersion);
      }
    });
  });
});
