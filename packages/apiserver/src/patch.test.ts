import { describe, expect, it } from 'vitest';
import strategicMergeTable from '../test/strategic-merge-table.json' with { type: 'json' };
import {
  ApplyConflictError,
  applyConfiguration,
  fromFieldsV1,
  leafMap,
  recordUpdate,
  toFieldsV1,
} from './fieldmanager.js';
import type { JsonObject, JsonValue } from './patch.js';
import { jsonEqual, jsonPatch, mergePatch, PatchError, strategicMergePatch } from './patch.js';

const keys = {
  'spec.containers': 'name',
  'spec.containers.*.env': 'name',
};

describe('mergePatch (RFC 7386)', () => {
  it('merges objects, deletes with null and replaces arrays', () => {
    expect(
      mergePatch(
        { a: { b: 1, c: 2 }, list: [1, 2], keep: true },
        { a: { b: null, d: 3 }, list: [3] },
      ),
    ).toEqual({ a: { c: 2, d: 3 }, list: [3], keep: true });
  });

  it('does not mutate the target', () => {
    const target = { a: { b: 1 } };
    mergePatch(target, { a: { b: 2 } });
    expect(target).toEqual({ a: { b: 1 } });
  });
});

describe('jsonPatch (RFC 6902)', () => {
  it('applies add, replace, remove, move, copy and test in order', () => {
    const doc = { a: 1, list: ['x', 'z'], o: { k: 'v' } };
    const out = jsonPatch(doc, [
      { op: 'add', path: '/list/1', value: 'y' },
      { op: 'add', path: '/list/-', value: 'end' },
      { op: 'replace', path: '/a', value: 2 },
      { op: 'copy', from: '/o/k', path: '/copied' },
      { op: 'move', from: '/o', path: '/moved' },
      { op: 'test', path: '/moved/k', value: 'v' },
      { op: 'remove', path: '/list/0' },
    ]);
    expect(out).toEqual({ a: 2, list: ['y', 'z', 'end'], copied: 'v', moved: { k: 'v' } });
    expect(doc.list).toEqual(['x', 'z']);
  });

  it('unescapes ~0 and ~1 in pointers', () => {
    expect(
      jsonPatch({ metadata: { labels: { 'a/b': '1' } } }, [
        { op: 'replace', path: '/metadata/labels/a~1b', value: '2' },
      ]),
    ).toEqual({ metadata: { labels: { 'a/b': '2' } } });
  });

  it('fails on a failed test, a missing path and a non-array patch', () => {
    expect(() => jsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }])).toThrow(PatchError);
    expect(() => jsonPatch({ a: 1 }, [{ op: 'remove', path: '/b' }])).toThrow(/nonexistent/);
    expect(() => jsonPatch({ a: 1 }, [{ op: 'replace', path: '/x/y', value: 1 }])).toThrow(
      PatchError,
    );
    expect(() => jsonPatch({}, { op: 'add' })).toThrow(PatchError);
  });
});

describe('strategicMergePatch', () => {
  const pod: JsonObject = {
    spec: {
      containers: [
        { name: 'a', image: 'a:1', env: [{ name: 'X', value: '1' }] },
        { name: 'b', image: 'b:1' },
      ],
      volumes: [{ name: 'v' }],
    },
  };

  it('merges lists with a merge key item by item and keeps the rest', () => {
    const out = strategicMergePatch(
      pod,
      {
        spec: {
          containers: [
            { name: 'a', image: 'a:2', env: [{ name: 'Y', value: '2' }] },
            { name: 'c', image: 'c:1' },
          ],
        },
      },
      keys,
    );
    expect(out).toEqual({
      spec: {
        containers: [
          {
            name: 'a',
            image: 'a:2',
            // A new item comes first (kube-apiserver 1.20 answers the same).
            env: [
              { name: 'Y', value: '2' },
              { name: 'X', value: '1' },
            ],
          },
          // kube-apiserver's order: the patch's items in its order, server-only ones after them.
          { name: 'c', image: 'c:1' },
          { name: 'b', image: 'b:1' },
        ],
        volumes: [{ name: 'v' }],
      },
    });
  });

  it('replaces lists without a merge key, deletes with null and honours $patch directives', () => {
    expect(strategicMergePatch(pod, { spec: { volumes: [{ name: 'w' }] } }, keys)).toMatchObject({
      spec: { volumes: [{ name: 'w' }] },
    });
    const deleted = strategicMergePatch(
      pod,
      { spec: { containers: [{ name: 'b', $patch: 'delete' }] } },
      keys,
    ) as {
      spec: { containers: { name: string }[] };
    };
    expect(deleted.spec.containers.map((c) => c.name)).toEqual(['a']);
    expect(strategicMergePatch(pod, { spec: { volumes: null } }, keys)).toEqual({
      spec: { containers: (pod.spec as JsonObject).containers },
    });
    expect(
      strategicMergePatch({ m: { a: 1, b: 2 } }, { m: { $patch: 'replace', c: 3 } }, {}),
    ).toEqual({ m: { c: 3 } });
    expect(strategicMergePatch({ m: { a: 1 }, n: 1 }, { m: { $patch: 'delete' } }, {})).toEqual({
      n: 1,
    });
  });

  it('orders merged lists by $setElementOrder and removes values with $deleteFromPrimitiveList', () => {
    const out = strategicMergePatch(
      {
        spec: { containers: [{ name: 'a' }, { name: 'b' }] },
        metadata: { finalizers: ['x', 'y'] },
      },
      {
        spec: {
          $setElementOrder: undefined,
          containers: [{ name: 'c' }],
          '$setElementOrder/containers': [{ name: 'c' }, { name: 'b' }, { name: 'a' }],
        },
        metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] },
      } as never,
      keys,
    ) as { spec: { containers: { name: string }[] }; metadata: { finalizers: string[] } };
    expect(out.spec.containers.map((c) => c.name)).toEqual(['c', 'b', 'a']);
    expect(out.metadata.finalizers).toEqual(['y']);
  });
});

