// client-go's tools/cache/index_test.go, ported case by case: each test keeps the Go test's
// name, inputs and expectations.

import { describe, expect, it } from 'vitest';
import { metaNamespaceKeyFunc } from './keys.js';
import { newIndexer } from './store.js';

interface Pod {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}

const testIndexFunc = (pod: Pod): string[] => [pod.metadata.labels?.foo ?? ''];
const testUsersIndexFunc = (pod: Pod): string[] =>
  (pod.metadata.annotations?.users ?? '').split(',');

describe('client-go index_test.go', () => {
  it('TestGetIndexFuncValues', () => {
    const index = newIndexer<Pod>(metaNamespaceKeyFunc, { testmodes: testIndexFunc });
    index.add({ metadata: { name: 'one', labels: { foo: 'bar' } } });
    index.add({ metadata: { name: 'two', labels: { foo: 'bar' } } });
    index.add({ metadata: { name: 'tre', labels: { foo: 'biz' } } });

    const keys = index.listIndexFuncValues('testmodes');
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(['bar', 'biz']).toContain(key);
  });

  it('TestMultiIndexKeys', () => {
    const index = newIndexer<Pod>(metaNamespaceKeyFunc, { byUser: testUsersIndexFunc });
    const pod1: Pod = { metadata: { name: 'one', annotations: { users: 'ernie,bert' } } };
    const pod2: Pod = { metadata: { name: 'two', annotations: { users: 'bert,oscar' } } };
    const pod3: Pod = { metadata: { name: 'tre', annotations: { users: 'ernie,elmo' } } };
    index.add(pod1);
    index.add(pod2);
    index.add(pod3);

    const expected: Record<string, string[]> = {
      ernie: ['one', 'tre'],
      bert: ['one', 'two'],
      elmo: ['tre'],
      oscar: ['two'],
      elmo1: [],
    };
    for (const [k, names] of Object.entries(expected)) {
      const found = new Set(index.byIndex('byUser', k).map((p) => p.metadata.name));
      expect(found).toEqual(new Set(names));
    }

    index.delete(pod3);
    const erniePods = index.byIndex('byUser', 'ernie');
    expect(erniePods.map((p) => p.metadata.name)).toEqual(['one']);
    expect(index.byIndex('byUser', 'elmo')).toHaveLength(0);

    const copyOfPod2: Pod = structuredClone(pod2);
    copyOfPod2.metadata.annotations = { users: 'oscar' };
    index.update(copyOfPod2);
    const bertPods = index.byIndex('byUser', 'bert');
    expect(bertPods.map((p) => p.metadata.name)).toEqual(['one']);
  });
});
