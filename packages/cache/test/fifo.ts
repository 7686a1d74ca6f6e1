// The fixtures of client-go's FIFO tests (delta_fifo_test.go, the_real_fifo_test.go), shared by
// their ports: the same objects and the same operation tables feed both FIFOs.

import { expect } from 'vitest';
import type { Delta, DeltaType, KnownObjects } from '../src/delta.js';
import { isFIFOClosedError } from '../src/fifo-lifecycle.js';
import { type DeletedFinalStateUnknown, deletedFinalStateUnknown } from '../src/keys.js';

/** client-go's `testFifoObject`: a name (its key) and a value. */
export interface FifoObj {
  name: string;
  val: unknown;
}

/** What a FIFO delta carries in these tests. */
export type Entry = FifoObj | DeletedFinalStateUnknown<FifoObj>;

/** client-go's `mkFifoObj`. */
export const mkFifoObj = (name: string, val: unknown): FifoObj => ({ name, val });

/** client-go's `testFifoObjectKeyFunc`. */
export const testFifoObjectKeyFunc = (obj: unknown): string => (obj as FifoObj).name;

/** A `DeletedFinalStateUnknown{Key, Obj}`. */
export const tombstone = (key: string, obj: FifoObj): DeletedFinalStateUnknown<FifoObj> =>
  deletedFinalStateUnknown(key, obj);

/** A `Delta{Type, Object}`. */
export const delta = (type: DeltaType, object: Entry): Delta<FifoObj> => ({ type, object });

/** client-go's `literalListerGetter`: known objects from a fixed list. */
export function literalListerGetter(objects: FifoObj[]): KnownObjects<FifoObj> {
  return {
    listKeys: () => objects.map((o) => o.name),
    getByKey: (key) => objects.find((o) => o.name === key),
  };
}

/** foo@5, bar@6, baz@7: the known objects of the ReplaceMakesDeletions tests. */
export const known3 = (): FifoObj[] => [
  mkFifoObj('foo', 5),
  mkFifoObj('bar', 6),
  mkFifoObj('baz', 7),
];

/** One call on a FIFO, as data. */
export type Operation =
  | ['add' | 'update' | 'delete', FifoObj]
  | ['replace', FifoObj[], string]
  | ['resync'];

/** What the shared tests call on a FIFO. */
export interface OperableFIFO {
  add(obj: FifoObj): void;
  update(obj: FifoObj): void;
  delete(obj: FifoObj): void;
  replace(list: FifoObj[], resourceVersion: string): void;
  resync(): void;
  pop(process: () => undefined): Promise<readonly { readonly object: unknown }[]>;
  close(): void;
}

/** Builders of {@link Operation}s. */
export const op = {
  add: (obj: FifoObj): Operation => ['add', obj],
  update: (obj: FifoObj): Operation => ['update', obj],
  delete: (obj: FifoObj): Operation => ['delete', obj],
  list: (objs: FifoObj[], resourceVersion = '0'): Operation => ['replace', objs, resourceVersion],
  resync: (): Operation => ['resync'],
};

/** Runs the operations on `f`, in order. */
export function applyOperations(f: OperableFIFO, operations: readonly Operation[]): void {
  for (const op of operations) {
    if (op[0] === 'replace') f.replace(op[1], op[2]);
    else if (op[0] === 'resync') f.resync();
    else f[op[0]](op[1]);
  }
}

/**
 * The `_basic` tests: two producers take turns with the consumer; each producer's objects
 * must come out in the order they went in.
 */
export async function expectProducersInOrder(f: OperableFIFO): Promise<void> {
  const amount = 500;
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
}

/** The `_PopShouldUnblockWhenClosed` tests: what ten pending pops end with after `close`. */
export async function popsEndedByClose(f: OperableFIFO): Promise<string[]> {
  const pops = Array.from({ length: 10 }, () =>
    f
      .pop(() => undefined)
      .then(
        () => 'popped',
        (err: unknown) => (isFIFOClosedError(err) ? 'closed' : String(err)),
      ),
  );
  f.close();
  return Promise.all(pops);
}

