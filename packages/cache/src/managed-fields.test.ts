import { eventually } from '@kubets/test-utils';
import { describe, expect, it, vi } from 'vitest';
import { abortedAfterTest, FakeListerWatcher, listOf } from '../test/helpers.js';
import { dropManagedFields, FieldsV1Pool, shareManagedFields } from './managed-fields.js';
import { newSharedIndexInformer, type SharedIndexInformerOptions } from './shared-informer.js';

interface ManagedPod {
  metadata: {
    name: string;
    namespace: string;
    resourceVersion: string;
    managedFields?: { manager: string; time?: string; fieldsType?: string; fieldsV1?: unknown }[];
  };
}

// As the API server writes it: a fresh parse per object, so no two objects share a tree.
function managedPod(name: string, rv: string, containerName = 'app'): ManagedPod {
  return JSON.parse(
    JSON.stringify({
      metadata: {
        name,
        namespace: 'default',
        resourceVersion: rv,
        managedFields: [
          {
            manager: 'kubectl',
            time: `2026-11-22T10:00:0${rv.slice(-1)}Z`,
            fieldsType: 'FieldsV1',
            fieldsV1: {
              'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
              'f:spec': { 'f:containers': { [`k:{"name":"${containerName}"}`]: { '.': {} } } },
            },
          },
          {
            manager: 'kubelet',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:status': { 'f:phase': {} } },
          },
        ],
      },
    }),
  );
}

function trees(obj: ManagedPod): unknown[] {
  return (obj.metadata.managedFields ?? []).map((entry) => entry.fieldsV1);
}

describe('FieldsV1Pool', () => {
  it('points equal trees of different objects at one shared tree, per entry', () => {
    const pool = new FieldsV1Pool();
    const a = pool.share(managedPod('a', '1'));
    const b = pool.share(managedPod('b', '2'));
    expect(trees(b)[0]).toBe(trees(a)[0]);
    expect(trees(b)[1]).toBe(trees(a)[1]);
    expect(trees(a)[0]).not.toBe(trees(a)[1]);
    expect(pool.size).toBe(2);
    // Only the trees are shared: the entries keep their own manager and time.
    expect(b.metadata.managedFields?.[0]?.time).toBe('2026-11-22T10:00:02Z');
    expect(b).toEqual(managedPod('b', '2'));
  });

  it('keeps trees that differ apart', () => {
    const pool = new FieldsV1Pool();
    const a = pool.share(managedPod('a', '1', 'app'));
    const b = pool.share(managedPod('b', '1', 'sidecar'));
    expect(trees(b)[0]).not.toBe(trees(a)[0]);
    expect(trees(b)[0]).toEqual({
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': { 'f:containers': { 'k:{"name":"sidecar"}': { '.': {} } } },
    });
    expect(trees(b)[1]).toBe(trees(a)[1]);
  });

  it('freezes pooled trees, since they belong to many objects', () => {
    const pool = new FieldsV1Pool();
    const a = pool.share(managedPod('a', '1'));
    const tree = trees(a)[0] as Record<string, Record<string, unknown>>;
    expect(Object.isFrozen(tree)).toBe(true);
    expect(() => {
      tree['f:metadata']!['f:annotations'] = {};
    }).toThrow(TypeError);
    // The rest of the object stays writable.
    a.metadata.name = 'renamed';
    expect(a.metadata.name).toBe('renamed');
  });

  it("shares an update whose trees equal its manager's recent ones without serialising them", () => {
    const pool = new FieldsV1Pool();
    const first = pool.share(managedPod('a', '1'));
    const next = managedPod('a', '2');
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      const update = pool.share(next);
      expect(trees(update)[0]).toBe(trees(first)[0]);
      expect(trees(update)[1]).toBe(trees(first)[1]);
      expect(stringify).not.toHaveBeenCalled();
    } finally {
      stringify.mockRestore();
    }
  });

  it('finds a pooled tree its manager has not written recently through the pool', () => {
    const pool = new FieldsV1Pool();
    const containers = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'];
    const firsts = containers.map((name, i) => pool.share(managedPod(`p${i}`, '1', name)));
    const again = pool.share(managedPod('q', '2', 'c0'));
    expect(trees(again)[0]).toBe(trees(firsts[0]!)[0]);
    expect(pool.size).toBe(containers.length + 1);
  });

  it('judges trees by their keys: key order does not matter, a missing or extra key does', () => {
    const pool = new FieldsV1Pool();
    const entry = (fieldsV1: unknown) => ({
      metadata: { managedFields: [{ manager: 'm', fieldsType: 'FieldsV1', fieldsV1 }] },
    });
    const first = pool.share(entry({ 'f:a': {}, 'f:b': { 'f:c': {} } }));
    const pooled = first.metadata.managedFields[0]!.fieldsV1;
    const reordered = pool.share(entry({ 'f:b': { 'f:c': {} }, 'f:a': {} }));
    expect(reordered.metadata.managedFields[0]!.fieldsV1).toBe(pooled);
    for (const other of [
      { 'f:a': {} },
      { 'f:a': {}, 'f:b': { 'f:c': {} }, 'f:d': {} },
      { 'f:a': {}, 'f:b': { 'f:x': {} } },
      { 'f:a': {}, 'f:b': {} },
      { 'f:a': {}, 'f:b': { 'f:c': 'not a tree' } },
      JSON.parse('{"f:a":{},"f:b":{"f:c":{}},"__proto__":{}}'),
      { 'f:a': {}, toString: {} },
    ]) {
      const shared = pool.share(entry(structuredClone(other)));
      expect(shared.metadata.managedFields[0]!.fieldsV1).not.toBe(pooled);
      expect(shared.metadata.managedFields[0]!.fieldsV1).toEqual(other);
    }
  });

  it('leaves objects without managedFields, and odd entries, as they are', () => {
    const pool = new FieldsV1Pool();
    const bare = { metadata: { name: 'x' } };
    expect(pool.share(bare)).toBe(bare);
    expect(pool.share(null)).toBeNull();
    const odd = { metadata: { managedFields: [{ manager: 'm' }, { fieldsV1: null }] } };
    expect(pool.share(odd)).toEqual({
      metadata: { managedFields: [{ manager: 'm' }, { fieldsV1: null }] },
    });
    expect(pool.size).toBe(0);
  });
});

