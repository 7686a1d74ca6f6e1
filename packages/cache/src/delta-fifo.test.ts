import { flush } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { pod, type TestPod } from '../test/helpers.js';
import { DeltaFIFO, type Deltas, newestDelta, oldestDelta, RequeueError } from './compat.js';
import { FIFOClosedError, isFIFOClosedError } from './fifo-lifecycle.js';
import { deletedFinalStateUnknown, isDeletedFinalStateUnknown } from './keys.js';
import { newStore } from './store.js';

type Popped = { key: string; types: string[]; deltas: Deltas<TestPod>; initial: boolean };

async function popOne(f: DeltaFIFO<TestPod>): Promise<Popped> {
  let out: Popped | undefined;
  await f.pop((deltas, initial) => {
    out = { key: f.keyOf(deltas), types: deltas.map((d) => d.type), deltas, initial };
  });
  return out!;
}

async function popAll(f: DeltaFIFO<TestPod>): Promise<Popped[]> {
  const out: Popped[] = [];
  while (f.length > 0) out.push(await popOne(f));
  return out;
}

describe('DeltaFIFO queueing', () => {
  it('piles deltas up per key and keeps first-arrival order of keys', async () => {
    const f = new DeltaFIFO<TestPod>();
    f.add(pod('a', '1'));
    f.add(pod('b', '1'));
    f.update(pod('a', '2'));
    f.add(pod('c', '1'));
    f.update(pod('b', '2'));
    f.delete(pod('a', '3'));
    expect(f.listKeys()).toEqual(['default/a', 'default/b', 'default/c']);
    expect(f.getByKey('default/a')?.map((d) => d.type)).toEqual(['Added', 'Updated', 'Deleted']);
    const popped = await popAll(f);
    expect(popped.map((p) => [p.key, p.types])).toEqual([
      ['default/a', ['Added', 'Updated', 'Deleted']],
      ['default/b', ['Added', 'Updated']],
      ['default/c', ['Added']],
    ]);
    const a = popped[0]!.deltas;
    expect(oldestDelta(a)?.object).toMatchObject({ metadata: { resourceVersion: '1' } });
    expect(newestDelta(a)?.object).toMatchObject({ metadata: { resourceVersion: '3' } });
  });

  it('a key popped and queued again goes to the back', async () => {
    const f = new DeltaFIFO<TestPod>();
    f.add(pod('a'));
    f.add(pod('b'));
    await popOne(f);
    f.update(pod('a', '2'));
    expect(f.listKeys()).toEqual(['default/b', 'default/a']);
  });

  it('ignores a delete of a key that is neither queued nor known', async () => {
    const f = new DeltaFIFO<TestPod>();
    f.delete(pod('ghost'));
    expect(f.length).toBe(0);

    const known = newStore<TestPod>();
    const g = new DeltaFIFO<TestPod>({ knownObjects: known });
    g.delete(pod('ghost'));
    expect(g.length).toBe(0);
    known.add(pod('there'));
    g.delete(pod('there'));
    expect(g.getByKey('default/there')?.map((d) => d.type)).toEqual(['Deleted']);
    g.add(pod('queued'));
    g.delete(pod('queued'));
    expect(g.getByKey('default/queued')?.map((d) => d.type)).toEqual(['Added', 'Deleted']);
  });

  it('deduplicates only two consecutive deletes, keeping the non-tombstone', () => {
    const known = newStore<TestPod>();
    known.add(pod('a'));
    known.add(pod('b'));
    known.add(pod('c'));
    const f = new DeltaFIFO<TestPod>({ knownObjects: known });
    // Real delete, then a tombstone: the real one is kept.
    const real = pod('a', '5');
    f.delete(real);
    f.delete(deletedFinalStateUnknown<TestPod>('default/a', pod('a', '1')));
    expect(f.getByKey('default/a')).toEqual([{ type: 'Deleted', object: real }]);
    // Tombstone, then a real delete: the real one (the newer) is kept.
    const realB = pod('b', '6');
    f.delete(deletedFinalStateUnknown<TestPod>('default/b', pod('b', '1')));
    f.delete(realB);
    expect(f.getByKey('default/b')).toEqual([{ type: 'Deleted', object: realB }]);
    // Two real deletes: the newer is kept.
    f.delete(pod('c', '7'));
    f.delete(pod('c', '8'));
    const c = f.getByKey('default/c')!;
    expect(c).toHaveLength(1);
    expect(c[0]!.object).toMatchObject({ metadata: { resourceVersion: '8' } });
    // Deletes that are not consecutive are all kept.
    f.add(pod('d', '1'));
    f.delete(pod('d', '2'));
    f.add(pod('d', '3'));
    f.delete(pod('d', '4'));
    expect(f.getByKey('default/d')?.map((d) => d.type)).toEqual([
      'Added',
      'Deleted',
      'Added',
      'Deleted',
    ]);
  });

  it('applies the transformer once per entering object, not to tombstones or Sync', async () => {
    const known = newStore<TestPod>();
    const seen: string[] = [];
    const f = new DeltaFIFO<TestPod>({
      knownObjects: known,
      transformer: (p) => {
        seen.push(p.metadata.name);
        p.metadata.managedFields = undefined;
        return p;
      },
    });
    const a = pod('a');
    a.metadata.managedFields = [{ manager: 'kubectl' }];
    f.add(a);
    expect(a.metadata.managedFields).toBeUndefined();
    expect(seen).toEqual(['a']);
    known.add(pod('k'));
    f.resync();
    f.delete(deletedFinalStateUnknown<TestPod>('default/k', pod('k')));
    expect(seen).toEqual(['a']);
    f.setTransformer(undefined);
    f.update(pod('a', '2'));
    expect(seen).toEqual(['a']);
  });
});

