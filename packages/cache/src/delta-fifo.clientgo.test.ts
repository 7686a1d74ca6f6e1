// client-go's tools/cache/delta_fifo_test.go, ported case by case: each test keeps the Go
// test's name, inputs and expectations. Cases that cannot apply are listed in the README
// ("client-go tests not ported").

import { describe, expect, it } from 'vitest';
import {
  type Delta,
  DeltaFIFO,
  type DeltaFIFOOptions,
  type Deltas,
  type DeltaType,
  isFIFOClosedError,
  type KnownObjects,
} from './delta-fifo.js';
import { type DeletedFinalStateUnknown, deletedFinalStateUnknown } from './keys.js';

/** client-go's `testFifoObject`: a name (its key) and a value. */
interface FifoObj {
  name: string;
  val: unknown;
}
type Entry = FifoObj | DeletedFinalStateUnknown<FifoObj>;

const mkFifoObj = (name: string, val: unknown): FifoObj => ({ name, val });
const tombstone = (key: string, obj: FifoObj): DeletedFinalStateUnknown<FifoObj> =>
  deletedFinalStateUnknown(key, obj);
const delta = (type: DeltaType, object: Entry): Delta<FifoObj> => ({ type, object });

/** client-go's `literalListerGetter`: known objects from a fixed list. */
function literalListerGetter(objects: FifoObj[]): KnownObjects<FifoObj> {
  return {
    listKeys: () => objects.map((o) => o.name),
    getByKey: (key) => objects.find((o) => o.name === key),
  };
}

function newFIFO(options: Omit<DeltaFIFOOptions<FifoObj>, 'keyFunction'> = {}) {
  return new DeltaFIFO<FifoObj>({ keyFunction: (obj) => (obj as FifoObj).name, ...options });
}

/** Pops one key's deltas without waiting (client-go's `Pop` on a non-empty queue). */
function pop(f: DeltaFIFO<FifoObj>): Deltas<FifoObj> {
  const popped = f.tryPop(() => undefined);
  if (popped === undefined || popped instanceof Promise) throw new Error('nothing to pop');
  return popped;
}

/** One call on a DeltaFIFO, as data. */
type Operation = ['add' | 'update' | 'delete', FifoObj] | ['replace', FifoObj[], string];

function apply(f: DeltaFIFO<FifoObj>, operations: Operation[]): void {
  for (const op of operations) {
    if (op[0] === 'replace') f.replace(op[1], op[2]);
    else f[op[0]](op[1]);
  }
}

/** client-go's `testPop`: the newest object of the next key. */
function testPop(f: DeltaFIFO<FifoObj>): FifoObj {
  return pop(f).at(-1)!.object as FifoObj;
}

