import { FakeClock } from '@kubets/apimachinery/testing';
import { eventually } from '@kubets/test-utils';
import { describe, expect, it, vi } from 'vitest';
import {
  abortedAfterTest,
  added,
  deleted,
  expiredStatus,
  FakeListerWatcher,
  listOf,
  modified,
  pod,
  type TestPod,
} from '../test/helpers.js';
import { DeltaFIFO, RequeueError } from './compat.js';
import { InformerController, newIndexerInformer, newInformer } from './controller.js';
import { isDeletedFinalStateUnknown, metaNamespaceKeyFunc } from './keys.js';
import { RealFIFO } from './the-real-fifo.js';
import { metaNamespaceIndexFunc, namespaceIndex } from './thread-safe-store.js';
import { waitForCacheSync } from './wait.js';

function signal(): AbortSignal {
  return abortedAfterTest().signal;
}

describe('newIndexerInformer', () => {
  it('works like the workqueue example: keys queued, a pre-warmed object seen deleted after sync', async () => {
    const lw = new FakeListerWatcher<TestPod>();
    lw.listFn = () => listOf([pod('web-1', '1'), pod('web-2', '1')], '1');
    const queue: string[] = [];
    const clock = new FakeClock();
    const { indexer, controller } = newIndexerInformer<TestPod>(
      lw,
      {
        onAdd: (obj) => void queue.push(`add ${metaNamespaceKeyFunc(obj)}`),
        onUpdate: (_old, obj) => void queue.push(`update ${metaNamespaceKeyFunc(obj)}`),
        onDelete: (obj) =>
          void queue.push(
            `delete ${isDeletedFinalStateUnknown(obj) ? `${obj.key} (tombstone)` : metaNamespaceKeyFunc(obj)}`,
          ),
      },
      0,
      { [namespaceIndex]: metaNamespaceIndexFunc },
      { clock },
    );
    // Warm the cache with a pod the server does not have.
    indexer.add(pod('mypod', '0'));
    const s = signal();
    void controller.run(s);
    expect(await waitForCacheSync(s, () => controller.hasSynced())).toBe(true);
    // A relist is applied at once: deletions are notified first (client-go 1.36 `AtomicFIFO`).
    expect(queue).toEqual([
      'delete default/mypod (tombstone)',
      'add default/web-1',
      'add default/web-2',
    ]);
    expect(indexer.getByKey('default/mypod')).toBeUndefined();
    expect(indexer.byIndex(namespaceIndex, 'default')).toHaveLength(2);
    const w = await lw.watchNumber(1);
    w.push(modified(pod('web-1', '2')));
    await eventually(() => queue.length === 4);
    expect(queue[3]).toBe('update default/web-1');
    expect(controller.lastSyncResourceVersion()).toBe('2');
  });

  it('updates the store before handlers run, awaits async handlers in order, reports errors', async () => {
    const lw = new FakeListerWatcher<TestPod>();
    const seen: string[] = [];
    const errors: string[] = [];
    const { store, controller } = newInformer<TestPod>(
      lw,
      {
        onAdd: async (obj) => {
          expect(store.get(obj)).toBe(obj);
          await new Promise((r) => setTimeout(r, 1));
          seen.push(obj.metadata.name);
          if (obj.metadata.name === 'bad') throw new Error('bad pod');
        },
        onDelete: (obj) => void seen.push(`gone ${metaNamespaceKeyFunc(obj)}`),
      },
      0,
      { clock: new FakeClock(), onHandlerError: (err, event) => errors.push(`${event}: ${err}`) },
    );
    void controller.run(signal());
    const w = await lw.watchNumber(1);
    w.push(added(pod('bad', '2')), added(pod('b', '3')), deleted(pod('b', '4')));
    await eventually(() => seen.length === 3);
    expect(seen).toEqual(['bad', 'b', 'gone default/b']);
    expect(errors).toEqual(['add: Error: bad pod']);
    expect(store.listKeys()).toEqual(['default/bad']);
  });

  it('counts as synced only once an async handler has finished with the first list', async () => {
    const lw = new FakeListerWatcher<TestPod>();
    lw.listFn = () => listOf([pod('a', '1'), pod('b', '1')], '1');
    const seen: string[] = [];
    const releases: (() => void)[] = [];
    const { controller } = newInformer<TestPod>(
      lw,
      {
        onAdd: (obj) => {
          seen.push(obj.metadata.name);
          return new Promise<void>((r) => releases.push(r));
        },
      },
      0,
      { clock: new FakeClock() },
    );
    void controller.run(signal());
    await eventually(() => seen.length === 1);
    expect(controller.hasSynced()).toBe(false);
    releases[0]!();
    await eventually(() => seen.length === 2);
    expect(controller.hasSynced()).toBe(false);
    releases[1]!();
    await eventually(() => controller.hasSynced());
    expect(seen).toEqual(['a', 'b']);
  });

  it('drains queued deltas without a promise per delta when the handler is synchronous', async () => {
    // Spy on every FIFO: the informer's is created inside newIndexerInformer.
    const tryPopBatch = RealFIFO.prototype.tryPopBatch;
    let processed = 0;
    let thenables = 0;
    const counted = <R>(result: R, deltas: number): R => {
      processed += deltas;
      if (typeof (result as PromiseLike<void> | undefined)?.then === 'function') thenables++;
      return result;
    };
    const tryPopSpy = vi.spyOn(RealFIFO.prototype, 'tryPopBatch').mockImplementation(function (
      this: RealFIFO<TestPod>,
      processBatch,
      processSingle,
    ) {
      return tryPopBatch.call(
        this,
        (deltas, isInInitialList, keys) =>
          counted(processBatch(deltas, isInInitialList, keys), deltas.length),
        (deltas, isInInitialList, key) =>
          counted(processSingle(deltas, isInInitialList, key), deltas.length),
      );
    });
    const popSpy = vi.spyOn(RealFIFO.prototype, 'popBatch');
    try {
      const n = 500;
      const lw = new FakeListerWatcher<TestPod>();
      lw.listFn = () =>
        listOf(
          Array.from({ length: n }, (_, i) => pod(`p-${i}`, '1')),
          '1',
        );
      const keys: string[] = [];
      const { controller } = newIndexerInformer<TestPod>(
        lw,
        {
          onAdd: (obj) => void keys.push(metaNamespaceKeyFunc(obj)),
          onUpdate: (_old, obj) => void keys.push(metaNamespaceKeyFunc(obj)),
        },
        0,
        {},
        { clock: new FakeClock() },
      );
      const s = signal();
      void controller.run(s);
      expect(await waitForCacheSync(s, () => controller.hasSynced())).toBe(true);
      expect(keys).toHaveLength(n);
      // The whole list is one delta.
      expect(processed).toBe(1);
      // popBatch (which awaits) only waited for the list.
      expect(popSpy.mock.calls.length).toBeLessThanOrEqual(3);
      const w = await lw.watchNumber(1);
      w.push(...Array.from({ length: n }, (_, i) => modified(pod(`p-${i}`, '2'))));
      await eventually(() => keys.length === 2 * n);
      expect(processed).toBe(1 + n);
      expect(thenables).toBe(0);
    } finally {
      tryPopSpy.mockRestore();
      popSpy.mockRestore();
    }
  });

  it('re-delivers every object as an update on resync', async () => {
    const lw = new FakeListerWatcher<TestPod>();
    lw.listFn = () => listOf([pod('a', '1')], '1');
    const clock = new FakeClock();
    const updates: string[] = [];
    const { controller } = newInformer<TestPod>(
      lw,
      {
        onUpdate: (o, n) =>
          void updates.push(`${o.metadata.resourceVersion}->${n.metadata.resourceVersion}`),
      },
      30_000,
      { clock },
    );
    void controller.run(signal());
    await lw.watchNumber(1);
    await eventually(() => clock.pending === 1);
    clock.step(30_000);
    await eventually(() => updates.length === 1);
    expect(updates).toEqual(['1->1']);
  });
});

