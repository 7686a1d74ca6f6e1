// client-go's tools/cache/shared_informer_test.go, ported case by case: each test keeps the Go
// test's name, inputs and expectations. Cases that cannot apply are listed in the README
// ("client-go tests not ported").

import { FakeClock } from '@kubets/apimachinery/testing';
import { eventually } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { FakeControllerSource } from '../test/fake-controller-source.js';
import { abortedAfterTest, type TestPod } from '../test/helpers.js';
import type { ResourceEventHandler } from './handler.js';
import {
  newSharedInformer,
  type ResourceEventHandlerRegistration,
  type SharedIndexInformer,
  shutDownEventHandler,
} from './shared-informer.js';

const named = (name: string): TestPod => ({ metadata: { name } });

/**
 * client-go's `testListener`: records the names of the objects it is handed (adds and
 * updates) and is `ok` once they are exactly the expected ones.
 */
function newTestListener(name: string, resyncPeriodMs: number, ...expected: string[]) {
  const listener = {
    name,
    resyncPeriodMs,
    expectedItemNames: expected,
    receivedItemNames: [] as string[],
    handler: {
      onAdd: (obj) => void listener.receivedItemNames.push(obj.metadata.name),
      onUpdate: (_old, obj) => void listener.receivedItemNames.push(obj.metadata.name),
    } satisfies ResourceEventHandler<TestPod>,
    // As sets: a name received twice (a resync, then a relist) counts once.
    satisfiedExpectations: () =>
      [...new Set(listener.receivedItemNames)].sort().join() ===
      [...new Set(listener.expectedItemNames)].sort().join(),
    /** Waits until the expectations are met. */
    ok: () => eventually(listener.satisfiedExpectations, { what: `${name}: ${expected}` }),
    reset: () => {
      listener.receivedItemNames = [];
    },
  };
  return listener;
}

/** A shared informer over a fake source, resyncing every `resyncPeriodMs`, on a fake clock. */
function setup(resyncPeriodMs: number, ...names: string[]) {
  const source = new FakeControllerSource<TestPod>();
  for (const name of names) source.add(named(name));
  const clock = new FakeClock();
  const informer = newSharedInformer<TestPod>(source, 'pods', {
    resyncPeriodMs,
    clock,
    random: () => 0.5,
  });
  const stop = abortedAfterTest();
  let running: Promise<void> | undefined;
  const run = () => {
    running = informer.run(stop.signal);
  };
  const close = async () => {
    stop.abort();
    await running;
  };
  return { source, clock, informer, run, close };
}

/**
 * Resolves after one turn of the event loop: every handler loop, driven by microtasks, has
 * delivered what was queued for it.
 */
const drained = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A promise and the function that resolves it (a Go channel closed once). */
function signalled(): [Promise<void>, () => void] {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return [promise, resolve];
}

/** True when `handler` still receives events: a new object reaches it. */
async function receives(
  informer: SharedIndexInformer<TestPod>,
  source: FakeControllerSource<TestPod>,
  listener: ReturnType<typeof newTestListener>,
  name: string,
): Promise<boolean> {
  listener.reset();
  source.add(named(name));
  await eventually(() => informer.getStore().getByKey(name) !== undefined);
  await drained();
  return listener.receivedItemNames.includes(name);
}

/**
 * client-go's closing steps of both remove-handler tests: removing the second handler stops
 * its deliveries only, then removing the first stops its own.
 */
async function expectRemovalsStopDelivery(
  informer: SharedIndexInformer<TestPod>,
  source: FakeControllerSource<TestPod>,
  [listener1, handle1]: [ReturnType<typeof newTestListener>, ResourceEventHandlerRegistration],
  [listener2, handle2]: [ReturnType<typeof newTestListener>, ResourceEventHandlerRegistration],
): Promise<void> {
  informer.removeEventHandler(handle2);
  expect(await receives(informer, source, listener2, 'pod3')).toBe(false);
  expect(listener1.receivedItemNames).toContain('pod3');
  informer.removeEventHandler(handle1);
  expect(await receives(informer, source, listener1, 'pod4')).toBe(false);
}