/** The `_KeyOf` tables: an object, a tombstone, and deltas of each. */
export const keyOfTable = (): { obj: Entry | Delta<FifoObj>[]; key: string }[] => [
  { obj: mkFifoObj('A', undefined), key: 'A' },
  { obj: deletedFinalStateUnknown<FifoObj>('B', undefined), key: 'B' },
  { obj: [delta('Added', mkFifoObj('C', undefined))], key: 'C' },
  { obj: [delta('Deleted', deletedFinalStateUnknown<FifoObj>('D', undefined))], key: 'D' },
];

/** client-go's `rvAndXfrm`: a value and how often the transformer saw it. */
export interface RvAndXfrm {
  rv: number;
  xfrm: number;
}

/** The `_transformer` tests' objects and transformer (it counts its calls in the object). */
export const transformerFixture = {
  mk: (name: string, rv: number): FifoObj => mkFifoObj(name, { rv, xfrm: 0 } as RvAndXfrm),
  xfrm: (obj: FifoObj): FifoObj => {
    (obj.val as RvAndXfrm).xfrm++;
    return obj;
  },
  /** The calls of the `_transformer` tests. */
  operations(): Operation[] {
    const mk = transformerFixture.mk;
    return [
      ['add', mk('foo', 10)],
      ['add', mk('bar', 11)],
      ['update', mk('foo', 12)],
      ['delete', mk('foo', 15)],
      ['replace', [], ''],
      ['add', mk('bar', 16)],
      ['replace', [], ''],
    ];
  },
};

/**
 * The `_HasSynced` tables; `duplicateKeyPops` is how many pops a list naming one key twice
 * takes (1 for a DeltaFIFO, which merges them; 2 for a RealFIFO).
 */
export function hasSyncedCases<F extends OperableFIFO>(
  popOne: (f: F) => void,
  duplicateKeyPops: number,
): { actions: ((f: F) => void)[]; expectedSynced: boolean }[] {
  const replaceAB = (f: F) => f.replace([mkFifoObj('a', 1), mkFifoObj('b', 2)], '0');
  const replaceAA = (f: F) => f.replace([mkFifoObj('a', 1), mkFifoObj('a', 2)], '0');
  return [
    { actions: [], expectedSynced: false },
    { actions: [(f) => f.add(mkFifoObj('a', 1))], expectedSynced: true },
    { actions: [(f) => f.replace([], '0')], expectedSynced: true },
    { actions: [replaceAB], expectedSynced: false },
    { actions: [replaceAB, popOne], expectedSynced: false },
    { actions: [replaceAB, popOne, popOne], expectedSynced: true },
    // Duplicate keys in one list (a broken server).
    {
      actions: [replaceAA, ...Array.from({ length: duplicateKeyPops }, () => popOne)],
      expectedSynced: true,
    },
  ];
}

/** The `_enqueueingNoLister` and `_enqueueingWithLister` inputs. */
export const enqueueingOperations = {
  noLister: (): Operation[] => [
    op.add(mkFifoObj('foo', 10)),
    op.update(mkFifoObj('bar', 15)),
    op.add(mkFifoObj('qux', 17)),
    op.delete(mkFifoObj('qux', 18)),
    op.delete(mkFifoObj('baz', 20)),
  ],
  withLister: (): Operation[] => [
    op.add(mkFifoObj('foo', 10)),
    op.update(mkFifoObj('bar', 15)),
    op.delete(mkFifoObj('baz', 20)),
  ],
};

/** The inputs of `_ResyncNonExisting`, `_Resync` and `_DeleteExistingNonPropagated`. */
export const resyncCases = (): { name: string; known: FifoObj[]; operations: Operation[] }[] => [
  {
    name: 'ResyncNonExisting',
    known: [mkFifoObj('foo', 5)],
    operations: [['delete', mkFifoObj('foo', 10)], ['resync']],
  },
  { name: 'Resync', known: [mkFifoObj('foo', 5)], operations: [['resync']] },
  {
    name: 'DeleteExistingNonPropagated',
    known: [],
    operations: [
      ['add', mkFifoObj('foo', 5)],
      ['delete', mkFifoObj('foo', 6)],
    ],
  },
];