describe('InformerController', () => {
  it('logs processing errors, honours RequeueError, and stops on abort', async () => {
    const lw = new FakeListerWatcher<TestPod>();
    const queue = new DeltaFIFO<TestPod>();
    let attempts = 0;
    const processed: string[] = [];
    const errors: string[] = [];
    const controller = new InformerController<TestPod>({
      queue,
      listerWatcher: lw,
      clock: new FakeClock(),
      logger: {
        debug: () => {},
        info: () => {},
        warn: () => {},
        error: (msg, fields) => void errors.push(`${msg}: ${String(fields?.error)}`),
      },
      process: (_deltas, _isInInitialList, name) => {
        if (name === 'default/flaky' && ++attempts < 3) throw new RequeueError(new Error('again'));
        if (name === 'default/broken') throw new Error('broken');
        processed.push(name);
      },
    });
    const ac = new AbortController();
    const done = controller.run(ac.signal);
    await expect(controller.run(ac.signal)).rejects.toThrow(/already running/);
    const w = await lw.watchNumber(1);
    w.push(added(pod('flaky', '2')), added(pod('broken', '3')), added(pod('ok', '4')));
    await eventually(() => processed.length === 2);
    expect(processed.sort()).toEqual(['default/flaky', 'default/ok']);
    expect(attempts).toBe(3);
    expect(errors.sort()).toEqual([
      'Processing deltas failed: Error: again',
      'Processing deltas failed: Error: again',
      'Processing deltas failed: Error: broken',
    ]);
    ac.abort();
    await done;
    expect(queue.isClosed()).toBe(true);
    expect(w.stopped).toBe(true);
  });

  it('relists after a 410 ERROR event and reports it to setWatchErrorHandler', async () => {
    const lw = new FakeListerWatcher<TestPod>();
    const queue = new DeltaFIFO<TestPod>();
    const clock = new FakeClock();
    const controller = new InformerController<TestPod>({
      queue,
      listerWatcher: lw,
      clock,
      process: () => {},
    });
    const seen: unknown[] = [];
    controller.setWatchErrorHandler((err) => seen.push(err));
    void controller.run(signal());
    const w = await lw.watchNumber(1);
    w.push(added(pod('x', '2')), { type: 'ERROR', object: expiredStatus() });
    // The relist waits for the reflector's backoff.
    await eventually(() => clock.pending === 1);
    clock.stepToNext();
    await lw.watchNumber(2);
    expect(seen).toHaveLength(1);
    expect(lw.listCalls).toHaveLength(2);
  });
});

describe('waitForCacheSync', () => {
  it('resolves true once all functions report synced, polling every 100 ms', async () => {
    vi.useFakeTimers();
    try {
      let a = false;
      let result: boolean | undefined;
      const waiting = waitForCacheSync(
        signal(),
        () => a,
        () => true,
      ).then((synced) => {
        result = synced;
      });
      await vi.advanceTimersByTimeAsync(100);
      expect(result).toBeUndefined();
      a = true;
      // Synced now, but not seen before the next poll.
      await vi.advanceTimersByTimeAsync(99);
      expect(result).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      await waiting;
      expect(result).toBe(true);
      expect(await waitForCacheSync(signal())).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('resolves false when aborted', async () => {
    const ac = new AbortController();
    const p = waitForCacheSync(ac.signal, () => false);
    setTimeout(() => ac.abort(), 20);
    expect(await p).toBe(false);
    expect(await waitForCacheSync(ac.signal, () => true)).toBe(false);
  });
});