describe('client-go delta_fifo_test.go', () => {
  it('TestDeltaFIFO_basic', async () => {
    const f = newFIFO();
    const amount = 500;
    // Two producers take turns with the consumer.
    const produce = async (kind: string) => {
      for (let i = 0; i < amount; i++) {
        f.add(mkFifoObj(`${kind}${i}`, { kind, n: i + 1 }));
        await Promise.resolve();
      }
    };
    void produce('a');
    void produce('b');
    const last: Record<string, number> = { a: 0, b: 0 };
    for (let i = 0; i < amount * 2; i++) {
      const deltas = await f.pop(() => undefined);
      const { kind, n } = (deltas.at(-1)!.object as FifoObj).val as { kind: string; n: number };
      expect(n, `${kind} out of order`).toBeGreaterThan(last[kind]!);
      last[kind] = n;
    }
    expect(last).toEqual({ a: amount, b: amount });
  });

  it('TestDeltaFIFO_replaceWithDeleteDeltaIn', () => {
    const oldObj = mkFifoObj('foo', 1);
    const newObj = mkFifoObj('foo', 2);
    const f = newFIFO({ knownObjects: literalListerGetter([oldObj]) });
    f.delete(oldObj);
    f.replace([newObj], '');
    expect(pop(f)).toEqual([delta('Deleted', oldObj), delta('Sync', newObj)]);
  });

  describe('TestDeltaFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue', () => {
    const obj = mkFifoObj('foo', 2);
    const objV2 = mkFifoObj('foo', 3);
    const table: {
      name: string;
      emitDeltaTypeReplaced?: boolean;
      operations: Operation[];
      expectedDeltas: Deltas<FifoObj>;
    }[] = [
      {
        name: 'Added object should be deleted on Replace',
        operations: [
          ['add', obj],
          ['replace', [], '0'],
        ],
        expectedDeltas: [delta('Added', obj), delta('Deleted', tombstone('foo', obj))],
      },
      {
        name: 'Replaced object should have only a single Delete',
        emitDeltaTypeReplaced: true,
        operations: [
          ['add', obj],
          ['replace', [obj], '0'],
          ['replace', [], '0'],
        ],
        expectedDeltas: [
          delta('Added', obj),
          delta('Replaced', obj),
          delta('Deleted', tombstone('foo', obj)),
        ],
      },
      {
        name: 'Deleted object should have only a single Delete',
        operations: [
          ['add', obj],
          ['delete', obj],
          ['replace', [], '0'],
        ],
        expectedDeltas: [delta('Added', obj), delta('Deleted', obj)],
      },
      {
        name: 'Synced objects should have a single delete',
        operations: [
          ['add', obj],
          ['replace', [obj], '0'],
          ['replace', [obj], '0'],
          ['replace', [], '0'],
        ],
        expectedDeltas: [
          delta('Added', obj),
          delta('Sync', obj),
          delta('Sync', obj),
          delta('Deleted', tombstone('foo', obj)),
        ],
      },
      {
        name: 'Added objects should have a single delete on multiple Replaces',
        operations: [
          ['add', obj],
          ['replace', [], '0'],
          ['replace', [], '1'],
        ],
        expectedDeltas: [delta('Added', obj), delta('Deleted', tombstone('foo', obj))],
      },
      {
        name: 'Added and deleted and added object should be deleted',
        operations: [
          ['add', obj],
          ['delete', obj],
          ['add', objV2],
          ['replace', [], '0'],
        ],
        expectedDeltas: [
          delta('Added', obj),
          delta('Deleted', obj),
          delta('Added', objV2),
          delta('Deleted', tombstone('foo', objV2)),
        ],
      },
    ];
    it.each(table)('$name', (tt) => {
      const emit = { emitDeltaTypeReplaced: tt.emitDeltaTypeReplaced ?? false };
      // With and without a backing KnownObjects.
      for (const f of [
        newFIFO({ ...emit, knownObjects: literalListerGetter([]) }),
        newFIFO(emit),
      ]) {
        apply(f, tt.operations);
        expect(pop(f)).toEqual(tt.expectedDeltas);
        expect(f.length, 'no extra deltas').toBe(0);
      }
    });
  });

  it('TestDeltaFIFO_addUpdate', () => {
    const f = newFIFO();
    f.add(mkFifoObj('foo', 10));
    f.update(mkFifoObj('foo', 12));
    f.delete(mkFifoObj('foo', 15));
    expect(f.list()).toEqual([mkFifoObj('foo', 15)]);
    expect(f.listKeys()).toEqual(['foo']);
    expect(testPop(f).val).toBe(15);
    expect(f.length, 'no second value').toBe(0);
    expect(f.get(mkFifoObj('foo', '')), 'item removed').toBeUndefined();
  });

  it('TestDeltaFIFO_transformer', () => {
    interface RvAndXfrm {
      rv: number;
      xfrm: number;
    }
    const mk = (name: string, rv: number) => mkFifoObj(name, { rv, xfrm: 0 } as RvAndXfrm);
    const f = newFIFO({
      transformer: (obj) => {
        (obj.val as RvAndXfrm).xfrm++;
        return obj;
      },
    });
    f.add(mk('foo', 10));
    f.add(mk('bar', 11));
    f.update(mk('foo', 12));
    f.delete(mk('foo', 15));
    f.replace([], '');
    f.add(mk('bar', 16));
    f.replace([], '');
    expect(f.listKeys()).toEqual(['foo', 'bar']);
    // foo: its regular deletion; bar: a tombstone of its last state. Each transformed once.
    const foo = pop(f).at(-1)!.object as FifoObj;
    expect(foo.name).toBe('foo');
    expect(foo.val).toEqual({ rv: 15, xfrm: 1 });
    const bar = pop(f).at(-1)!.object as DeletedFinalStateUnknown<FifoObj>;
    expect(bar.obj?.name).toBe('bar');
    expect(bar.obj?.val).toEqual({ rv: 16, xfrm: 1 });
  });

  // A delete is queued only for a key that is queued or known.
  it.each([
    {
      name: 'TestDeltaFIFO_enqueueingNoLister',
      known: undefined,
      operations: [
        ['add', mkFifoObj('foo', 10)],
        ['update', mkFifoObj('bar', 15)],
        ['add', mkFifoObj('qux', 17)],
        ['delete', mkFifoObj('qux', 18)],
        // Enqueues nothing: baz does not exist.
        ['delete', mkFifoObj('baz', 20)],
      ] as Operation[],
      expectList: [10, 15, 18],
    },
    {
      name: 'TestDeltaFIFO_enqueueingWithLister',
      known: [mkFifoObj('foo', 5), mkFifoObj('bar', 6), mkFifoObj('baz', 7)],
      operations: [
        ['add', mkFifoObj('foo', 10)],
        ['update', mkFifoObj('bar', 15)],
        // Enqueues the deletion: baz is known.
        ['delete', mkFifoObj('baz', 20)],
      ] as Operation[],
      expectList: [10, 15, 20],
    },
  ])('$name', (tc) => {
    const f = newFIFO(tc.known ? { knownObjects: literalListerGetter(tc.known) } : {});
    apply(f, tc.operations);
    expect(tc.expectList.map(() => testPop(f).val)).toEqual(tc.expectList);
    expect(f.length).toBe(0);
  });

  it('TestDeltaFIFO_addReplace', () => {
    const f = newFIFO();
    f.add(mkFifoObj('foo', 10));
    f.replace([mkFifoObj('foo', 15)], '0');
    expect(testPop(f).val).toBe(15);
    expect(f.length, 'no second value').toBe(0);
    expect(f.get(mkFifoObj('foo', '')), 'item removed').toBeUndefined();
  });

  // What one key's queue holds after a few operations on a FIFO knowing foo@5 (or nothing).
  it.each([
    {
      name: 'TestDeltaFIFO_ResyncNonExisting',
      known: [mkFifoObj('foo', 5)],
      operations: (f: DeltaFIFO<FifoObj>) => {
        f.delete(mkFifoObj('foo', 10));
        f.resync();
      },
      expectedTypes: ['Deleted'],
    },
    {
      name: 'TestDeltaFIFO_Resync',
      known: [mkFifoObj('foo', 5)],
      operations: (f: DeltaFIFO<FifoObj>) => f.resync(),
      expectedTypes: ['Sync'],
    },
    {
      name: 'TestDeltaFIFO_DeleteExistingNonPropagated',
      known: [],
      operations: (f: DeltaFIFO<FifoObj>) => {
        f.add(mkFifoObj('foo', 5));
        f.delete(mkFifoObj('foo', 6));
      },
      expectedTypes: ['Added', 'Deleted'],
    },
  ])('$name', (tc) => {
    const f = newFIFO({ knownObjects: literalListerGetter(tc.known) });
    tc.operations(f);
    expect(f.getByKey('foo')?.map((d) => d.type)).toEqual(tc.expectedTypes);
  });

  // The pops expected after some operations, key by key.
  const known3 = [mkFifoObj('foo', 5), mkFifoObj('bar', 6), mkFifoObj('baz', 7)];
  // baz deleted (or added) in the queue, then a list of only `foo`.
  const bazThenReplace = (op: 'delete' | 'add', foo: FifoObj) => (f: DeltaFIFO<FifoObj>) => {
    f[op](mkFifoObj('baz', 10));
    f.replace([foo], '0');
  };
  const barTombstone = [delta('Deleted', tombstone('bar', mkFifoObj('bar', 6)))];
  const deletedBazThen = (type: DeltaType, foo: FifoObj) => [
    [delta('Deleted', mkFifoObj('baz', 10))],
    [delta(type, foo)],
    barTombstone,
  ];
  const addedBazTombstoned = [
    delta('Added', mkFifoObj('baz', 10)),
    delta('Deleted', tombstone('baz', mkFifoObj('baz', 10))),
  ];
  describe.each([
    {
      name: 'TestDeltaFIFO_ReplaceMakesDeletions',
      case: 'a pre-existing Delete',
      options: { knownObjects: literalListerGetter(known3) },
      operations: bazThenReplace('delete', mkFifoObj('foo', 5)),
      // bar had no delete and is not in the list: a tombstone with its known object.
      expectedList: deletedBazThen('Sync', mkFifoObj('foo', 5)),
    },
    {
      name: 'TestDeltaFIFO_ReplaceMakesDeletions',
      case: 'starting with an Add instead of a Delete',
      options: { knownObjects: literalListerGetter(known3) },
      operations: bazThenReplace('add', mkFifoObj('foo', 5)),
      expectedList: [addedBazTombstoned, [delta('Sync', mkFifoObj('foo', 5))], barTombstone],
    },
    {
      name: 'TestDeltaFIFO_ReplaceMakesDeletions',
      case: 'deleting and recreating the object in the queue, then a Replace',
      options: { knownObjects: literalListerGetter(known3) },
      operations: (f: DeltaFIFO<FifoObj>) => {
        f.delete(mkFifoObj('bar', 6));
        f.add(mkFifoObj('bar', 100));
        f.replace([mkFifoObj('foo', 5)], '0');
      },
      expectedList: [
        [
          delta('Deleted', mkFifoObj('bar', 6)),
          delta('Added', mkFifoObj('bar', 100)),
          // The queue holds a newer bar than the known one: the tombstone carries it.
          delta('Deleted', tombstone('bar', mkFifoObj('bar', 100))),
        ],
        [delta('Sync', mkFifoObj('foo', 5))],
        [delta('Deleted', tombstone('baz', mkFifoObj('baz', 7)))],
      ],
    },
    {
      name: 'TestDeltaFIFO_ReplaceMakesDeletions',
      case: 'syncing first, so that the delete uses the latest version',
      options: { knownObjects: literalListerGetter(known3) },
      operations: (f: DeltaFIFO<FifoObj>) => {
        f.replace([mkFifoObj('bar', 100), mkFifoObj('foo', 5)], '0');
        f.replace([mkFifoObj('foo', 5)], '0');
      },
      expectedList: [
        [
          delta('Sync', mkFifoObj('bar', 100)),
          delta('Deleted', tombstone('bar', mkFifoObj('bar', 100))),
        ],
        [delta('Sync', mkFifoObj('foo', 5)), delta('Sync', mkFifoObj('foo', 5))],
        [delta('Deleted', tombstone('baz', mkFifoObj('baz', 7)))],
      ],
    },
    {
      name: 'TestDeltaFIFO_ReplaceMakesDeletions',
      case: 'without a KeyListerGetter',
      options: {},
      operations: bazThenReplace('add', mkFifoObj('foo', 5)),
      expectedList: [addedBazTombstoned, [delta('Sync', mkFifoObj('foo', 5))]],
    },
    {
      name: 'TestDeltaFIFO_ReplaceMakesDeletionsReplaced',
      case: 'Replaced deltas',
      options: { knownObjects: literalListerGetter(known3), emitDeltaTypeReplaced: true },
      operations: bazThenReplace('delete', mkFifoObj('foo', 6)),
      expectedList: deletedBazThen('Replaced', mkFifoObj('foo', 6)),
    },
    {
      name: 'TestDeltaFIFO_ReplaceDeltaType',
      case: 'Replaced is emitted',
      options: {
        knownObjects: literalListerGetter([mkFifoObj('foo', 5)]),
        emitDeltaTypeReplaced: true,
      },
      operations: (f: DeltaFIFO<FifoObj>) => f.replace([mkFifoObj('foo', 5)], '0'),
      expectedList: [[delta('Replaced', mkFifoObj('foo', 5))]],
    },
    {
      name: 'TestDeltaFIFO_UpdateResyncRace',
      case: 'a resync does not go back behind a queued update',
      options: { knownObjects: literalListerGetter([mkFifoObj('foo', 5)]) },
      operations: (f: DeltaFIFO<FifoObj>) => {
        f.update(mkFifoObj('foo', 6));
        f.resync();
      },
      expectedList: [[delta('Updated', mkFifoObj('foo', 6))]],
    },
  ])('$name', (tc) => {
    it(tc.case, () => {
      const f = newFIFO(tc.options);
      tc.operations(f);
      for (const expected of tc.expectedList) expect(pop(f)).toEqual(expected);
      expect(f.length).toBe(0);
    });
  });

  it('TestDeltaFIFO_HasSyncedCorrectOnDeletion', () => {
    const f = newFIFO({ knownObjects: literalListerGetter(known3) });
    f.replace([mkFifoObj('foo', 5)], '0');
    const expectedList = [
      [delta('Sync', mkFifoObj('foo', 5))],
      // Not deleted before and missing from the list: tombstones with the known objects.
      [delta('Deleted', tombstone('bar', mkFifoObj('bar', 6)))],
      [delta('Deleted', tombstone('baz', mkFifoObj('baz', 7)))],
    ];
    for (const expected of expectedList) {
      expect(f.hasSynced()).toBe(false);
      let initial: boolean | undefined;
      const cur = f.tryPop((_deltas, isInInitialList) => {
        initial = isInInitialList;
      });
      expect(cur).toEqual(expected);
      expect(initial, 'an initial list item').toBe(true);
    }
    expect(f.hasSynced()).toBe(true);
  });

  it('TestDeltaFIFO_detectLineJumpers', () => {
    const f = newFIFO();
    f.add(mkFifoObj('foo', 10));
    f.add(mkFifoObj('bar', 1));
    f.add(mkFifoObj('foo', 11));
    f.add(mkFifoObj('foo', 13));
    f.add(mkFifoObj('zab', 30));
    expect(testPop(f).val).toBe(13);
    f.add(mkFifoObj('foo', 14)); // foo must not jump back in line
    expect([testPop(f).val, testPop(f).val, testPop(f).val]).toEqual([1, 30, 14]);
  });

  it('TestDeltaFIFO_KeyOf', () => {
    const f = newFIFO();
    const table: { obj: Entry | Deltas<FifoObj>; key: string }[] = [
      { obj: mkFifoObj('A', undefined), key: 'A' },
      { obj: deletedFinalStateUnknown<FifoObj>('B', undefined), key: 'B' },
      { obj: [delta('Added', mkFifoObj('C', undefined))], key: 'C' },
      { obj: [delta('Deleted', deletedFinalStateUnknown<FifoObj>('D', undefined))], key: 'D' },
    ];
    for (const item of table) expect(f.keyOf(item.obj)).toBe(item.key);
  });

  describe('TestDeltaFIFO_HasSynced', () => {
    const replaceAB = (f: DeltaFIFO<FifoObj>) =>
      f.replace([mkFifoObj('a', 1), mkFifoObj('b', 2)], '0');
    const popOne = (f: DeltaFIFO<FifoObj>) => void pop(f);
    const tests: { actions: ((f: DeltaFIFO<FifoObj>) => void)[]; expectedSynced: boolean }[] = [
      { actions: [], expectedSynced: false },
      { actions: [(f) => f.add(mkFifoObj('a', 1))], expectedSynced: true },
      { actions: [(f) => f.replace([], '0')], expectedSynced: true },
      { actions: [replaceAB], expectedSynced: false },
      { actions: [replaceAB, popOne], expectedSynced: false },
      { actions: [replaceAB, popOne, popOne], expectedSynced: true },
      // Duplicate keys in one list (a broken server): one item to pop.
      {
        actions: [(f) => f.replace([mkFifoObj('a', 1), mkFifoObj('a', 2)], '0'), popOne],
        expectedSynced: true,
      },
    ];
    it.each(tests.map((test, i) => ({ i, ...test })))('case $i', (test) => {
      const f = newFIFO();
      for (const action of test.actions) action(f);
      expect(f.hasSynced()).toBe(test.expectedSynced);
    });
  });

  it('TestDeltaFIFO_PopShouldUnblockWhenClosed', async () => {
    const f = newFIFO({ knownObjects: literalListerGetter([mkFifoObj('foo', 5)]) });
    const jobs = 10;
    const pops = Array.from({ length: jobs }, () =>
      f
        .pop(() => undefined)
        .then(
          () => 'popped',
          (err: unknown) => (isFIFOClosedError(err) ? 'closed' : String(err)),
        ),
    );
    f.close();
    expect(await Promise.all(pops)).toEqual(Array.from({ length: jobs }, () => 'closed'));
  });
});
