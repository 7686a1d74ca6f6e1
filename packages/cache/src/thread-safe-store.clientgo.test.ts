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

    it('Add Update and Delete', () => {
      const store = new ThreadSafeStore<unknown>();
      store.add('key1', withRV('10'));
      expect(store.lastStoreSyncResourceVersion()).toBe('10');
      store.add('key3', withRV('10'));
      expect(store.lastStoreSyncResourceVersion()).toBe('10');
      store.add('key4', withRV('20'));
      expect(store.lastStoreSyncResourceVersion()).toBe('20');
      // Delete an earlier object with a newer RV.
      store.deleteWithObject('key4', withRV('30'));
      expect(store.lastStoreSyncResourceVersion()).toBe('30');
      // A non-meta object leaves it.
      store.add('key5', 'just a string');
      expect(store.lastStoreSyncResourceVersion()).toBe('30');
      store.add('key6', withRV('40'));
      expect(store.lastStoreSyncResourceVersion()).toBe('40');
      // Nil delete.
      store.delete('key6');
      expect(store.lastStoreSyncResourceVersion()).toBe('40');

      const txns: ThreadSafeStoreTransaction<unknown>[] = [
        { object: withRV('40'), type: 'Update', key: 'key9' },
        { object: withRV('30'), type: 'Update', key: 'key10' },
        { object: withRV('50'), type: 'Update', key: 'key11' },
      ];
      store.transaction(txns);
      expect(store.lastStoreSyncResourceVersion()).toBe('50');
    });

    it('Replace', () => {
      const store = new ThreadSafeStore<unknown>();
      store.add('key1', withRV('10'));
      expect(store.lastStoreSyncResourceVersion()).toBe('10');
      const items = new Map<string, unknown>([
        ['key3', withRV('40')],
        ['key2', withRV('30')],
      ]);
      store.replace(items, '50');
      expect(store.lastStoreSyncResourceVersion()).toBe('50');
    });

    it('Delete', () => {
      const store = new ThreadSafeStore<unknown>();
      store.add('key1', withRV('10'));
      expect(store.lastStoreSyncResourceVersion()).toBe('10');
      store.deleteWithObject('key1', withRV('20'));
      expect(store.lastStoreSyncResourceVersion()).toBe('20');
    });
  });
});