describe('DeltaFIFO.replace', () => {
  it('queues Replaced for each item (emitDeltaTypeReplaced) and tombstones for known keys missing', async () => {
    const known = newStore<TestPod>();
    known.add(pod('kept', '1'));
    known.add(pod('gone', '1'));
    const f = new DeltaFIFO<TestPod>({ knownObjects: known, emitDeltaTypeReplaced: true });
    f.replace([pod('kept', '2'), pod('new', '1')], '100');
    const popped = await popAll(f);
    expect(popped.map((p) => [p.key, p.types])).toEqual([
      ['default/kept', ['Replaced']],
      ['default/new', ['Replaced']],
      ['default/gone', ['Deleted']],
    ]);
    const tomb = popped[2]!.deltas[0]!.object;
    expect(isDeletedFinalStateUnknown(tomb)).toBe(true);
    expect(tomb).toMatchObject({ key: 'default/gone', obj: known.getByKey('default/gone') });
  });

  it('queues Sync without emitDeltaTypeReplaced', async () => {
    const f = new DeltaFIFO<TestPod>();
    f.replace([pod('a')], '1');
    expect((await popOne(f)).types).toEqual(['Sync']);
  });

  it('tombstones queued keys missing from the list with their newest object', async () => {
    const f = new DeltaFIFO<TestPod>({ emitDeltaTypeReplaced: true });
    const newest = pod('q', '3');
    f.add(pod('q', '2'));
    f.update(newest);
    f.replace([pod('other')], '9');
    const q = f.getByKey('default/q')!;
    expect(q.map((d) => d.type)).toEqual(['Added', 'Updated', 'Deleted']);
    expect(q[2]!.object).toMatchObject({ key: 'default/q', obj: newest });
    // A second relist still without q: the tombstone unwraps the previous one, and the two
    // consecutive deletes collapse into one.
    f.replace([pod('other')], '10');
    const q2 = f.getByKey('default/q')!;
    expect(q2.map((d) => d.type)).toEqual(['Added', 'Updated', 'Deleted']);
    expect(q2[2]!.object).toMatchObject({ key: 'default/q', obj: newest });
  });

  it('does not tombstone a known key whose deltas are still queued twice', () => {
    const known = newStore<TestPod>();
    known.add(pod('a', '1'));
    const f = new DeltaFIFO<TestPod>({ knownObjects: known });
    f.update(pod('a', '2'));
    f.replace([], '5');
    expect(f.getByKey('default/a')?.map((d) => d.type)).toEqual(['Updated', 'Deleted']);
  });

  it('hasSynced turns true once every item of the first replace, deletes included, is processed', async () => {
    const known = newStore<TestPod>();
    known.add(pod('gone'));
    const f = new DeltaFIFO<TestPod>({ knownObjects: known, emitDeltaTypeReplaced: true });
    expect(f.hasSynced()).toBe(false);
    f.replace([pod('a'), pod('b')], '1');
    expect(f.hasSynced()).toBe(false);
    const first = await popOne(f);
    expect(first.initial).toBe(true);
    // Events arriving after the list do not delay hasSynced.
    f.add(pod('late'));
    await popOne(f);
    expect(f.hasSynced()).toBe(false);
    let syncedDuringProcess: boolean | undefined;
    const last = await f.pop((d, initial) => {
      syncedDuringProcess = f.hasSynced();
      expect(initial).toBe(true);
      expect(f.keyOf(d)).toBe('default/gone');
    });
    expect(last[0]!.type).toBe('Deleted');
    expect(syncedDuringProcess).toBe(false);
    expect(f.hasSynced()).toBe(true);
    const after = await popOne(f);
    expect(after.key).toBe('default/late');
    expect(after.initial).toBe(false);
    // A later replace does not reset it.
    f.replace([pod('x')], '2');
    expect(f.hasSynced()).toBe(true);
  });

  it('an empty first replace syncs at once', () => {
    const f = new DeltaFIFO<TestPod>();
    f.replace([], '1');
    expect(f.hasSynced()).toBe(true);
  });
});