describe('dropManagedFields', () => {
  it('removes managedFields and keeps the rest', () => {
    const p = dropManagedFields(managedPod('a', '1'));
    expect(p.metadata.managedFields).toBeUndefined();
    expect(p.metadata.name).toBe('a');
    expect(dropManagedFields({ spec: {} })).toEqual({ spec: {} });
  });
});

describe('shared informers and managedFields', () => {
  async function cached(
    options: SharedIndexInformerOptions<ManagedPod>,
    transform?: (obj: ManagedPod) => ManagedPod,
  ) {
    const lw = new FakeListerWatcher<ManagedPod>();
    lw.listFn = () => listOf([managedPod('a', '1'), managedPod('b', '1')], '1');
    const informer = newSharedIndexInformer(lw, 'pods', { random: () => 0.5, ...options });
    if (transform !== undefined) informer.setTransform(transform);
    const ac = abortedAfterTest();
    void informer.run(ac.signal);
    const w = await lw.watchNumber(1);
    await eventually(() => informer.hasSynced());
    w.push({ type: 'MODIFIED', object: managedPod('b', '2') });
    const store = informer.getStore();
    await eventually(() => store.getByKey('default/b')?.metadata.resourceVersion === '2');
    return { a: store.getByKey('default/a')!, b: store.getByKey('default/b')! };
  }

  it('share equal trees across listed and watched objects by default', async () => {
    const { a, b } = await cached({});
    expect(trees(b)[0]).toBe(trees(a)[0]);
    expect(trees(b)[1]).toBe(trees(a)[1]);
  });

  it('keep every object its own trees with shareManagedFields: false', async () => {
    const { a, b } = await cached({ shareManagedFields: false, detectMutations: false });
    expect(trees(b)[0]).not.toBe(trees(a)[0]);
    expect(Object.isFrozen(trees(a)[0])).toBe(false);
  });

  it('apply the user transform first', async () => {
    const { a, b } = await cached({}, dropManagedFields);
    expect(a.metadata.managedFields).toBeUndefined();
    expect(b.metadata.managedFields).toBeUndefined();
  });

  it('offer sharing as a plain transform too', () => {
    const a = shareManagedFields(managedPod('a', '1'));
    const b = shareManagedFields(managedPod('b', '1'));
    expect(trees(b)[0]).toBe(trees(a)[0]);
  });
});
