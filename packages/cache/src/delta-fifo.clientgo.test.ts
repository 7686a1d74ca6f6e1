// client-go's tools/cache/delta_fifo_test.go, ported case by case: each test keeps the Go
// test's name, inputs and expectations. Cases that cannot apply are listed in the README
// ("client-go tests not ported").

import { describe, expect, it } from 'vitest';
import {
  applyOperations,
  delta,
  enqueueingOperations,
  expectedDelta,
  expectProducersInOrder,
  type FifoObj,
  hasSyncedCases,
  keyOfTable,
  known3,
  literalListerGetter,
  mkFifoObj,
  type Operation,
  onlyInQueueCases,
  popsEndedByClose,
  replaceMakesDeletionsCases,
  resyncCases,
  testFifoObjectKeyFunc,
  tombstone,
  transformerFixture,
} from '../test/fifo.js';
import { DeltaFIFO, type DeltaFIFOOptions, type Deltas } from './compat.js';
import type { DeltaType } from './delta.js';
import type { DeletedFinalStateUnknown } from './keys.js';

function newFIFO(options: Omit<DeltaFIFOOptions<FifoObj>, 'keyFunction'> = {}) {
  return new DeltaFIFO<FifoObj>({ keyFunction: testFifoObjectKeyFunc, ...options });
}

/** Pops one key's deltas without waiting (client-go's `Pop` on a non-empty queue). */
function pop(f: DeltaFIFO<FifoObj>): Deltas<FifoObj> {
  const popped = f.tryPop(() => undefined);
  if (popped === undefined || popped instanceof Promise) throw new Error('nothing to pop');
  return popped;
}

/** client-go's `testPop`: the newest object of the next key. */
function testPop(f: DeltaFIFO<FifoObj>): FifoObj {
  return pop(f).at(-1)!.object as FifoObj;
}