describe('DeltaFIFO.resync', () => {
  it('adds Sync only for known keys with nothing queued', async () => {
    const known = newStore<TestPod>();
    known.add(pod('idle', '1'));
    known.add(pod('busy', '1'));
    const f = new DeltaFIFO<TestPod>({ knownObjects: known });
    f.update(pod('busy', '2'));
    f.resync();
    expect(f.getByKey('default/idle')?.map((d) => d.type)).toEqual(['Sync']);
    expect(f.getByKey('default/idle')?.[0]?.object).toBe(known.getByKey('default/idle'));
    expect(f.getByKey('default/busy')?.map((d) => d.type)).toEqual(['Updated']);
    // Nothing known, nothing to do.
    const g = new DeltaFIFO<TestPod>();
    g.resync();
    expect(g.length).toBe(0);
  });
});

describe('DeltaFIFO.pop', () => {
  it('waits without spinning until something is queued', async () => {
    const f = new DeltaFIFO<TestPod>();
    const got: string[] = [];
    const p = f.pop((d) => {
      got.push(f.keyOf(d));
    });
    await flush();
    expect(got).toEqual([]);
    f.add(pod('a'));
    await p;
    expect(got).toEqual(['default/a']);
  });

  it('is abortable', async () => {
    const f = new DeltaFIFO<TestPod>();
    const ac = new AbortController();
    const p = f.pop(() => {}, ac.signal);
    ac.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
    await expect(f.pop(() => {}, ac.signal)).rejects.toThrow('stop');
  });

  it('awaits an async process function and rejects with its error', async () => {
    const f = new DeltaFIFO<TestPod>();
    f.add(pod('a'));
    f.add(pod('b'));
    const order: string[] = [];
    await f.pop(async () => {
      await flush(1);
      order.push('processed a');
    });
    order.push('popped a');
    expect(order).toEqual(['processed a', 'popped a']);
    await expect(
      f.pop(() => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(f.length).toBe(0);
  });

  it('requeues on RequeueError unless newer deltas arrived', async () => {
    const f = new DeltaFIFO<TestPod>();
    f.add(pod('a'));
    f.add(pod('b'));
    await expect(
      f.pop(() => {
        throw new RequeueError(new Error('try later'));
      }),
    ).rejects.toThrow('try later');
    expect(f.listKeys()).toEqual(['default/b', 'default/a']);
    expect(f.getByKey('default/a')?.map((d) => d.type)).toEqual(['Added']);
    await popOne(f); // b
    // Newer deltas arrive while processing: the old ones are not put back.
    await f.pop((d) => {
      expect(f.keyOf(d)).toBe('default/a');
      f.update(pod('a', '2'));
      throw new RequeueError();
    });
    expect(f.getByKey('default/a')?.map((d) => d.type)).toEqual(['Updated']);
  });

  it('close: drains what is queued, then rejects with FIFOClosedError, also waiting pops', async () => {
    const f = new DeltaFIFO<TestPod>();
    const waiting = f.pop(() => {});
    f.close();
    await expect(waiting).rejects.toBeInstanceOf(FIFOClosedError);
    const g = new DeltaFIFO<TestPod>();
    g.add(pod('a'));
    g.close();
    expect(g.isClosed()).toBe(true);
    expect((await popOne(g)).key).toBe('default/a');
    const err = await g.pop(() => {}).catch((e: unknown) => e);
    expect(isFIFOClosedError(err)).toBe(true);
  });

  it('list and get show the newest queued objects', () => {
    const f = new DeltaFIFO<TestPod>();
    const a2 = pod('a', '2');
    f.add(pod('a', '1'));
    f.update(a2);
    f.add(pod('b'));
    expect(f.list()[0]).toBe(a2);
    expect(f.get(pod('a'))).toHaveLength(2);
    expect(f.get(pod('zzz'))).toBeUndefined();
    expect(() => f.keyOf([])).toThrow(TypeError);
  });

  it('keeps order across many pops (queue compaction)', async () => {
    const f = new DeltaFIFO<TestPod>();
    for (let i = 0; i < 5000; i++) f.add(pod(`p${i}`));
    const keys: string[] = [];
    for (let i = 0; i < 3000; i++) keys.push((await popOne(f)).key);
    for (let i = 5000; i < 6000; i++) f.add(pod(`p${i}`));
    while (f.length > 0) keys.push((await popOne(f)).key);
    expect(keys).toEqual(Array.from({ length: 6000 }, (_, i) => `default/p${i}`));
  });
});
