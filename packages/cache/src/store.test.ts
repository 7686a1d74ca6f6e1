import { describe, expect, it } from 'vitest';
import { pod, type TestPod } from '../test/helpers.js';
import { deletedFinalStateUnknown } from './keys.js';
import { newIndexer, newStore } from './store.js';
import {
  type IndexFunc,
  IndexNotFoundError,
  metaNamespaceIndexFunc,
  namespaceIndex,
} from './thread-safe-store.js';

const byNode: IndexFunc<TestPod> = (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []);
const byLabels: IndexFunc<TestPod> = (p) => Object.values(p.metadata.labels ?? {});

describe('Store', () => {
  it('adds, updates, gets, lists and deletes by key', () => {
    const s = newStore<TestPod>();
    const a = pod('a');
    s.add(a);
    s.add(pod('b', '1', 'other'));
    expect(s.getByKey('default/a')).toBe(a);
    expect(s.get(pod('a'))).toBe(a);
    const a2 = pod('a', '2');
    s.update(a2);
    expect(s.getByKey('default/a')).toBe(a2);
    expect(s.listKeys().sort()).toEqual(['default/a', 'other/b']);
    expect(s.list()).toHaveLength(2);
    s.delete(pod('a'));
    expect(s.getByKey('default/a')).toBeUndefined();
    s.delete(deletedFinalStateUnknown<TestPod>('other/b', undefined));
    expect(s.list()).toEqual([]);
    s.delete(pod('missing'));
    s.resync();
  });

  it('replace swaps the whole content', () => {
    const s = newStore<TestPod>();
    s.add(pod('a'));
    s.replace([pod('b'), pod('c')], '10');
    expect(s.listKeys().sort()).toEqual(['default/b', 'default/c']);
  });
});

describe('Indexer', () => {
  it('maintains indexes on add, update and delete', () => {
    const ix = newIndexer<TestPod>(undefined, { [namespaceIndex]: metaNamespaceIndexFunc, byNode });
    ix.add(pod('a', '1', 'ns1', 'node1'));
    ix.add(pod('b', '1', 'ns1', 'node2'));
    ix.add(pod('c', '1', 'ns2', 'node1'));
    expect(ix.indexKeys('byNode', 'node1').sort()).toEqual(['ns1/a', 'ns2/c']);
    expect(
      ix
        .byIndex(namespaceIndex, 'ns1')
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual(['a', 'b']);
    // Moving a to node2 removes it from node1's entry.
    ix.update(pod('a', '2', 'ns1', 'node2'));
    expect(ix.indexKeys('byNode', 'node1')).toEqual(['ns2/c']);
    expect(ix.indexKeys('byNode', 'node2').sort()).toEqual(['ns1/a', 'ns1/b']);
    // Losing the value entirely.
    ix.update(pod('b', '2', 'ns1'));
    expect(ix.indexKeys('byNode', 'node2')).toEqual(['ns1/a']);
    ix.delete(pod('c', '1', 'ns2'));
    expect(ix.indexKeys('byNode', 'node1')).toEqual([]);
    expect(ix.listIndexFuncValues('byNode')).toEqual(['node2']);
    expect(ix.listIndexFuncValues(namespaceIndex)).toEqual(['ns1']);
    expect(ix.byIndex(namespaceIndex, 'ns2')).toEqual([]);
  });

  it('index() finds objects sharing any value, multi-valued functions work', () => {
    const ix = newIndexer<TestPod>(undefined, { byLabels });
    const withLabels = (name: string, labels: Record<string, string>): TestPod => ({
      metadata: { name, namespace: 'd', labels },
    });
    ix.add(withLabels('a', { x: 'red', y: 'big' }));
    ix.add(withLabels('b', { x: 'red' }));
    ix.add(withLabels('c', { y: 'big' }));
    ix.add(withLabels('d', { z: 'blue' }));
    const hits = ix.index('byLabels', withLabels('q', { x: 'red', y: 'big' }));
    expect(hits.map((p) => p.metadata.name).sort()).toEqual(['a', 'b', 'c']);
    expect(
      ix.index('byLabels', withLabels('q', { z: 'blue' })).map((p) => p.metadata.name),
    ).toEqual(['d']);
    ix.update(withLabels('a', { y: 'big' }));
    expect(ix.indexKeys('byLabels', 'red')).toEqual(['d/b']);
  });

  it('rebuilds indexes on replace', () => {
    const ix = newIndexer<TestPod>(undefined, { byNode });
    ix.add(pod('a', '1', 'd', 'n1'));
    ix.replace([pod('b', '1', 'd', 'n2')], '5');
    expect(ix.listIndexFuncValues('byNode')).toEqual(['n2']);
    expect(ix.byIndex('byNode', 'n1')).toEqual([]);
  });

  it('addIndexers indexes objects already stored and rejects duplicates', () => {
    const ix = newIndexer<TestPod>();
    ix.add(pod('a', '1', 'ns1', 'node1'));
    ix.add(pod('b', '1', 'ns2', 'node1'));
    ix.addIndexers({ byNode, [namespaceIndex]: metaNamespaceIndexFunc });
    expect(ix.indexKeys('byNode', 'node1').sort()).toEqual(['ns1/a', 'ns2/b']);
    expect(ix.indexKeys(namespaceIndex, 'ns2')).toEqual(['ns2/b']);
    expect(Object.keys(ix.getIndexers()).sort()).toEqual(['byNode', namespaceIndex]);
    ix.add(pod('c', '1', 'ns1', 'node3'));
    expect(ix.byIndex('byNode', 'node3')).toHaveLength(1);
    expect(() => ix.addIndexers({ byNode })).toThrow(/already registered/);
  });

  it('throws IndexNotFoundError for an unknown index name', () => {
    const ix = newIndexer<TestPod>();
    ix.add(pod('a'));
    expect(() => ix.byIndex('nope', 'x')).toThrow(IndexNotFoundError);
    expect(() => ix.indexKeys('nope', 'x')).toThrow(/index with name "nope" does not exist/);
    expect(() => ix.listIndexFuncValues('nope')).toThrow(IndexNotFoundError);
    expect(() => ix.index('nope', pod('a'))).toThrow(IndexNotFoundError);
  });
});