describe('jsonEqual', () => {
  it('ignores key order and compares deeply', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
  });
});

describe('field manager', () => {
  const cm = (data: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x', labels: { l: '1' } },
    data,
  });

  it('renders and parses FieldsV1', () => {
    const leaves = leafMap(
      {
        metadata: { name: 'x', labels: { a: '1' } },
        spec: { containers: [{ name: 'c', image: 'i' }] },
      },
      keys,
      'all',
    );
    const fields = toFieldsV1(leaves.keys());
    expect(fields).toEqual({
      'f:metadata': { 'f:labels': { 'f:a': {} } },
      'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
    });
    expect(fromFieldsV1(fields)).toEqual(new Set(leaves.keys()));
  });

  it('gives an updater ownership of what it changed', () => {
    const created = recordUpdate(undefined, cm({ a: '1' }), 'one', 'v1', {}, 'all');
    const changed = recordUpdate(
      created,
      { ...structuredClone(created), data: { a: '2', b: '1' } },
      'two',
      'v1',
      {},
      'all',
    );
    const managers = (
      changed.metadata as { managedFields: { manager: string; fieldsV1: object }[] }
    ).managedFields;
    expect(managers.map((m) => m.manager)).toEqual(['one', 'two']);
    expect(managers[1]?.fieldsV1).toEqual({ 'f:data': { 'f:a': {}, 'f:b': {} } });
  });

  it('applies, reports conflicts with other owners, and forces', () => {
    const first = applyConfiguration(undefined, cm({ a: '1' }), 'alice', 'v1', {}, 'all', false);
    expect(() => applyConfiguration(first, cm({ a: '2' }), 'bob', 'v1', {}, 'all', false)).toThrow(
      ApplyConflictError,
    );
    try {
      applyConfiguration(first, cm({ a: '2' }), 'bob', 'v1', {}, 'all', false);
    } catch (error) {
      expect((error as Error).message).toBe(
        'Apply failed with 1 conflict: conflict with "alice": .data.a',
      );
    }
    const forced = applyConfiguration(first, cm({ a: '2' }), 'bob', 'v1', {}, 'all', true);
    expect(forced.data).toEqual({ a: '2' });
    // alice dropped .data.a from her configuration: bob owns it, so it stays.
    const again = applyConfiguration(
      forced,
      { ...cm({}), data: { z: '1' } },
      'alice',
      'v1',
      {},
      'all',
      false,
    );
    expect(again.data).toEqual({ a: '2', z: '1' });
    // bob drops it too: now nobody owns it and it goes.
    const dropped = applyConfiguration(
      again,
      { ...cm({}), data: {} },
      'bob',
      'v1',
      {},
      'all',
      false,
    );
    expect(dropped.data).toEqual({ z: '1' });
  });
});

/**
 * Cases of apimachinery's strategic merge patch test table (pkg/util/strategicpatch,
 * patch_test.go), as data: the current object, the three-way patch and the result or an error.
 * `mergingList` merges by `name`; `nonMergingList` is replaced.
 */
const TABLE = strategicMergeTable as {
  name: string;
  current: JsonObject;
  patch: JsonObject;
  result?: JsonObject;
  error?: string;
}[];

