// client-go's tools/cache/the_real_fifo_test.go, ported case by case: each test keeps the Go
// test's name, inputs and expectations. Cases that cannot apply are listed in the README
// ("client-go tests not ported").

import { describe, expect, it } from 'vitest';
import * as fx from '../test/fifo.js';
import { NonAtomicRealFIFO } from './compat.js';
import type { Delta, KnownObjects } from './delta.js';
import { type FIFODelta, RealFIFO, type RealFIFOOptions } from './the-real-fifo.js';

/**
 * client-go's `NewRealFIFOWithOptions`: with `atomicEvents` the informers' RealFIFO, without
 * it the compat queue of one delta per object over `knownObjects`.
 */
function newFIFO(
  options: Omit<RealFIFOOptions<FifoObj>, 'keyFunction'> & {
    atomicEvents?: boolean;
    knownObjects?: KnownObjects<FifoObj>;
  } = {},
): RealFIFO<FifoObj> {
  const { atomicEvents, knownObjects, ...rest } = options;
  const keyed = { keyFunction: fx.testFifoObjectKeyFunc, ...rest };
  if (atomicEvents) return new RealFIFO<FifoObj>(keyed);
  return new NonAtomicRealFIFO<FifoObj>({
    ...keyed,
    knownObjects: knownObjects ?? fx.literalListerGetter([]),
  });
}

/** Pops one fx.delta without waiting (client-go's `Pop` on a non-empty queue). */
function pop(f: RealFIFO<FifoObj>): FIFODelta<FifoObj>[] {
  const popped = f.tryPop(() => undefined);
  if (popped === undefined || popped instanceof Promise) throw new Error('nothing to pop');
  return popped;
}

/** client-go's `popN` + `collapseDeltas`: `count` pops, as one list of deltas. */
const popN = (f: RealFIFO<FifoObj>, count: number): FIFODelta<FifoObj>[] =>
  Array.from({ length: count }, () => pop(f)).flat();

/** client-go's `testRealFIFOPop`: the popped object, or the objects of a `ReplacedAll`. */
function testRealFIFOPop(f: RealFIFO<FifoObj>): FifoObj {
  const newest = pop(f).at(-1)!;
  if (newest.type === 'ReplacedAll')
    return fx.mkFifoObj('ATOMIC REPLACED OBJ', newest.object.objects);
  return newest.object as FifoObj;
}

const replacedAll = (resourceVersion: string, objects: FifoObj[]): FIFODelta<FifoObj> => ({
  type: 'ReplacedAll',
  object: { resourceVersion, objects },
});

type FifoObj = fx.FifoObj;

