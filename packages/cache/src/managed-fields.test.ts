import { eventually } from '@kubets/test-utils';
import { describe, expect, it, vi } from 'vitest';
import { abortedAfterTest, FakeListerWatcher, listOf } from '../test/helpers.js';
import type { ListerWatcher } from './listwatch.js';
import { dropManagedFields, FieldsV1Pool, shareManagedFields } from './managed-fields.js';
import { newSharedIndexInformer } from './shared-informer.js';
import type { SharedIndexInformerOptions } from './shared-informer-options.js';

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

describe('FieldsV1Pool.shareFromText', () => {
  // A watch event's line, as the API server writes it, and the object parsed from it.
  function eventLine(pod: ManagedPod): string {
    return JSON.stringify({ type: 'MODIFIED', object: pod });
  }
  function parsedFrom(line: string): ManagedPod {
    return (JSON.parse(line) as { object: ManagedPod }).object;
  }
  // A pool whose managers have been seen with the trees of managedPod('a', '1').
  function primedPool(): { pool: FieldsV1Pool; pooled: unknown[] } {
    const pool = new FieldsV1Pool();
    return { pool, pooled: trees(pool.share(managedPod('a', '1'))) };
  }

  it("shares trees whose text is the text of their manager's recent trees", () => {
    const { pool, pooled } = primedPool();
    const line = eventLine(managedPod('b', '2'));
    const pod = pool.shareFromText(parsedFrom(line), line);
    expect(trees(pod)).toEqual(pooled);
    expect(trees(pod)[0]).toBe(pooled[0]);
    expect(trees(pod)[1]).toBe(pooled[1]);
    // What share does afterwards (the informer's transform) finds them shared already.
    expect(trees(pool.share(pod))[0]).toBe(pooled[0]);
  });

  it('leaves a tree whose text differs to share, which finds an equal tree in another order', () => {
    const { pool, pooled } = primedPool();
    const reordered = managedPod('b', '2');
    const kubectl = reordered.metadata.managedFields![0]!;
    const { 'f:metadata': metadata, 'f:spec': spec } = kubectl.fieldsV1 as Record<string, unknown>;
    kubectl.fieldsV1 = { 'f:spec': spec, 'f:metadata': metadata };
    const line = eventLine(reordered);
    const pod = pool.shareFromText(parsedFrom(line), line);
    expect(trees(pod)[0]).not.toBe(pooled[0]);
    expect(trees(pod)[1]).toBe(pooled[1]);
    expect(trees(pool.share(pod))[0]).toBe(pooled[0]);
  });

  it('shares nothing for a tree that differs, or a manager it has not seen', () => {
    const { pool, pooled } = primedPool();
    const changed = managedPod('b', '2', 'sidecar');
    changed.metadata.managedFields![1]!.manager = 'someone-else';
    const line = eventLine(changed);
    const pod = pool.shareFromText(parsedFrom(line), line);
    expect(trees(pod)[0]).not.toBe(pooled[0]);
    expect(trees(pod)[1]).not.toBe(pooled[1]);
    expect(pod).toEqual(changed);
  });

  describe('is not misled by crafted text', () => {
    // Each line holds the text of a pooled tree where a parser does not take it for the
    // entry's tree; the entry's own tree (`{"f:spec":{}}`) must stay its own.
    const decoy = JSON.stringify(managedPod('a', '1').metadata.managedFields![1]!.fieldsV1);
    const entry = (fieldsV1Text: string, key = '"fieldsV1"') =>
      `{"manager":"kubelet","fieldsType":"FieldsV1",${key}:${fieldsV1Text}}`;
    const own = '{"f:spec":{}}';
    const object = (metadata: string, before = '') =>
      `{"type":"MODIFIED","object":{${before}"metadata":{"name":"b","namespace":"default","resourceVersion":"2",${metadata}}}}`;
    const cases: { name: string; line: string }[] = [
      {
        name: 'a decoy tree elsewhere in the object, the real key escaped',
        line: object(
          `"managedFields":[${entry(own, '"fields\\u0056\\u0031"')}]`,
          `"spec":{"fieldsV1":${decoy}},`,
        ),
      },
      {
        name: 'a decoy managedFields key that the real one, later, overrides',
        line: object(`"managedFields":[${entry(decoy)}],"managedFields":[${entry(own)}]`),
      },
      {
        name: 'a decoy fieldsV1 key that a later one in the same entry overrides',
        line: object(
          `"managedFields":[{"manager":"kubelet","fieldsV1":${decoy},"fieldsV1":${own}}]`,
        ),
      },
      {
        name: 'a decoy in another object before the real one, with whitespace before the colon',
        line: object(
          `"managedFields":[${entry(own, '"fieldsV1" ')}]`,
          `"spec":{"fieldsV1":${decoy}},`,
        ),
      },
      {
        name: 'the decoy text right after the real tree',
        line: object(`"managedFields":[${entry(own)}],"x":${decoy}`),
      },
      {
        name: 'a decoy tree as a string',
        line: object(
          `"managedFields":[${entry(own)}]`,
          `"spec":{"fieldsV1":${JSON.stringify(decoy)}},`,
        ),
      },
    ];
    for (const { name, line } of cases) {
      it(name, () => {
        const { pool, pooled } = primedPool();
        const pod = parsedFrom(line);
        expect(trees(pod)).toEqual([{ 'f:spec': {} }]);
        pool.shareFromText(pod, line);
        expect(trees(pod)[0]).not.toBe(pooled[1]);
        expect(trees(pod)).toEqual([{ 'f:spec': {} }]);
      });
    }
  });

  it('leaves objects without managedFields, and odd entries, as they are', () => {
    const pool = new FieldsV1Pool();
    for (const value of [
      null,
      'text',
      42,
      {},
      { metadata: {} },
      { metadata: { managedFields: {} } },
    ]) {
      expect(pool.shareFromText(value, JSON.stringify(value))).toBe(value);
    }
    const odd = { metadata: { managedFields: [null, 7, { manager: 'm', fieldsV1: 'text' }] } };
    const line = JSON.stringify(odd);
    expect(pool.shareFromText(JSON.parse(line), line)).toEqual(odd);
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

  // A list-watch that hands each watched object and its event text to the prepareObject
  // hint, as listWatchFromClient's does.
  async function preparedByWatch(
    options: SharedIndexInformerOptions<ManagedPod>,
    transform?: (obj: ManagedPod) => ManagedPod,
  ): Promise<{ listed: ManagedPod; watched: ManagedPod; hinted: boolean }> {
    const listed = managedPod('a', '1');
    const lw = new FakeListerWatcher<ManagedPod>();
    lw.listFn = () => listOf([listed], '1');
    let prepare: ((object: ManagedPod, eventText: string) => void) | undefined;
    const withHints: ListerWatcher<ManagedPod> = {
      list: (listOptions, signal, hints) => lw.list(listOptions, signal, hints),
      watch: (watchOptions, signal, hints) => {
        prepare = hints?.prepareObject?.bind(hints);
        return lw.watch(watchOptions, signal);
      },
      isWatchListSemanticsUnsupported: () => true,
    };
    const informer = newSharedIndexInformer(withHints, 'pods', { random: () => 0.5, ...options });
    if (transform !== undefined) informer.setTransform(transform);
    const ac = abortedAfterTest();
    void informer.run(ac.signal);
    await lw.watchNumber(1);
    await eventually(() => informer.hasSynced());
    const text = JSON.stringify({ type: 'MODIFIED', object: managedPod('a', '2') });
    const watched = (JSON.parse(text) as { object: ManagedPod }).object;
    prepare?.(watched, text);
    return { listed, watched, hinted: prepare !== undefined };
  }

  it('share watched trees from their event text, before the event is queued', async () => {
    const { listed, watched, hinted } = await preparedByWatch({});
    expect(hinted).toBe(true);
    expect(trees(watched)[0]).toBe(trees(listed)[0]);
    expect(trees(watched)[1]).toBe(trees(listed)[1]);
  });

  it('leave watched trees to the transform with a user transform or without sharing', async () => {
    for (const [options, transform] of [
      [{}, (pod: ManagedPod) => pod],
      [{ shareManagedFields: false, detectMutations: false }, undefined],
    ] as const) {
      const { hinted } = await preparedByWatch(options, transform);
      expect(hinted).toBe(false);
    }
  });

  it('offer sharing as a plain transform too', () => {
    const a = shareManagedFields(managedPod('a', '1'));
    const b = shareManagedFields(managedPod('b', '1'));
    expect(trees(b)[0]).toBe(trees(a)[0]);
  });
});