describe('strategicMergePatch: apimachinery’s test table', () => {
  const tableKeys = { mergingList: 'name', 'mergingList.*.mergingList': 'name' };
  for (const { name, current, patch, result, error } of TABLE) {
    it(name, () => {
      const run = () => strategicMergePatch(current, patch, tableKeys);
      if (error !== undefined) expect(run).toThrow(error);
      else expect(run()).toEqual(result);
    });
  }
});

describe('strategicMergePatch: errors and order as kube-apiserver 1.20 answers them', () => {
  const containers = (...names: string[]) => names.map((n) => ({ name: n, image: 'i' }));
  const pod = { spec: { containers: containers('a', 'b', 'c') } };
  const podKeys = { 'spec.containers': 'name' };
  const names = (value: JsonValue | undefined) =>
    ((value as { spec: { containers: { name: string }[] } }).spec.containers ?? []).map(
      (c) => c.name,
    );
  const cases: [string, JsonObject, string[] | [number, string]][] = [
    [
      'patched items move to the patch’s order',
      { spec: { containers: containers('c', 'a') } },
      ['b', 'c', 'a'],
    ],
    [
      'a new item goes where the patch puts it',
      { spec: { containers: containers('d', 'a') } },
      ['d', 'a', 'b', 'c'],
    ],
    [
      'an item with an unknown $patch',
      { spec: { containers: [{ name: 'b', $patch: 'foo' }] } },
      [500, 'unknown patch type: foo in map: map[$patch:foo name:b]'],
    ],
    [
      'a map with an unknown $patch',
      { spec: { $patch: 'foo' } },
      [500, 'unknown patch type: foo in map: map[$patch:foo]'],
    ],
    [
      '$patch: delete without the merge key',
      { spec: { containers: [{ $patch: 'delete' }] } },
      [500, 'map: map[$patch:delete] does not contain declared merge key: name'],
    ],
    [
      'a list item that is not a map',
      { spec: { containers: ['x'] } },
      [
        500,
        'list element types are not identical: [[map[image:i name:a] map[image:i name:b] map[image:i name:c]] [x]]',
      ],
    ],
    [
      '$patch: merge on a list',
      { spec: { containers: [{ $patch: 'merge' }] } },
      [500, 'merging lists cannot yet be specified in the patch'],
    ],
    [
      '$retainKeys that is not a list',
      { spec: { $retainKeys: 'containers' } },
      [400, 'invalid patch format of retainKeys'],
    ],
    [
      '$retainKeys missing a field the patch sets',
      { spec: { $retainKeys: ['x'], containers: [] } },
      [400, 'invalid patch format of retainKeys'],
    ],
    [
      '$deleteFromPrimitiveList that is not a list',
      { metadata: { '$deleteFromPrimitiveList/finalizers': 'x' } },
      [400, 'invalid patch format of primitive list'],
    ],
    [
      '$setElementOrder that does not match the patch',
      {
        spec: {
          '$setElementOrder/containers': [{ name: 'c' }],
          containers: [{ name: 'b', image: 'z' }],
        },
      },
      [
        500,
        "The order in patch list:\n[map[image:z name:b]]\n doesn't match $setElementOrder list:\n[map[name:c]]\n",
      ],
    ],
  ];
  for (const [name, patch, expected] of cases) {
    it(name, () => {
      const run = () => strategicMergePatch(pod, patch, podKeys);
      if (typeof expected[0] === 'number') {
        const [code, message] = expected as [number, string];
        expect(run).toThrow(expect.objectContaining({ code, message }));
      } else expect(names(run())).toEqual(expected);
    });
  }

  it('merges a Node’s podCIDRs as a list of scalars', () => {
    expect(
      strategicMergePatch(
        { spec: { podCIDRs: ['10.0.0.0/24'] } },
        { spec: { podCIDRs: ['fd00::/64'] } },
        {},
      ),
    ).toEqual({ spec: { podCIDRs: ['fd00::/64', '10.0.0.0/24'] } });
  });

  it('merges finalizers as a list of scalars, the patch’s first', () => {
    const merged = strategicMergePatch(
      { metadata: { finalizers: ['x/a', 'x/b'] } },
      { metadata: { finalizers: ['x/c'] } },
      {},
    );
    expect(merged).toEqual({ metadata: { finalizers: ['x/c', 'x/a', 'x/b'] } });
    const ordered = strategicMergePatch(
      merged,
      { metadata: { '$setElementOrder/finalizers': ['x/c', 'x/b', 'x/a'], finalizers: ['x/b'] } },
      {},
    );
    expect(ordered).toEqual({ metadata: { finalizers: ['x/c', 'x/b', 'x/a'] } });
  });
});
