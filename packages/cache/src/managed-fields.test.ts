import type { WatchEvent } from '@kubets/apimachinery';
import { type WatchEventTextRewrite, WatchStream } from '@kubets/rest';
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

describe('FieldsV1Pool.rewriteEventText', () => {
  // A watch event's line, as the API server writes it.
  function eventLine(pod: ManagedPod): string {
    return JSON.stringify({ type: 'MODIFIED', object: pod });
  }
  // A pool that has used the trees of managedPod('a', '1').
  function primedPool(): { pool: FieldsV1Pool; pooled: unknown[] } {
    const pool = new FieldsV1Pool();
    return { pool, pooled: trees(pool.share(managedPod('a', '1'))) };
  }
  // The event rest's watch decoding delivers for `line` with the pool's hook.
  async function delivered(pool: FieldsV1Pool, line: string): Promise<WatchEvent<ManagedPod>> {
    const events: WatchEvent<ManagedPod>[] = [];
    const watch = new WatchStream<ManagedPod>({
      body: (async function* () {
        yield `${line}\n`;
      })(),
      close: () => {},
      rewriteEventText: (text) => pool.rewriteEventText(text),
    });
    for await (const event of watch) events.push(event);
    expect(events).toHaveLength(1);
    return events[0]!;
  }
  function objectOf(event: WatchEvent<ManagedPod>): ManagedPod {
    expect(event.type).toBe('MODIFIED');
    return event.object as ManagedPod;
  }
  // What decoding must deliver whatever the pool holds: the line's own event (its object's
  // keys in their order), or an ERROR event for a line that is not JSON.
  function expectAsParsed(event: WatchEvent<ManagedPod>, line: string): void {
    let parsed: WatchEvent<ManagedPod>;
    try {
      parsed = JSON.parse(line) as WatchEvent<ManagedPod>;
    } catch {
      expect(event.type).toBe('ERROR');
      return;
    }
    expect(event).toEqual({ type: parsed.type, object: parsed.object });
    expect(JSON.stringify(event.object)).toBe(JSON.stringify(parsed.object));
  }
  // An object with these managedFields entries.
  function podWith(managedFields: { manager: string; fieldsV1: unknown }[]): ManagedPod {
    return { metadata: { name: 'b', namespace: 'default', resourceVersion: '2', managedFields } };
  }

  it('cuts the trees it used recently out of the text and puts the pooled trees in', async () => {
    const { pool, pooled } = primedPool();
    const line = eventLine(managedPod('b', '2'));
    const rewrite = pool.rewriteEventText(line);
    expect(rewrite?.text).toBe(
      line.replace(JSON.stringify(pooled[0]), '0').replace(JSON.stringify(pooled[1]), '0'),
    );
    const event = await delivered(pool, line);
    expectAsParsed(event, line);
    expect(trees(objectOf(event))[0]).toBe(pooled[0]);
    expect(trees(objectOf(event))[1]).toBe(pooled[1]);
    // What share does afterwards (the informer's transform) finds them shared already.
    expect(trees(pool.share(objectOf(event)))[0]).toBe(pooled[0]);
  });

  it('cuts a tree used by any manager, and one whose text holds a fieldsV1 key', async () => {
    const pool = new FieldsV1Pool();
    const odd = JSON.parse('{"f:spec":{"f:fieldsV1":{}},"fieldsV1":{}}') as object;
    const [first, second] = trees(
      pool.share(
        podWith([
          { manager: 'kubectl', fieldsV1: structuredClone(odd) },
          { manager: 'kubelet', fieldsV1: { 'f:status': {} } },
        ]),
      ),
    );
    const line = eventLine(
      podWith([
        { manager: 'someone-else', fieldsV1: { 'f:status': {} } },
        { manager: 'kubectl', fieldsV1: odd },
      ]),
    );
    expect(pool.rewriteEventText(line)?.text).toBe(
      eventLine(
        podWith([
          { manager: 'someone-else', fieldsV1: 0 },
          { manager: 'kubectl', fieldsV1: 0 },
        ]),
      ),
    );
    const event = await delivered(pool, line);
    expectAsParsed(event, line);
    expect(trees(objectOf(event))).toEqual([second, first]);
    expect(trees(objectOf(event))[0]).toBe(second);
    expect(trees(objectOf(event))[1]).toBe(first);
  });

  it('cuts nothing from a text without a tree it used recently', () => {
    const { pool } = primedPool();
    const reordered = managedPod('b', '2', 'sidecar');
    const kubelet = reordered.metadata.managedFields![1]!;
    kubelet.fieldsV1 = { 'f:status': { 'f:phase': {} }, 'f:spec': {} };
    expect(pool.rewriteEventText(eventLine(reordered))).toBeUndefined();
    expect(new FieldsV1Pool().rewriteEventText(eventLine(managedPod('a', '1')))).toBeUndefined();
    expect(pool.rewriteEventText('{"type":"MODIFIED","object":{"metadata":{}}}')).toBeUndefined();
  });

  it('leaves a tree whose text differs to share, which finds an equal tree in another order', async () => {
    const { pool, pooled } = primedPool();
    const reordered = managedPod('b', '2');
    const kubectl = reordered.metadata.managedFields![0]!;
    const { 'f:metadata': metadata, 'f:spec': spec } = kubectl.fieldsV1 as Record<string, unknown>;
    kubectl.fieldsV1 = { 'f:spec': spec, 'f:metadata': metadata };
    const line = eventLine(reordered);
    const event = await delivered(pool, line);
    expectAsParsed(event, line);
    expect(trees(objectOf(event))[0]).not.toBe(pooled[0]);
    expect(trees(objectOf(event))[1]).toBe(pooled[1]);
    expect(trees(pool.share(objectOf(event)))[0]).toBe(pooled[0]);
  });

  it('cuts only trees that parse back to what is pooled: plain objects all the way down', async () => {
    const pool = new FieldsV1Pool();
    // Pooled under the texts {"f:a":null}, {"f:a":0} and {"f:a":[]}.
    const [infinite, negativeZero] = trees(
      pool.share(
        JSON.parse(
          '{"metadata":{"managedFields":[{"manager":"m","fieldsV1":{"f:a":1e400}},{"manager":"n","fieldsV1":{"f:a":-0}},{"manager":"o","fieldsV1":{"f:a":[]}}]}}',
        ) as ManagedPod,
      ),
    );
    expect(infinite).toEqual({ 'f:a': Number.POSITIVE_INFINITY });
    expect(Object.is((negativeZero as { 'f:a': number })['f:a'], -0)).toBe(true);
    const line =
      '{"type":"MODIFIED","object":{"metadata":{"managedFields":[{"manager":"m","fieldsV1":{"f:a":null}},{"manager":"n","fieldsV1":{"f:a":0}},{"manager":"o","fieldsV1":{"f:a":[]}}]}}}';
    expect(pool.rewriteEventText(line)).toBeUndefined();
    const event = await delivered(pool, line);
    expectAsParsed(event, line);
    expect(Object.is((trees(objectOf(event))[1] as { 'f:a': number })['f:a'], 0)).toBe(true);
  });

  describe('delivers what the line holds, whatever crafted text tries', () => {
    // The text of a pooled tree (the kubelet's), placed where a parser does not take it for
    // an entry's tree, or next to entries that hold the marker 0 of their own.
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
        name: 'a decoy tree elsewhere in the object, the real key escaped and holding 0',
        line: object(
          `"managedFields":[${entry('0', '"fields\\u0056\\u0031"')}]`,
          `"spec":{"fieldsV1":${decoy}},`,
        ),
      },
      {
        name: 'a custom resource whose spec has a field fieldsV1 equal to a pooled text',
        line: object(`"managedFields":[${entry(own)}]`, `"spec":{"fieldsV1":${decoy}},`),
      },
      {
        name: 'a spec field fieldsV1 equal to a pooled text, and an entry holding 0',
        line: object(`"managedFields":[${entry('0')}]`, `"spec":{"fieldsV1":${decoy}},`),
      },
      {
        name: 'a label named fieldsV1 whose value is a pooled text, and an entry holding 0',
        line: object(`"labels":{"fieldsV1":${decoy}},"managedFields":[${entry('0')}]`),
      },
      {
        name: 'a label named fieldsV1 whose value is a pooled text as a string',
        line: object(
          `"labels":{"fieldsV1":${JSON.stringify(decoy)}},"managedFields":[${entry(own)}]`,
        ),
      },
      {
        name: 'a decoy managedFields key that the real one, later, overrides',
        line: object(`"managedFields":[${entry(decoy)}],"managedFields":[${entry(own)}]`),
      },
      {
        name: 'duplicate fieldsV1 keys in an entry: a pooled text, then 0',
        line: object(`"managedFields":[{"manager":"kubelet","fieldsV1":${decoy},"fieldsV1":0}]`),
      },
      {
        name: 'duplicate fieldsV1 keys in an entry: a pooled text, then its own tree',
        line: object(
          `"managedFields":[{"manager":"kubelet","fieldsV1":${decoy},"fieldsV1":${own}}]`,
        ),
      },
      {
        name: 'an entry holding the marker 0 of its own before one holding a pooled text',
        line: object(`"managedFields":[${entry('0')},${entry(decoy)}]`),
      },
      {
        name: 'an entry holding the marker 0 of its own after one holding a pooled text',
        line: object(`"managedFields":[${entry(decoy)},${entry('0')}]`),
      },
      {
        name: 'a key ending in an escaped quote and fieldsV1, the real key spaced and holding 0',
        line: object(
          `"managedFields":[{"manager":"kubelet","x\\"fieldsV1":${decoy},"fieldsV1" :0}]`,
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
        name: 'a decoy tree outside the object, beside the event',
        line: object(`"managedFields":[${entry('0')}]`).replace(
          '{"type"',
          `{"x":{"fieldsV1":${decoy}},"type"`,
        ),
      },
      {
        name: 'a pooled text followed by an exponent: not JSON, though 0e5 would be',
        line: object(`"managedFields":[${entry(`${decoy}e5`)}]`),
      },
      {
        name: 'a pooled text followed by a fraction: not JSON, though 0.0 would be',
        line: object(`"managedFields":[${entry(`${decoy}.0`)}]`),
      },
      {
        name: 'a pooled text followed by whitespace',
        line: object(`"managedFields":[${entry(`${decoy} `)}]`),
      },
    ];
    for (const { name, line } of cases) {
      it(name, async () => {
        const { pool, pooled } = primedPool();
        const event = await delivered(pool, line);
        expectAsParsed(event, line);
        // Nothing could be proven, so nothing was cut and no tree is the pooled one.
        if (event.type !== 'ERROR') expect(trees(objectOf(event))).not.toContain(pooled[1]);
      });
    }
  });

  it('leaves objects without managedFields, and odd entries, as they are', async () => {
    const { pool } = primedPool();
    for (const object of [
      {},
      { metadata: {} },
      { metadata: { managedFields: {} } },
      { metadata: { managedFields: [null, 7, { manager: 'm', fieldsV1: 'text' }] } },
    ]) {
      const line = JSON.stringify({ type: 'ADDED', object });
      expectAsParsed(await delivered(pool, line), line);
    }
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

  // A list-watch that hands each watched event's text to the rewriteEventText hint, as
  // listWatchFromClient's does (through rest's watch decoding).
  async function preparedByWatch(
    options: SharedIndexInformerOptions<ManagedPod>,
    transform?: (obj: ManagedPod) => ManagedPod,
  ): Promise<{ listed: ManagedPod; watched: ManagedPod; hinted: boolean }> {
    const listed = managedPod('a', '1');
    const lw = new FakeListerWatcher<ManagedPod>();
    lw.listFn = () => listOf([listed], '1');
    let rewrite: ((eventText: string) => WatchEventTextRewrite<ManagedPod> | undefined) | undefined;
    const withHints: ListerWatcher<ManagedPod> = {
      list: (listOptions, signal, hints) => lw.list(listOptions, signal, hints),
      watch: (watchOptions, signal, hints) => {
        rewrite = hints?.rewriteEventText?.bind(hints);
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
    const rewritten = rewrite?.(text);
    const parsed = JSON.parse(rewritten?.text ?? text) as { object: ManagedPod };
    const watched = rewritten?.finish(parsed.object) ?? parsed.object;
    expect(watched).toEqual(JSON.parse(text).object);
    return { listed, watched, hinted: rewrite !== undefined };
  }

  it('share watched trees from their event text, before the event is parsed', async () => {
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