describe('client-go delta_fifo_test.go', () => {
  it('TestDeltaFIFO_basic', async () => {
    await expectProducersInOrder(newFIFO());
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
    const table: {
      name: string;
      emitDeltaTypeReplaced?: boolean;
      operations: Operation[];
      expectedDeltas: Deltas<FifoObj>;
    }[] = [
      ...onlyInQueueCases('Sync'),
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
    ];
    it.each(table)('$name', (tt) => {
      const emit = { emitDeltaTypeReplaced: tt.emitDeltaTypeReplaced ?? false };
      // With and without a backing KnownObjects.
      for (const f of [
        newFIFO({ ...emit, knownObjects: literalListerGetter([]) }),
        newFIFO(emit),
      ]) {
        applyOperations(f, tt.operations);
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
    const f = newFIFO({ transformer: transformerFixture.xfrm });
    applyOperations(f, transformerFixture.operations());
    expect(f.listKeys()).toEqual(['foo', 'bar']);
    // foo: its regular deletion; bar: a tombstone of its last state. Each transformed once.
    const foo = pop(f).at(-1)!.object as FifoObj;
    expect(foo.name).toBe('foo');
    expect(foo.val).toEqual({ rv: 15, xfrm: 1 });
    const bar = pop(f).at(-1)!.object as DeletedFinalStateUnknown<FifoObj>;
    expect(bar.obj?.name).toBe('bar');
    expect(bar.obj?.val).toEqual({ rv: 16, xfrm: 1 });
  });

  // A delete is queued only for a key that is queued or known: baz is neither without a
  // lister, and known with one.
  it.each([
    {
      name: 'TestDeltaFIFO_enqueueingNoLister',
      known: undefined,
      operations: enqueueingOperations.noLister(),
      expectList: [10, 15, 18],
    },
    {
      name: 'TestDeltaFIFO_enqueueingWithLister',
      known: known3(),
      operations: enqueueingOperations.withLister(),
      expectList: [10, 15, 20],
    },
  ])('$name', (tc) => {
    const f = newFIFO(tc.known ? { knownObjects: literalListerGetter(tc.known) } : {});
    applyOperations(f, tc.operations);
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
  const expectedTypes: Record<string, DeltaType[]> = {
    ResyncNonExisting: ['Deleted'],
    Resync: ['Sync'],
    DeleteExistingNonPropagated: ['Added', 'Deleted'],
  };
  it.each(resyncCases())('TestDeltaFIFO_$name', (tc) => {
    const f = newFIFO({ knownObjects: literalListerGetter(tc.known) });
    applyOperations(f, tc.operations);
    expect(f.getByKey('foo')?.map((d) => d.type)).toEqual(expectedTypes[tc.name]);
  });

  // The pops expected after some operations, key by key.
  const { added, updated, deleted, tombstoned, listed } = expectedDelta;
  const sync = (name: string, val: number) => listed('Sync', name, val);
  const inputs = replaceMakesDeletionsCases();
  describe.each([
    {
      name: 'TestDeltaFIFO_ReplaceMakesDeletions',
      case: 'a pre-existing Delete',
      // bar had no delete and is not in the list: a tombstone with its known object.
      expectedList: [[deleted('baz', 10)], [sync('foo', 5)], [tombstoned('bar', 6)]],
    },
    {
      name: 'TestDeltaFIFO_ReplaceMakesDeletions',
      case: 'starting with an Add instead of a Delete',
      expectedList: [
        [added('baz', 10), tombstoned('baz', 10)],
        [sync('foo', 5)],
        [tombstoned('bar', 6)],
      ],
    },
    {
      name: 'TestDeltaFIFO_ReplaceMakesDeletions',
      case: 'deleting and recreating the object in the queue, then a Replace',
      // The queue holds a newer bar than the known one: the tombstone carries it.
      expectedList: [
        [deleted('bar', 6), added('bar', 100), tombstoned('bar', 100)],
        [sync('foo', 5)],
        [tombstoned('baz', 7)],
      ],
    },
    {
      name: 'TestDeltaFIFO_ReplaceMakesDeletions',
      case: 'syncing first, so that the delete uses the latest version',
      expectedList: [
        [sync('bar', 100), tombstoned('bar', 100)],
        [sync('foo', 5), sync('foo', 5)],
        [tombstoned('baz', 7)],
      ],
    },
    {
      name: 'TestDeltaFIFO_ReplaceMakesDeletions',
      case: 'without a KeyListerGetter',
      expectedList: [[added('baz', 10), tombstoned('baz', 10)], [sync('foo', 5)]],
    },
    {
      name: 'TestDeltaFIFO_ReplaceMakesDeletionsReplaced',
      case: 'Replaced deltas',
      emitDeltaTypeReplaced: true,
      expectedList: [[deleted('baz', 10)], [listed('Replaced', 'foo', 6)], [tombstoned('bar', 6)]],
    },
    {
      name: 'TestDeltaFIFO_UpdateResyncRace',
      case: 'a resync does not go back behind a queued update',
      expectedList: [[updated('foo', 6)]],
    },
  ])('$name', (tc) => {
    it(tc.case, () => {
      const { known, operations } = inputs[tc.case]!;
      const f = newFIFO({
        ...(known && { knownObjects: literalListerGetter(known) }),
        emitDeltaTypeReplaced: tc.emitDeltaTypeReplaced ?? false,
      });
      applyOperations(f, operations);
      for (const expected of tc.expectedList) expect(pop(f)).toEqual(expected);
      expect(f.length).toBe(0);
    });
  });

  it('TestDeltaFIFO_ReplaceDeltaType', () => {
    const f = newFIFO({
      knownObjects: literalListerGetter([mkFifoObj('foo', 5)]),
      emitDeltaTypeReplaced: true,
    });
    f.replace([mkFifoObj('foo', 5)], '0');
    expect(pop(f)).toEqual([listed('Replaced', 'foo', 5)]);
    expect(f.length).toBe(0);
  });

  it('TestDeltaFIFO_HasSyncedCorrectOnDeletion', () => {
    const f = newFIFO({ knownObjects: literalListerGetter(known3()) });
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
    for (const item of keyOfTable()) expect(f.keyOf(item.obj)).toBe(item.key);
  });

  describe('TestDeltaFIFO_HasSynced', () => {
    const tests = hasSyncedCases((f: DeltaFIFO<FifoObj>) => void pop(f), 1);
    it.each(tests.map((test, i) => ({ i, ...test })))('case $i', (test) => {
      const f = newFIFO();
      for (const action of test.actions) action(f);
      expect(f.hasSynced()).toBe(test.expectedSynced);
    });
  });

  it('TestDeltaFIFO_PopShouldUnblockWhenClosed', async () => {
    const f = newFIFO({ knownObjects: literalListerGetter([mkFifoObj('foo', 5)]) });
    expect(await popsEndedByClose(f)).toEqual(Array.from({ length: 10 }, () => 'closed'));
  });
});
