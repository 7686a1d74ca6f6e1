import { describe, expect, it } from 'vitest';
import { ApiStorage } from './api-storage.js';
import { ApiError } from './status.js';
import type { Target } from './target.js';

function setup(historySize = 100, revisionHistory?: number) {
  const storage = new ApiStorage({ historySize, revisionHistory });
  const definition = storage.registry.lookup('', 'v1', 'configmaps');
  if (!definition) throw new Error('configmaps not registered');
  const target: Target = { definition, version: 'v1', namespace: 'default' };
  const create = (name: string, labels: Record<string, string> = {}) =>
    storage.create(
      target,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels } },
      { manager: 'test' },
    );
  return { storage, target, create };
}

const statusOf = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
  throw new Error('expected an ApiError');
};

/** A version schema that keeps whatever a custom resource holds. */
const ANY_OBJECT = {
  openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
};

describe('ApiStorage', () => {
  it('starts with the system namespaces and a global, increasing resourceVersion', () => {
    const { storage, create } = setup();
    const ns = storage.registry.lookup('', 'v1', 'namespaces');
    expect(ns).toBeDefined();
    const names = storage
      .list({ definition: ns!, version: 'v1', namespace: undefined }, {})
      .items.map((e) => e.name);
    expect(names).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    const a = create('a');
    const b = create('b');
    expect(b.rv).toBe(a.rv + 1);
    expect(storage.rv).toBe(b.rv);
  });

  it('lists in key order, pages with continue and keeps pages at the first page’s version', () => {
    const { storage, target, create } = setup();
    for (const name of ['c', 'a', 'e', 'b', 'd']) create(name);
    const first = storage.list(target, { limit: 2 });
    expect(first.items.map((e) => e.name)).toEqual(['a', 'b']);
    expect(first.remainingItemCount).toBe(3);
    storage.delete(target, 'c', {});
    create('bb');
    const second = storage.list(target, { limit: 2, continue: first.continue });
    expect(second.items.map((e) => e.name)).toEqual(['c', 'd']);
    expect(second.resourceVersion).toBe(first.resourceVersion);
    const third = storage.list(target, { limit: 2, continue: second.continue });
    expect(third.items.map((e) => e.name)).toEqual(['e']);
    expect(third.continue).toBeUndefined();
    expect(storage.list(target, {}).items.map((e) => e.name)).toEqual(['a', 'b', 'bb', 'd', 'e']);
  });

  it('serves exact lists from history, and 410 once the revision is compacted', () => {
    const { storage, target, create } = setup(3, 3);
    create('a');
    const rv = String(storage.rv);
    create('b');
    expect(
      storage
        .list(target, { resourceVersion: rv, resourceVersionMatch: 'Exact' })
        .items.map((e) => e.name),
    ).toEqual(['a']);
    for (const name of ['c', 'd', 'e']) create(name);
    expect(
      statusOf(() => storage.list(target, { resourceVersion: rv, resourceVersionMatch: 'Exact' })),
    ).toMatchObject({
      code: 410,
      reason: 'Expired',
      message: 'The resourceVersion for the provided list is too old.',
    });
  });

  it('filters by label and field selectors and rejects unknown fields', () => {
    const { storage, target, create } = setup();
    create('a', { app: 'x' });
    create('b', { app: 'y' });
    expect(storage.list(target, { labelSelector: 'app=x' }).items.map((e) => e.name)).toEqual([
      'a',
    ]);
    expect(
      storage.list(target, { fieldSelector: 'metadata.name!=a' }).items.map((e) => e.name),
    ).toEqual(['b']);
    expect(
      statusOf(() => storage.list(target, { fieldSelector: 'status.phase=Running' })),
    ).toMatchObject({
      code: 400,
      message:
        '"status.phase" is not a known field selector: only "metadata.name", "metadata.namespace"',
    });
    const pods = storage.registry.lookup('', 'v1', 'pods');
    expect(() =>
      storage.list(
        { definition: pods!, version: 'v1', namespace: 'default' },
        { fieldSelector: 'status.phase=Running' },
      ),
    ).not.toThrow();
  });

  it('skips the write for an update that changes nothing', () => {
    const { storage, target, create } = setup();
    const a = create('a');
    const same = storage.update(target, 'a', a.obj, { manager: 'test' });
    expect(same.rv).toBe(a.rv);
    expect(storage.rv).toBe(a.rv);
  });

  it('keeps the last historySize events for watches and older ones until compacted', () => {
    const { storage, target, create } = setup(2, 3);
    const store = storage.storeOf(target.definition);
    const a = create('a');
    const b = create('b');
    expect(store.watchFloor).toBe(0);
    create('c');
    // Out of the watch window, but not compacted: exact lists can still read before it.
    expect(store.watchFloor).toBe(b.rv - 1);
    expect(store.floor).toBe(0);
    expect(store.eventsSince(b.rv - 1).map((e) => e.object.name)).toEqual(['b', 'c']);
    create('d');
    create('e');
    // Three revisions past a and b: compacted, and dropped once out of the window.
    expect(storage.rv - a.rv).toBeGreaterThan(3);
    expect(store.floor).toBe(b.rv);
    expect(store.changesSince(b.rv).size).toBe(3);
    const beforeCompaction = storage.rv;
    storage.compact();
    // One revision ahead, as the write of etcd's compact_rev_key by 1.20's compactor.
    expect(storage.rv).toBe(beforeCompaction + 1);
    expect(store.floor).toBe(storage.rv);
    expect(store.watchFloor).toBe(storage.rv);
    expect(store.eventsSince(0)).toEqual([]);
  });

  it('registers and unregisters a CRD’s resource', () => {
    const storage = new ApiStorage({ historySize: 10 });
    const crds = storage.registry.lookup(
      'apiextensions.k8s.io',
      'v1',
      'customresourcedefinitions',
    )!;
    const crdTarget: Target = { definition: crds, version: 'v1', namespace: undefined };
    storage.create(
      crdTarget,
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'things.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Cluster',
          names: { plural: 'things', kind: 'Thing' },
          versions: [
            { name: 'v1beta1', served: true, storage: false, schema: ANY_OBJECT },
            { name: 'v1', served: true, storage: true, schema: ANY_OBJECT },
          ],
        },
      },
      { manager: 'test' },
    );
    const thing = storage.registry.lookup('example.com', 'v1beta1', 'things');
    expect(thing).toMatchObject({ namespaced: false, kind: 'Thing', versions: ['v1', 'v1beta1'] });
    expect(storage.registry.versionsOf('example.com')).toEqual(['v1', 'v1beta1']);
    const created = storage.create(
      { definition: thing!, version: 'v1beta1', namespace: undefined },
      { apiVersion: 'example.com/v1beta1', kind: 'Thing', metadata: { name: 't' } },
      { manager: 'test' },
    );
    expect(
      storage.render(created, { definition: thing!, version: 'v1', namespace: undefined }),
    ).toContain('"apiVersion":"example.com/v1"');
    storage.delete(crdTarget, 'things.example.com', {});
    expect(storage.registry.lookup('example.com', 'v1', 'things')).toBeUndefined();
    expect(storage.registry.groups()).not.toContain('example.com');
  });
});