describe('client-go the_real_fifo_test.go', () => {
  it('TestRealFIFO_basic', async () => {
    await fx.expectProducersInOrder(newFIFO());
  });

  it('TestRealFIFO_replaceWithDeleteDeltaIn', () => {
    const oldObj = fx.mkFifoObj('foo', 1);
    const newObj = fx.mkFifoObj('foo', 2);
    const f = newFIFO({ knownObjects: fx.literalListerGetter([oldObj]) });
    f.delete(oldObj);
    f.replace([newObj], '');
    expect(f.list()).toEqual([fx.delta('Deleted', oldObj), fx.delta('Replaced', newObj)]);
  });

  // The case 'Replaced object should have only a single Delete' is commented out in the Go
  // test (a RealFIFO has no emitDeltaTypeReplaced option).
  it.each(fx.onlyInQueueCases('Replaced'))(
    'TestRealFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue: $name',
    (tt) => {
      const f = newFIFO({ knownObjects: fx.literalListerGetter([]) });
      fx.applyOperations(f, tt.operations);
      expect(popN(f, f.length)).toEqual(tt.expectedDeltas);
      expect(f.length, 'no extra deltas').toBe(0);
    },
  );

  it('TestRealFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue: Bookmark object should not be added without atomic', () => {
    const f = newFIFO({ knownObjects: fx.literalListerGetter([]) });
    f.bookmark('123');
    f.replace([], '0');
    f.replace([], '1');
    expect(popN(f, f.length)).toEqual([]);
    expect(f.length, 'no extra deltas').toBe(0);
  });

  it('TestRealFIFO_addUpdate', () => {
    const f = newFIFO();
    f.add(fx.mkFifoObj('foo', 10));
    f.update(fx.mkFifoObj('foo', 12));
    f.delete(fx.mkFifoObj('foo', 15));
    // Every fx.delta stays queued, in order.
    expect(f.list()).toEqual([
      fx.delta('Added', fx.mkFifoObj('foo', 10)),
      fx.delta('Updated', fx.mkFifoObj('foo', 12)),
      fx.delta('Deleted', fx.mkFifoObj('foo', 15)),
    ]);
    expect([testRealFIFOPop(f).val, testRealFIFOPop(f).val, testRealFIFOPop(f).val]).toEqual([
      10, 12, 15,
    ]);
    expect(f.length, 'no further value').toBe(0);
  });

  it('TestRealFIFO_transformer', () => {
    const { mk, xfrm } = fx.transformerFixture;
    const f = newFIFO({ transformer: xfrm });
    fx.applyOperations(f, fx.transformerFixture.operations());
    // Nothing is merged: bar is deleted twice. Tombstones are never transformed.
    const expected1 = [
      fx.delta('Added', xfrm(mk('foo', 10))),
      fx.delta('Added', xfrm(mk('bar', 11))),
      fx.delta('Updated', xfrm(mk('foo', 12))),
      fx.delta('Deleted', xfrm(mk('foo', 15))),
      fx.delta('Deleted', fx.tombstone('bar', xfrm(mk('bar', 11)))),
      fx.delta('Added', xfrm(mk('bar', 16))),
      fx.delta('Deleted', fx.tombstone('bar', xfrm(mk('bar', 16)))),
    ];
    expect(f.list().map((d) => [d.type, f.keyOf(d as Delta<FifoObj>)])).toEqual(
      expected1.map((d) => [d.type, f.keyOf(d)]),
    );
    for (const e of expected1) expect(pop(f)).toEqual([e]);
  });

  // A RealFIFO queues every delete, also of a key neither queued nor known (baz).
  it.each([
    {
      name: 'TestRealFIFO_enqueueingNoLister',
      known: [],
      operations: fx.enqueueingOperations.noLister(),
      expectList: [10, 15, 17, 18, 20],
    },
    {
      name: 'TestRealFIFO_enqueueingWithLister',
      known: fx.known3(),
      operations: fx.enqueueingOperations.withLister(),
      expectList: [10, 15, 20],
    },
  ])('$name', (tc) => {
    const f = newFIFO({ knownObjects: fx.literalListerGetter(tc.known) });
    fx.applyOperations(f, tc.operations);
    expect(tc.expectList.map(() => testRealFIFOPop(f).val)).toEqual(tc.expectList);
    expect(f.length, 'queue empty').toBe(0);
  });

  it('TestRealFIFO_addReplace', () => {
    const f = newFIFO();
    f.add(fx.mkFifoObj('foo', 10));
    f.replace([fx.mkFifoObj('foo', 15)], '0');
    // Every fx.delta is delivered, the older one first.
    expect([testRealFIFOPop(f).val, testRealFIFOPop(f).val]).toEqual([10, 15]);
    expect(f.length, 'item removed').toBe(0);
  });

  // The types queued after a few operations on a FIFO knowing foo@5 (or nothing).
  const expectedTypes: Record<string, FIFODelta<FifoObj>['type'][]> = {
    ResyncNonExisting: ['Deleted'],
    Resync: ['Sync'],
    DeleteExistingNonPropagated: ['Added', 'Deleted'],
  };
  it.each(fx.resyncCases())('TestRealFIFO_$name', (tc) => {
    const f = newFIFO({ knownObjects: fx.literalListerGetter(tc.known) });
    fx.applyOperations(f, tc.operations);
    expect(f.list().map((d) => d.type)).toEqual(expectedTypes[tc.name]);
  });

  // The pops expected after some operations, one fx.delta each. The tombstones of known objects
  // come before the listed objects: a relist deletes first.
  const { added, updated, deleted, tombstoned, listed } = fx.expectedDelta;
  const replaced = (name: string, val: number) => listed('Replaced', name, val);
  const inputs = fx.replaceMakesDeletionsCases();
  const replaceMakesDeletions: Record<string, Delta<FifoObj>[]> = {
    'a pre-existing Delete': [deleted('baz', 10), tombstoned('bar', 6), replaced('foo', 5)],
    'starting with an Add instead of a Delete': [
      added('baz', 10),
      tombstoned('baz', 10),
      tombstoned('bar', 6),
      replaced('foo', 5),
    ],
    // The queue holds a newer bar than the known one: the fx.tombstone carries it.
    'deleting and recreating the object in the queue, then a Replace': [
      deleted('bar', 6),
      added('bar', 100),
      tombstoned('bar', 100),
      tombstoned('baz', 7),
      replaced('foo', 5),
    ],
    'syncing first, so that the delete uses the latest version': [
      tombstoned('baz', 7),
      replaced('bar', 100),
      replaced('foo', 5),
      tombstoned('bar', 100),
      replaced('foo', 5),
    ],
    'without a KeyListerGetter': [added('baz', 10), tombstoned('baz', 10), replaced('foo', 5)],
  };
  describe.each([
    ...Object.entries(replaceMakesDeletions).map(([name, expectedList]) => ({
      test: 'TestRealFIFO_ReplaceMakesDeletions',
      name,
      expectedList,
    })),
    {
      test: 'TestRealFIFO_ReplaceMakesDeletionsReplaced',
      name: 'Replaced deltas',
      expectedList: [deleted('baz', 10), tombstoned('bar', 6), replaced('foo', 6)],
    },
    {
      test: 'TestRealFIFO_UpdateResyncRace',
      name: 'a resync does not go back behind a queued update',
      expectedList: [updated('foo', 6)],
    },
  ])('$test', (tc) => {
    it(tc.name, () => {
      const { known, operations } = inputs[tc.name]!;
      const f = newFIFO({ knownObjects: fx.literalListerGetter(known ?? []) });
      fx.applyOperations(f, operations);
      for (const expected of tc.expectedList) expect(pop(f)).toEqual([expected]);
      expect(f.length).toBe(0);
    });
  });

  it('TestRealFIFO_HasSyncedCorrectOnDeletion', () => {
    const f = newFIFO({ knownObjects: fx.literalListerGetter(fx.known3()) });
    f.replace([fx.mkFifoObj('foo', 5)], '0');
    const expectedList = [
      // Not deleted before and missing from the list: tombstones with the known objects.
      tombstoned('bar', 6),
      tombstoned('baz', 7),
      replaced('foo', 5),
    ];
    for (const expected of expectedList) {
      expect(f.hasSynced()).toBe(false);
      let initial: boolean | undefined;
      const cur = f.tryPop((_deltas, isInInitialList) => {
        initial = isInInitialList;
      });
      expect(cur).toEqual([expected]);
      expect(initial, 'an initial list item').toBe(true);
    }
    expect(f.hasSynced()).toBe(true);
  });

  it('TestRealFIFO_detectLineJumpers', () => {
    const f = newFIFO();
    f.add(fx.mkFifoObj('foo', 10));
    f.add(fx.mkFifoObj('bar', 1));
    f.add(fx.mkFifoObj('foo', 11));
    f.add(fx.mkFifoObj('foo', 13));
    f.add(fx.mkFifoObj('zab', 30));
    // Every fx.delta is delivered in order.
    expect(testRealFIFOPop(f).val).toBe(10);
    f.add(fx.mkFifoObj('foo', 14)); // foo must not jump back in line
    const rest = Array.from({ length: 5 }, () => testRealFIFOPop(f).val);
    expect(rest).toEqual([1, 11, 13, 30, 14]);
  });

  it('TestRealFIFO_KeyOf', () => {
    const f = newFIFO();
    for (const item of fx.keyOfTable()) expect(f.keyOf(item.obj)).toBe(item.key);
  });

  describe('TestRealFIFO_HasSynced', () => {
    const tests = fx.hasSyncedCases((f: RealFIFO<FifoObj>) => void pop(f), 2);
    it.each(tests.map((test, i) => ({ i, ...test })))('case $i', (test) => {
      const f = newFIFO();
      for (const action of test.actions) action(f);
      expect(f.hasSynced()).toBe(test.expectedSynced);
    });
  });

  it('TestRealFIFO_PopShouldUnblockWhenClosed', async () => {
    const f = newFIFO({ knownObjects: fx.literalListerGetter([fx.mkFifoObj('foo', 5)]) });
    expect(await fx.popsEndedByClose(f)).toEqual(Array.from({ length: 10 }, () => 'closed'));
  });

  describe('TestRealFIFO_PopMultipleDeltaInBatch', () => {
    const unlimitedBatchSize = 999999;
    const [obj1, obj2, obj3, obj4] = [1, 2, 3, 4].map((i) => fx.mkFifoObj(`foo${i}`, 5)) as [
      FifoObj,
      FifoObj,
      FifoObj,
      FifoObj,
    ];
    const updates =
      (...objs: FifoObj[]) =>
      (f: RealFIFO<FifoObj>) => {
        for (const obj of objs) f.update(obj);
      };
    const replaced = (...objs: FifoObj[]) => objs.map((o) => fx.delta('Replaced', o));
    const updated = (...objs: FifoObj[]) => objs.map((o) => fx.delta('Updated', o));
    const testCases = [
      {
        name: 'non-split: pop unique items should work',
        initialItems: [obj1, obj2, obj3],
        actions: updates(),
        batchSize: unlimitedBatchSize,
        expectedBatches: [replaced(obj1, obj2, obj3)],
      },
      {
        name: 'split due to initial list: initial 2 items with 2 updates should have 2 batches',
        initialItems: [obj1, obj2],
        actions: updates(obj3, obj4),
        batchSize: 2,
        expectedBatches: [replaced(obj1, obj2), updated(obj3, obj4)],
      },
      {
        name: 'split due to non-unique#1: update single item for multiple items should have separate batch',
        initialItems: [obj1],
        actions: updates(obj1, obj1),
        batchSize: unlimitedBatchSize,
        expectedBatches: [replaced(obj1), updated(obj1), updated(obj1)],
      },
      {
        name: 'split due to non-unique#2: update 3 item for with non-unique item at the end should have separate batch',
        initialItems: [obj1, obj2],
        actions: updates(obj2, obj3),
        batchSize: unlimitedBatchSize,
        expectedBatches: [replaced(obj1, obj2), updated(obj2, obj3)],
      },
      {
        name: 'split due to non-unique#3: update 3 item for with non-unique item in the mid should have separate batch',
        initialItems: [obj1, obj2, obj3],
        actions: updates(obj2),
        batchSize: unlimitedBatchSize,
        expectedBatches: [replaced(obj1, obj2, obj3), updated(obj2)],
      },
      {
        name: 'split due to batch size#1: batching initial list should work',
        initialItems: [obj1, obj2, obj3],
        actions: updates(),
        batchSize: 2,
        expectedBatches: [replaced(obj1, obj2), replaced(obj3)],
      },
      {
        name: 'split due to batch size#2: batching incoming non-initial deltas should work',
        initialItems: [],
        actions: updates(obj1, obj2, obj3),
        batchSize: 2,
        expectedBatches: [updated(obj1, obj2), updated(obj3)],
      },
      {
        name: 'split due to batch size#3: pop 4 mixed initial & non-initial items with 2 batch size should have 3 batch',
        initialItems: [obj1, obj2, obj3],
        actions: updates(obj4),
        batchSize: 2,
        expectedBatches: [replaced(obj1, obj2), replaced(obj3), updated(obj4)],
      },
    ];
    it.each(testCases)('$name', (tc) => {
      const f = newFIFO({
        knownObjects: fx.literalListerGetter(tc.initialItems),
        batchSize: tc.batchSize,
      });
      f.replace(tc.initialItems, '123');
      tc.actions(f);

      const maxAttempts = 10;
      const receivedItems: FIFODelta<FifoObj>[][] = [];
      const receivedInitialItems: FifoObj[] = [];
      const received = (deltas: readonly FIFODelta<FifoObj>[], isInInitialList: boolean) => {
        receivedItems.push([...deltas]);
        if (isInInitialList) receivedInitialItems.push(...deltas.map((d) => d.object as FifoObj));
      };
      for (let i = 0; i < maxAttempts; i++)
        f.tryPopBatch(received, (deltas, initial) => received([deltas.at(-1)!], initial));
      f.close();

      expect(receivedItems).toEqual(tc.expectedBatches);
      expect(receivedInitialItems).toEqual(tc.initialItems);
    });
  });

  describe('TestRealFIFO_ReplaceAtomic', () => {
    const obj = fx.mkFifoObj('foo', 2);
    const table = [
      {
        name: 'Base replace',
        operations: (f: RealFIFO<FifoObj>) => f.replace([], '123'),
        expectedDeltas: [replacedAll('123', [])],
      },
      {
        name: 'Added object exists in deltas on Atomic Replace',
        operations: (f: RealFIFO<FifoObj>) => {
          f.add(obj);
          f.replace([], '123');
        },
        expectedDeltas: [fx.delta('Added', obj), replacedAll('123', [])],
      },
      {
        name: 'Multiple replaces run in order',
        operations: (f: RealFIFO<FifoObj>) => {
          f.add(obj);
          f.replace([obj], '10');
          f.replace([obj], '20');
          f.replace([], '56');
        },
        expectedDeltas: [
          fx.delta('Added', obj),
          replacedAll('10', [obj]),
          replacedAll('20', [obj]),
          replacedAll('56', []),
        ],
      },
      {
        name: 'Bookmark object should not be included in Replace',
        operations: (f: RealFIFO<FifoObj>) => {
          f.bookmark('123');
          f.replace([], '1234');
        },
        expectedDeltas: [
          { type: 'Bookmark', object: { resourceVersion: '123' } },
          replacedAll('1234', []),
        ] satisfies FIFODelta<FifoObj>[],
      },
    ];
    it.each(table)('$name', (tt) => {
      const f = newFIFO({ atomicEvents: true, emitDeltaTypeBookmark: true });
      tt.operations(f);
      expect(popN(f, f.length)).toEqual(tt.expectedDeltas);
      expect(f.length, 'no extra deltas').toBe(0);
    });
  });

  it('TestRealFIFO_ReplaceAtomicPop', () => {
    const f = newFIFO({ atomicEvents: true });
    f.add(fx.mkFifoObj('foo', 10));
    f.replace([fx.mkFifoObj('foo', 15)], '20');
    const added = testRealFIFOPop(f);
    expect([added.name, added.val]).toEqual(['foo', 10]);
    const curr = testRealFIFOPop(f);
    expect(curr).toEqual(fx.mkFifoObj('ATOMIC REPLACED OBJ', [fx.mkFifoObj('foo', 15)]));
    expect(f.length, 'item removed').toBe(0);
  });

  describe('TestRealFIFO_ResyncAtomic', () => {
    const obj = fx.mkFifoObj('foo', 2);
    const syncAll: FIFODelta<FifoObj> = { type: 'SyncAll', object: undefined };
    it.each([
      {
        name: 'Base resync',
        operations: (f: RealFIFO<FifoObj>) => f.resync(),
        expectedDeltas: [syncAll],
      },
      {
        name: 'Added object exists in deltas on Atomic Resync',
        operations: (f: RealFIFO<FifoObj>) => {
          f.add(obj);
          f.resync();
        },
        expectedDeltas: [fx.delta('Added', obj), syncAll],
      },
    ])('$name', (tt) => {
      const f = newFIFO({ atomicEvents: true });
      tt.operations(f);
      // Resync appends to the queue: the order is kept.
      expect(popN(f, f.length)).toEqual(tt.expectedDeltas);
      expect(f.length, 'no extra deltas').toBe(0);
    });
  });
});