describe('client-go shared_informer_test.go', () => {
  it('TestIndexer', async () => {
    const labeled = (name: string, labels: Record<string, string>): TestPod => ({
      metadata: { name, labels },
    });
    const pod1 = labeled('pod1', { a: 'a-val', b: 'b-val1' });
    const pod2 = labeled('pod2', { b: 'b-val2' });
    const pod3 = labeled('pod3', { a: 'a-val2' });
    const { source, informer, run } = setup(1000);
    source.add(pod1);
    source.add(pod2);
    const labelKeys = (pod: TestPod) => Object.keys(pod.metadata.labels ?? {});
    informer.addIndexers({ labels: labelKeys });
    run();
    await eventually(() => informer.hasSynced());
    const names = (pods: TestPod[]) => pods.map((p) => p.metadata.name).sort();

    // Lookup by index.
    expect(names(informer.getIndexer().byIndex('labels', 'a'))).toEqual(['pod1']);
    // An item added later.
    source.add(pod3);
    await eventually(() => informer.getIndexer().byIndex('labels', 'a').length === 2);
    expect(names(informer.getIndexer().byIndex('labels', 'a'))).toEqual(['pod1', 'pod3']);
    // An index added later is available at once.
    informer.addIndexers({ 'labels-again': labelKeys });
    expect(names(informer.getIndexer().byIndex('labels-again', 'a'))).toEqual(['pod1', 'pod3']);
    expect(informer.getIndexer().listIndexFuncValues('labels').sort()).toEqual(['a', 'b']);
    expect(informer.getIndexer().listIndexFuncValues('labels-again').sort()).toEqual(['a', 'b']);
  });

  it('TestResyncCheckPeriod', async () => {
    // The informer resyncs every 12 hours; handlers ask for never, 1 min, 55 s and 5 s: the
    // informer then checks every 5 s (the listeners' own periods are internal to kubets).
    const { clock, informer, run } = setup(12 * 3600_000);
    for (const period of [0, 60_000, 55_000, 5000]) {
      informer.addEventHandler(newTestListener(`every ${period}`, period).handler, {
        resyncPeriodMs: period,
      });
    }
    run();
    await eventually(() => informer.hasSynced() && clock.pending === 1);
    expect(clock.nextDue()).toBe(5000);
  });

  it('TestListenerResyncPeriods', async () => {
    // The informer checks every 1 s; listener1 never resyncs, listener2 every 2 s, listener3
    // every 3 s.
    const { clock, informer, run } = setup(1000, 'pod1', 'pod2');
    const listener1 = newTestListener('listener1', 0, 'pod1', 'pod2');
    const listener2 = newTestListener('listener2', 2000, 'pod1', 'pod2');
    const listener3 = newTestListener('listener3', 3000, 'pod1', 'pod2');
    const listeners = [listener1, listener2, listener3];
    for (const l of listeners) {
      informer.addEventHandler(l.handler, { resyncPeriodMs: l.resyncPeriodMs });
    }
    run();
    // Every listener got the initial list.
    for (const l of listeners) await l.ok();
    await eventually(() => clock.pending === 1);

    const advance = async (ms: number) => {
      for (const l of listeners) l.reset();
      for (let t = 0; t < ms; t += 1000) {
        clock.step(1000);
        await eventually(() => clock.pending === 1);
      }
    };
    // At 2 s listener2 resyncs, the others get nothing.
    await advance(2000);
    await listener2.ok();
    expect(listener1.receivedItemNames).toEqual([]);
    expect(listener3.receivedItemNames).toEqual([]);
    // At 3 s listener3 resyncs, the others get nothing.
    await advance(1000);
    await listener3.ok();
    expect(listener1.receivedItemNames).toEqual([]);
    expect(listener2.receivedItemNames).toEqual([]);
  });

  it('TestSharedInformerWatchDisruption', async () => {
    const { source, clock, informer, run } = setup(1000);
    source.add({ metadata: { name: 'pod1', resourceVersion: '1' } });
    source.add({ metadata: { name: 'pod2', resourceVersion: '2' } });
    const listenerNoResync = newTestListener('listenerNoResync', 0, 'pod1', 'pod2');
    const listenerResync = newTestListener('listenerResync', 1000, 'pod1', 'pod2');
    const listeners = [listenerNoResync, listenerResync];
    for (const l of listeners) {
      informer.addEventHandler(l.handler, { resyncPeriodMs: l.resyncPeriodMs });
    }
    run();
    for (const l of listeners) await l.ok();
    await eventually(() => clock.pending === 1);

    // Add pod3 and bump pod2 without telling the watch: only a relist sees them.
    source.addDropWatch(named('pod3'));
    source.modifyDropWatch(named('pod2'));
    await drained();
    for (const l of listeners)
      expect(l.satisfiedExpectations(), `${l.name} saw nothing`).toBe(true);
    for (const l of listeners) l.reset();
    listenerNoResync.expectedItemNames = ['pod2', 'pod3'];
    listenerResync.expectedItemNames = ['pod1', 'pod2', 'pod3'];

    // The resync check marks listenerResync as due (listenerNoResync is not).
    clock.step(1000);
    // A connection loss, or a too old watch: the informer relists after its backoff.
    const lists = source.lists;
    source.resetWatch();
    await eventually(() => {
      clock.step(1601);
      return source.lists > lists;
    });
    for (const l of listeners) await l.ok();
  });

  it('TestSharedInformerErrorHandling', async () => {
    const { source, informer, run } = setup(1000, 'pod1');
    source.listError = new Error('Access Denied');
    const errors: unknown[] = [];
    informer.setWatchErrorHandler((err) => errors.push(err));
    run();
    await eventually(() => errors.length > 0);
    expect(String(errors[0])).toContain('Access Denied');
  });

  it('TestSharedInformerTransformer', async () => {
    const source = new FakeControllerSource<TestPod>();
    source.add({ metadata: { name: 'pod1', resourceVersion: '1' } });
    source.add({ metadata: { name: 'pod2', resourceVersion: '2' } });
    const transformed = newSharedInformer<TestPod>(source, 'pods', {
      resyncPeriodMs: 1000,
      clock: new FakeClock(),
    });
    transformed.setTransform((pod) => {
      pod.metadata.name = pod.metadata.name.toUpperCase();
      return pod;
    });
    const listenerTransformer = newTestListener('listenerTransformer', 0, 'POD1', 'POD2');
    transformed.addEventHandler(listenerTransformer.handler);
    void transformed.run(abortedAfterTest().signal);
    await listenerTransformer.ok();
  });

  it('TestSharedInformerRemoveHandler', async () => {
    const { source, informer, run } = setup(1000, 'pod1');
    const listener1 = newTestListener('handler1', 0);
    const listener2 = newTestListener('handler2', 0);
    const handle1 = informer.addEventHandler(listener1.handler);
    const handle2 = informer.addEventHandler(listener2.handler);
    run();
    await eventually(() => informer.hasSynced());
    expect(await receives(informer, source, listener2, 'pod2')).toBe(true);
    await expectRemovalsStopDelivery(informer, source, [listener1, handle1], [listener2, handle2]);
  });

  it('TestSharedInformerRemoveForeignHandler', async () => {
    // client-go counts the processor's listeners; kubets shows the same through delivery.
    const { source, informer, run } = setup(1000, 'pod1');
    const other = setup(1000, 'pod1');
    const listener1 = newTestListener('handler1', 0);
    const listener2 = newTestListener('handler2', 0);
    const handle1 = informer.addEventHandler(listener1.handler);
    const handle2 = informer.addEventHandler(listener2.handler);
    const otherListener = newTestListener('other', 0);
    other.informer.addEventHandler(otherListener.handler);
    run();
    other.run();
    await eventually(() => informer.hasSynced() && other.informer.hasSynced());

    // Removing at the foreign informer is no error and removes nothing anywhere.
    expect(() => other.informer.removeEventHandler(handle1)).not.toThrow();
    expect(() => other.informer.removeEventHandler(handle2)).not.toThrow();
    expect(await receives(informer, source, listener1, 'pod2')).toBe(true);
    expect(listener2.receivedItemNames).toContain('pod2');
    expect(await receives(other.informer, other.source, otherListener, 'pod2')).toBe(true);

    await expectRemovalsStopDelivery(informer, source, [listener1, handle1], [listener2, handle2]);
  });

  it('TestSharedInformerMultipleRegistration', async () => {
    const { source, informer, run } = setup(1000, 'pod1');
    const listener = newTestListener('handler1', 0);
    // The same handler registered twice is two registrations: each delivers.
    const reg1 = informer.addEventHandler(listener.handler);
    const reg2 = informer.addEventHandler(listener.handler);
    run();
    await eventually(() => informer.hasSynced());
    const deliveries = async (name: string) => {
      await receives(informer, source, listener, name);
      return listener.receivedItemNames.filter((n) => n === name).length;
    };
    expect(await deliveries('pod2')).toBe(2);
    informer.removeEventHandler(reg1);
    expect(await deliveries('pod3')).toBe(1);
    informer.removeEventHandler(reg2);
    expect(await deliveries('pod4')).toBe(0);
  });

  it('TestRemovingRemovedSharedInformer', async () => {
    const { source, informer, run } = setup(1000, 'pod1');
    const listener = newTestListener('handler', 0);
    const reg = informer.addEventHandler(listener.handler);
    informer.removeEventHandler(reg);
    // Removing a removed registration is no error.
    informer.removeEventHandler(reg);
    run();
    await eventually(() => informer.hasSynced());
    expect(await receives(informer, source, listener, 'pod2')).toBe(false);
  });

  it('TestStateSharedInformer', async () => {
    const { informer, run, close } = setup(1000, 'pod1');
    const listener = newTestListener('listener', 0, 'pod1');
    informer.addEventHandler(listener.handler, { resyncPeriodMs: listener.resyncPeriodMs });
    expect(informer.isStopped(), 'stopped after creation').toBe(false);
    run();
    await listener.ok();
    expect(informer.isStopped(), 'stopped while running').toBe(false);
    await close();
    expect(informer.isStopped(), 'stopped once stopped').toBe(true);
  });

  it('TestAddOnStoppedSharedInformer', async () => {
    const { informer, run, close } = setup(1000, 'pod1');
    const listener = newTestListener('listener', 0, 'pod1');
    run();
    await close();
    expect(informer.isStopped()).toBe(true);
    expect(() =>
      informer.addEventHandler(listener.handler, { resyncPeriodMs: listener.resyncPeriodMs }),
    ).toThrow(/was not added to shared informer because it has stopped already$/);
  });

  it('TestRemoveOnStoppedSharedInformer', async () => {
    const { informer, run, close } = setup(1000, 'pod1');
    const listener = newTestListener('listener', 0, 'pod1');
    const handle = informer.addEventHandler(listener.handler, {
      resyncPeriodMs: listener.resyncPeriodMs,
    });
    run();
    await close();
    expect(informer.isStopped()).toBe(true);
    expect(() => informer.removeEventHandler(handle)).not.toThrow();
  });

  it('TestRemoveWhileActive', async () => {
    const { source, informer, run } = setup(0);
    const listener = newTestListener('listener', 0, 'pod1');
    const handle = informer.addEventHandler(listener.handler);
    run();
    source.add(named('pod1'));
    await listener.ok();
    informer.removeEventHandler(handle);
    source.add(named('pod2'));
    await eventually(() => informer.getStore().getByKey('pod2') !== undefined);
    await drained();
    // Still only pod1.
    expect(listener.satisfiedExpectations()).toBe(true);
  });

  it('TestAddWhileActive', async () => {
    const { source, informer, run } = setup(0);
    const listener1 = newTestListener('originalListener', 0, 'pod1');
    const listener2 = newTestListener('listener2', 0, 'pod1', 'pod2');
    const handle1 = informer.addEventHandler(listener1.handler);
    expect(handle1.hasSynced(), 'synced before run').toBe(false);
    run();
    source.add(named('pod1'));
    await listener1.ok();
    await eventually(() => handle1.hasSynced(), { what: 'handle1 synced' });

    const handle2 = informer.addEventHandler(listener2.handler);
    expect(handle2.hasSynced(), 'synced before processing anything').toBe(false);
    source.add(named('pod2'));
    await listener2.ok();
    expect(handle2.hasSynced(), 'synced after processing').toBe(true);

    listener1.expectedItemNames = listener2.expectedItemNames;
    await listener1.ok();
  });

  describe('TestShutdown', () => {
    it('no-context', async () => {
      const { informer, run, close } = setup(1000);
      const handle = informer.addEventHandler({ onAdd: () => {} });
      run();
      await eventually(() => informer.hasSynced(), { what: 'informer has synced' });
      expect(() => informer.removeEventHandler(handle)).not.toThrow();
      await close();
      expect(informer.isStopped()).toBe(true);
    });

    it('no-context-later', async () => {
      const { informer, run, close } = setup(1000);
      run();
      await eventually(() => informer.hasSynced(), { what: 'informer has synced' });
      const handle = informer.addEventHandler({ onAdd: () => {} });
      expect(() => informer.removeEventHandler(handle)).not.toThrow();
      await close();
      expect(informer.isStopped()).toBe(true);
    });

    it('no-run', () => {
      // Neither the informer nor the handler runs anything: nothing to stop or remove.
      const { informer } = setup(1000);
      expect(() => informer.addEventHandler({ onAdd: () => {} })).not.toThrow();
      expect(informer.isStopped()).toBe(false);
    });
  });

  it('TestRemoveEventHandler_SynchronousShutdown', async () => {
    const { source, informer, run } = setup(0);
    run();
    // client-go's channels: a send on a closed channel panics.
    const scheduledPods: TestPod[] = [];
    let scheduledPodsClosed = false;
    const sendScheduledPod = (pod: TestPod) => {
      if (scheduledPodsClosed) throw new Error('send on closed channel');
      scheduledPods.push(pod);
    };
    const [blockChan, unblock] = signalled();
    const [handlerStarted, started] = signalled();
    const [handlerFinished, finished] = signalled();
    let panicked: unknown;

    const handle = informer.addEventHandler({
      onAdd: async (obj) => {
        started();
        await blockChan;
        try {
          // The handler's remaining work takes a turn of the event loop.
          await drained();
          sendScheduledPod(obj);
        } catch (err) {
          panicked = err;
        } finally {
          finished();
        }
      },
    });

    source.add(named('pod1'));
    await handlerStarted;
    unblock();
    // Removes the handler and waits until it has stopped.
    await shutDownEventHandler(informer, handle);
    // Now it is safe to close the channel.
    scheduledPodsClosed = true;
    await handlerFinished;
    expect(panicked, 'the handler sent on a closed channel').toBeUndefined();
    expect(scheduledPods.map((p) => p.metadata.name)).toEqual(['pod1']);
  });

  describe('TestShutDownEventHandler_Lifecycles', () => {
    it('InformerNeverStarted', async () => {
      const { informer } = setup(0);
      const handle = informer.addEventHandler({ onAdd: () => {} });
      // Resolves at once: the informer never started.
      await expect(shutDownEventHandler(informer, handle)).resolves.toBeUndefined();
    });

    it('StartedThenAddedThenShutDown', async () => {
      const { informer, run } = setup(0);
      run();
      await eventually(() => informer.hasSynced(), { what: 'informer sync' });
      const handle = informer.addEventHandler({ onAdd: () => {} });
      await expect(shutDownEventHandler(informer, handle)).resolves.toBeUndefined();
    });

    it('AddedThenStartedThenShutDown', async () => {
      const { informer, run } = setup(0);
      const handle = informer.addEventHandler({ onAdd: () => {} });
      run();
      await eventually(() => informer.hasSynced(), { what: 'informer sync' });
      await expect(shutDownEventHandler(informer, handle)).resolves.toBeUndefined();
    });

    it('a registration from elsewhere is refused', async () => {
      const { informer } = setup(0);
      await expect(shutDownEventHandler(informer, { hasSynced: () => true })).rejects.toThrow(
        /not returned by addEventHandler/,
      );
    });
  });
});