/**
 * The inputs of the `_ReplaceMakesDeletions`, `_ReplaceMakesDeletionsReplaced` and
 * `_UpdateResyncRace` cases, by case; `known` undefined means no KeyListerGetter.
 */
export function replaceMakesDeletionsCases(): Record<
  string,
  { known: FifoObj[] | undefined; operations: Operation[] }
> {
  const listFoo = (val: number): Operation => ['replace', [mkFifoObj('foo', val)], '0'];
  return {
    'a pre-existing Delete': {
      known: known3(),
      operations: [['delete', mkFifoObj('baz', 10)], listFoo(5)],
    },
    'starting with an Add instead of a Delete': {
      known: known3(),
      operations: [['add', mkFifoObj('baz', 10)], listFoo(5)],
    },
    'deleting and recreating the object in the queue, then a Replace': {
      known: known3(),
      operations: [['delete', mkFifoObj('bar', 6)], ['add', mkFifoObj('bar', 100)], listFoo(5)],
    },
    'syncing first, so that the delete uses the latest version': {
      known: known3(),
      operations: [['replace', [mkFifoObj('bar', 100), mkFifoObj('foo', 5)], '0'], listFoo(5)],
    },
    'without a KeyListerGetter': {
      known: undefined,
      operations: [['add', mkFifoObj('baz', 10)], listFoo(5)],
    },
    'Replaced deltas': {
      known: known3(),
      operations: [['delete', mkFifoObj('baz', 10)], listFoo(6)],
    },
    'a resync does not go back behind a queued update': {
      known: [mkFifoObj('foo', 5)],
      operations: [['update', mkFifoObj('foo', 6)], ['resync']],
    },
  };
}

/** Short names for the expected deltas of the ReplaceMakesDeletions tables. */
export const expectedDelta = {
  added: (name: string, val: unknown) => delta('Added', mkFifoObj(name, val)),
  updated: (name: string, val: unknown) => delta('Updated', mkFifoObj(name, val)),
  deleted: (name: string, val: unknown) => delta('Deleted', mkFifoObj(name, val)),
  tombstoned: (name: string, val: unknown) =>
    delta('Deleted', tombstone(name, mkFifoObj(name, val))),
  listed: (type: DeltaType, name: string, val: unknown) => delta(type, mkFifoObj(name, val)),
};

/**
 * The cases of `TestDeltaFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue` and
 * `TestRealFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue` that both FIFOs share; a relisted
 * object comes out as `relisted` (`Sync` from a DeltaFIFO without `emitDeltaTypeReplaced`,
 * `Replaced` from a RealFIFO).
 */
export function onlyInQueueCases(
  relisted: DeltaType,
): { name: string; operations: Operation[]; expectedDeltas: Delta<FifoObj>[] }[] {
  const obj = mkFifoObj('foo', 2);
  const objV2 = mkFifoObj('foo', 3);
  const deleted = delta('Deleted', tombstone('foo', obj));
  const { add, list } = op;
  return [
    {
      name: 'Added object should be deleted on Replace',
      operations: [add(obj), list([])],
      expectedDeltas: [delta('Added', obj), deleted],
    },
    {
      name: 'Deleted object should have only a single Delete',
      operations: [add(obj), op.delete(obj), list([])],
      expectedDeltas: [delta('Added', obj), delta('Deleted', obj)],
    },
    {
      name: 'Synced objects should have a single delete',
      operations: [add(obj), list([obj]), list([obj]), list([])],
      expectedDeltas: [delta('Added', obj), delta(relisted, obj), delta(relisted, obj), deleted],
    },
    {
      name: 'Added objects should have a single delete on multiple Replaces',
      operations: [add(obj), list([]), list([], '1')],
      expectedDeltas: [delta('Added', obj), deleted],
    },
    {
      name: 'Added and deleted and added object should be deleted',
      operations: [add(obj), op.delete(obj), add(objV2), list([])],
      expectedDeltas: [
        delta('Added', obj),
        delta('Deleted', obj),
        delta('Added', objV2),
        delta('Deleted', tombstone('foo', objV2)),
      ],
    },
  ];
}
