// client-go's tools/cache/controller_test.go, ported case by case: each test keeps the Go
// test's name, inputs and expectations. Cases that cannot apply are listed in the README
// ("client-go tests not ported").

import { FakeClock } from '@kubets/apimachinery/testing';
import { eventually } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { FakeControllerSource } from '../test/fake-controller-source.js';
import { abortedAfterTest, type TestPod } from '../test/helpers.js';
import { NonAtomicRealFIFO, processDeltaBatchInTransaction } from './compat.js';
import { InformerController, newInformer } from './controller.js';
import {
  type DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
  isDeletedFinalStateUnknown,
  metaNamespaceKeyFunc,
} from './keys.js';
import type { ListerWatcher } from './listwatch.js';
import { type DeltaHandler, processDeltaBatch, processDeltas } from './process-deltas.js';
import {
  CacheIndexer,
  newStore,
  type Transaction,
  TransactionError,
  type TransactionStore,
} from './store.js';
import { RealFIFO } from './the-real-fifo.js';
import { waitForCacheSync } from './wait.js';

const named = (name: string, namespace?: string): TestPod => ({
  metadata: namespace === undefined ? { name } : { name, namespace },
});

interface EventRecord {
  action: string;
  key: string;
  eventRV: string;
  storeRV: string;
  isInInitialList: boolean;
}

/**
 * client-go's `eventRecorder`: every notification with the resourceVersion of its object and
 * of the object the store holds under its key at that moment.
 */
function newEventRecorder(store: CacheIndexer<TestPod>) {
  const history: EventRecord[] = [];
  const record = (action: string, obj: unknown, isInInitialList: boolean) => {
    const key = deletionHandlingMetaNamespaceKeyFunc(obj);
    const object = (isDeletedFinalStateUnknown<TestPod>(obj) ? obj.obj : obj) as TestPod;
    history.push({
      action,
      key,
      eventRV: object?.metadata.resourceVersion ?? '',
      storeRV: store.getByKey(key)?.metadata.resourceVersion ?? '',
      isInInitialList,
    });
  };
  const handler: DeltaHandler<TestPod> = {
    onAdd: (obj, isInInitialList) => record('add', obj, isInInitialList),
    onUpdate: (_old, obj) => record('update', obj, false),
    onDelete: (obj) => record('delete', obj, false),
  };
  return { handler, history };
}

/** A controller over `source` with a RealFIFO, atomic or not, applying deltas to `store`. */
function startRecordingController(source: FakeControllerSource<TestPod>, atomic: boolean) {
  const store = new CacheIndexer<TestPod>(deletionHandlingMetaNamespaceKeyFunc);
  const fifo = atomic
    ? new RealFIFO<TestPod>()
    : new NonAtomicRealFIFO<TestPod>({ knownObjects: store });
  const recorder = newEventRecorder(store);
  const clock = new FakeClock();
  const controller = new InformerController<TestPod>({
    queue: fifo,
    listerWatcher: source,
    clock,
    process: (deltas, isInInitialList, key) =>
      processDeltas(recorder.handler, store, deltas, isInInitialList, key),
    processBatch: (deltas, isInInitialList, keys) =>
      processDeltaBatch(recorder.handler, store, deltas, isInInitialList, keys),
  });
  const signal = abortedAfterTest().signal;
  void controller.run(signal);
  return { store, fifo, recorder, controller, clock, signal };
}

/**
 * The start of client-go's `TestResetWatch` and `TestStoreResourceVersion`: a recording
 * controller over a source holding default/pod-1, synced, its first event the initial add.
 */
async function startedWithPod1(atomic: boolean) {
  const source = new FakeControllerSource<TestPod>();
  source.add(named('pod-1', 'default'));
  const started = startRecordingController(source, atomic);
  const { recorder, controller, signal } = started;
  expect(await waitForCacheSync(signal, () => controller.hasSynced())).toBe(true);
  await eventually(() => recorder.history.length === 1);
  expect(recorder.history[0]).toMatchObject({
    action: 'add',
    key: 'default/pod-1',
    isInInitialList: true,
  });
  return { source, ...started };
}

/**
 * The end of client-go's `Example` and `ExampleNewInformer`: a few objects added to the
 * source are each seen deleted by the controller that deletes everything it gets.
 */
async function expectAddedObjectsDeleted(
  source: FakeControllerSource<TestPod>,
  deletionCounter: string[],
): Promise<void> {
  const testIDs = ['a-hello', 'b-controller', 'c-framework'];
  for (const name of testIDs) source.add(named(name));
  await eventually(() => deletionCounter.length === testIDs.length);
  expect([...new Set(deletionCounter)].sort()).toEqual(testIDs);
}

describe('client-go controller_test.go', () => {
  it('Example', async () => {
    const source = new FakeControllerSource<TestPod>();
    // The downstream state, as the controller knows it.
    const downstream = new CacheIndexer<TestPod>(deletionHandlingMetaNamespaceKeyFunc);
    const fifo = new NonAtomicRealFIFO<TestPod>({
      keyFunction: metaNamespaceKeyFunc,
      knownObjects: downstream,
    });
    const deletionCounter: string[] = [];
    // A controller that deletes everything that comes in.
    const controller = new InformerController<TestPod>({
      queue: fifo,
      listerWatcher: source,
      fullResyncPeriodMs: 100,
      clock: new FakeClock(),
      process: (deltas) => {
        const newest = deltas.at(-1)!;
        if (newest.type === 'ReplacedAll' || newest.type === 'SyncAll') return;
        if (newest.type !== 'Deleted') {
          downstream.add(newest.object as TestPod);
          source.delete(newest.object as TestPod);
        } else {
          downstream.delete(newest.object);
          deletionCounter.push(fifo.keyOf(newest.object));
        }
      },
    });
    void controller.run(abortedAfterTest().signal);
    await expectAddedObjectsDeleted(source, deletionCounter);
  });

  it('ExampleNewInformer', async () => {
    const source = new FakeControllerSource<TestPod>();
    const deletionCounter: string[] = [];
    // A controller that deletes anything added to it, and records anything deleted.
    const { controller } = newInformer<TestPod>(
      source,
      {
        onAdd: (obj) => source.delete(obj),
        onDelete: (obj) => void deletionCounter.push(deletionHandlingMetaNamespaceKeyFunc(obj)),
      },
      100,
      { clock: new FakeClock() },
    );
    void controller.run(abortedAfterTest().signal);
    await expectAddedObjectsDeleted(source, deletionCounter);
  });

  it('TestUpdate', async () => {
    const source = new FakeControllerSource<TestPod>();
    const FROM = 'from';
    const TO = 'to';
    // The transitions allowed: a resync may show either state again.
    const allowedTransitions = new Set([`${FROM}->${TO}`, `${TO}->${TO}`, `${FROM}->${FROM}`]);
    const pod = (name: string, check: string, final: boolean): TestPod => ({
      metadata: { name, labels: final ? { check, final: 'true' } : { check } },
    });
    const tests = [
      (name: string) => {
        source.add(pod(`a-${name}`, FROM, false));
        source.modify(pod(`a-${name}`, TO, true));
      },
    ];
    const threads = 3;
    const transitions: string[] = [];
    let deleted = 0;
    // A controller that deletes things once it observes an update.
    const { controller } = newInformer<TestPod>(
      source,
      {
        onUpdate: (o, n) => {
          transitions.push(`${o.metadata.labels?.check}->${n.metadata.labels?.check}`);
          if (n.metadata.labels?.final === 'true') source.delete(n);
        },
        onDelete: () => void deleted++,
      },
      0,
      { clock: new FakeClock() },
    );
    void controller.run(abortedAfterTest().signal);
    await eventually(() => source.watching > 0);
    for (let i = 0; i < threads; i++) {
      for (const [j, f] of tests.entries()) f(`${i}-${j}`);
    }
    await eventually(() => deleted === threads * tests.length);
    for (const t of transitions) expect(allowedTransitions.has(t), t).toBe(true);
  });

  it('TestTransformingInformer', async () => {
    interface Pod {
      metadata: {
        name: string;
        namespace?: string;
        resourceVersion?: string;
        labels?: Record<string, string>;
      };
      spec: { hostname?: string; subdomain?: string; nodeName?: string };
    }
    const source = new FakeControllerSource<Pod>();
    const makePod = (name: string, generation: string): Pod => ({
      metadata: { name, namespace: 'namespace', labels: { generation } },
      spec: { hostname: 'hostname', subdomain: 'subdomain' },
    });
    const expectedPod = (name: string, generation: string): Pod => ({
      metadata: { name, namespace: 'namespace', labels: { generation } },
      spec: { hostname: 'new-hostname', subdomain: '', nodeName: 'nodename' },
    });
    source.add(makePod('pod1', '1'));
    source.modify(makePod('pod1', '2'));

    const events: [string, Pod | undefined, Pod | undefined][] = [];
    const podTransformer = (pod: Pod): Pod => {
      pod.spec.hostname = 'new-hostname';
      pod.spec.subdomain = '';
      pod.spec.nodeName = 'nodename';
      // Clear out ResourceVersion to simplify comparisons.
      delete pod.metadata.resourceVersion;
      return pod;
    };
    const { store, controller } = newInformer<Pod>(
      source,
      {
        onAdd: (obj) => void events.push(['ADDED', undefined, obj]),
        onUpdate: (oldObj, newObj) => void events.push(['MODIFIED', oldObj, newObj]),
        onDelete: (obj) => void events.push(['DELETED', obj as Pod, undefined]),
      },
      0,
      { transform: podTransformer, clock: new FakeClock() },
    );
    const verifyEvent = async (type: string, previous?: Pod, current?: Pod) => {
      await eventually(() => events.length > 0);
      expect(events.shift()).toEqual([type, previous, current]);
    };
    const verifyStore = (expectedItems: Pod[]) => {
      const items = store.list();
      expect(items).toHaveLength(expectedItems.length);
      for (const item of expectedItems) expect(items).toContainEqual(item);
    };

    void controller.run(abortedAfterTest().signal);
    await verifyEvent('ADDED', undefined, expectedPod('pod1', '2'));
    verifyStore([expectedPod('pod1', '2')]);

    source.add(makePod('pod2', '1'));
    await verifyEvent('ADDED', undefined, expectedPod('pod2', '1'));
    verifyStore([expectedPod('pod1', '2'), expectedPod('pod2', '1')]);

    source.add(makePod('pod3', '1'));
    await verifyEvent('ADDED', undefined, expectedPod('pod3', '1'));

    source.modify(makePod('pod2', '2'));
    await verifyEvent('MODIFIED', expectedPod('pod2', '1'), expectedPod('pod2', '2'));

    source.delete(makePod('pod1', '2'));
    await verifyEvent('DELETED', expectedPod('pod1', '2'), undefined);
    verifyStore([expectedPod('pod2', '2'), expectedPod('pod3', '1')]);
  });

  // Atomic and non-atomic replace behave the same for events and store state.
  describe.each([false, true])('TestReplaceEvents atomic: %s', (atomic) => {
    const at = (name: string, rv: string, labels?: Record<string, string>): TestPod => ({
      metadata: { name, namespace: 'default', resourceVersion: rv, ...(labels && { labels }) },
    });
    const event = (action: string, key: string, eventRV: string, storeRV: string) => ({
      action,
      key,
      eventRV,
      storeRV,
    });
    it.each([
      {
        name: 'Create with no initial objects',
        initialObjs: [],
        replacedItems: [at('pod-1', '1')],
        expectedHistory: [event('add', 'default/pod-1', '1', '1')],
        replaceRV: '1',
      },
      {
        name: 'Delete all objects',
        initialObjs: [at('pod-1', '1'), at('pod-3', '2')],
        replacedItems: [],
        expectedHistory: [
          event('delete', 'default/pod-1', '1', ''),
          event('delete', 'default/pod-3', '2', ''),
        ],
        replaceRV: '2',
      },
      {
        name: 'Create, update, delete',
        initialObjs: [at('pod-1', '1'), at('pod-2', '2', { ver: '1' }), at('pod-3', '3')],
        replacedItems: [at('pod-1', '4'), at('pod-2', '5', { ver: '2' }), at('pod-4', '6')],
        expectedHistory: [
          event('delete', 'default/pod-3', '3', ''),
          event('update', 'default/pod-1', '4', '4'),
          event('update', 'default/pod-2', '5', '5'),
          event('add', 'default/pod-4', '6', '6'),
        ],
        replaceRV: '6',
      },
    ])('$name', async (tc) => {
      const source = new FakeControllerSource<TestPod>();
      const { store, fifo, recorder, controller, signal } = startRecordingController(
        source,
        atomic,
      );
      expect(await waitForCacheSync(signal, () => controller.hasSynced())).toBe(true);
      for (const obj of tc.initialObjs) fifo.add(obj);
      await eventually(() => recorder.history.length === tc.initialObjs.length);
      recorder.history.length = 0;

      fifo.replace(tc.replacedItems, tc.replaceRV);
      await eventually(() => recorder.history.length === tc.expectedHistory.length);
      const items = store.list().sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
      expect(items).toEqual(tc.replacedItems);
      // Synthetic deletes from a replace are not ordered: sort them by key.
      const history = recorder.history.map(({ isInInitialList: _, ...r }) => r);
      const deletes = history
        .filter((r) => r.action === 'delete')
        .sort((a, b) => (a.key < b.key ? -1 : 1));
      expect([...deletes, ...history.filter((r) => r.action !== 'delete')]).toEqual(
        tc.expectedHistory,
      );
    });
  });

  it.each([false, true])('TestResetWatch atomic: %s', async (atomic) => {
    const { source, recorder, clock } = await startedWithPod1(atomic);

    recorder.history.length = 0;
    source.modifyDropWatch(named('pod-1', 'default'));
    source.addDropWatch(named('pod-2', 'default'));
    source.resetWatch();

    // The relist brings an update of the first pod and an add of the second.
    await eventually(() => {
      clock.step(1000); // past the reflector's backoff before the relist
      return recorder.history.length === 2;
    });
    const byAction = Object.fromEntries(recorder.history.map((r) => [r.action, r]));
    expect(byAction.update).toMatchObject({ key: 'default/pod-1', isInInitialList: false });
    expect(byAction.add).toMatchObject({ key: 'default/pod-2', isInInitialList: false });
  });

  describe('TestProcessDeltasInBatch', () => {
    const cm = (name: string): TestPod => ({ metadata: { name, namespace: 'testnamespace' } });
    const [cm1, cm2, cm3] = [cm('testname1'), cm('testname2'), cm('testname3')];
    const addedDelta = (obj: TestPod) => ({ type: 'Added' as const, object: obj });

    /** client-go's `mockTxnStore`: a store whose transactions fail for the given objects. */
    class MockTxnStore implements TransactionStore<TestPod> {
      succeedCount = 0;
      readonly #store = newStore<TestPod>(metaNamespaceKeyFunc);
      readonly #failingObjs: TestPod[];
      constructor(failingObjs: TestPod[]) {
        this.#failingObjs = failingObjs;
      }
      transaction(...txns: Transaction<TestPod>[]): TransactionError | undefined {
        const successfuls: number[] = [];
        const errs: Error[] = [];
        txns.forEach((txn, i) => {
          for (const fail of this.#failingObjs) {
            if (JSON.stringify(fail) === JSON.stringify(txn.object)) {
              errs.push(new Error('test error'));
            } else {
              successfuls.push(i);
            }
          }
        });
        if (errs.length > 0) {
          this.succeedCount = successfuls.length;
          return new TransactionError(successfuls, txns.length, errs);
        }
        this.succeedCount = txns.length;
        return undefined;
      }
      add = (obj: TestPod) => this.#store.add(obj);
      update = (obj: TestPod) => this.#store.update(obj);
      delete = (obj: TestPod | DeletedFinalStateUnknown<TestPod>) => this.#store.delete(obj);
      list = () => this.#store.list();
      listKeys = () => this.#store.listKeys();
      get = (obj: TestPod | DeletedFinalStateUnknown<TestPod>) => this.#store.get(obj);
      getByKey = (key: string) => this.#store.getByKey(key);
      replace = (list: TestPod[], rv: string) => this.#store.replace(list, rv);
      resync = () => this.#store.resync();
    }

    it.each([
      {
        name: 'all transaction succeeding should works',
        deltaList: [addedDelta(cm1)],
        failingObjects: [],
        expectedSuccessCount: 1,
        expectedListenerReceivedObjects: [cm1],
        expectedError: undefined,
      },
      {
        name: 'all transaction failing should not trigger listener',
        deltaList: [addedDelta(cm1)],
        failingObjects: [cm1],
        expectedSuccessCount: 0,
        expectedError: 'failed to execute (1/1) transactions',
        expectedListenerReceivedObjects: [],
      },
      {
        name: 'partial transaction failing should only trigger successful events to listener #1',
        deltaList: [addedDelta(cm1), addedDelta(cm2)],
        failingObjects: [cm2],
        expectedSuccessCount: 1,
        expectedError: 'failed to execute (1/2) transactions',
        expectedListenerReceivedObjects: [cm1],
      },
      {
        name: 'partial transaction failing should only trigger successful events to listener #2',
        deltaList: [addedDelta(cm1), addedDelta(cm2), addedDelta(cm3)],
        failingObjects: [cm2],
        expectedSuccessCount: 2,
        expectedError: 'failed to execute (1/3) transactions',
        expectedListenerReceivedObjects: [cm1, cm3],
      },
    ])('$name', (tc) => {
      const mockStore = new MockTxnStore(tc.failingObjects);
      const received: unknown[] = [];
      const dummyListener: DeltaHandler<TestPod> = {
        onAdd: (obj) => void received.push(obj),
        onUpdate: (_old, obj) => void received.push(obj),
        onDelete: (obj) => void received.push(obj),
      };
      const run = () =>
        processDeltaBatchInTransaction(dummyListener, mockStore, tc.deltaList, true);
      if (tc.expectedError === undefined) expect(run).not.toThrow();
      else expect(run).toThrow(tc.expectedError);
      expect(mockStore.succeedCount).toBe(tc.expectedSuccessCount);
      expect(received).toEqual(tc.expectedListenerReceivedObjects);
    });
  });

  it('TestStoreResourceVersion', async () => {
    const { source, store, recorder } = await startedWithPod1(true);

    recorder.history.length = 0;
    // Update the pod's labels: a new resourceVersion.
    source.modify({ metadata: { name: 'pod-1', namespace: 'default', labels: { foo: 'bar' } } });
    await eventually(() => recorder.history.length === 1);
    // The store is at the update's resourceVersion.
    expect(store.lastStoreSyncResourceVersion()).toBe(recorder.history[0]!.eventRV);

    recorder.history.length = 0;
    source.delete(named('pod-1', 'default'));
    await eventually(() => recorder.history.length === 1);
    // The store is at the delete's resourceVersion.
    expect(recorder.history[0]!.action).toBe('delete');
    expect(store.lastStoreSyncResourceVersion()).toBe(recorder.history[0]!.eventRV);
  });

  it('TestStoreResourceVersionWithNonMetaTransform', async () => {
    const source = new FakeControllerSource<TestPod>();
    source.add(named('pod-1', 'default'));
    // A key function that does not rely on object metadata, and a transform that drops it.
    const keyFunc = () => 'pod-1';
    const store = new CacheIndexer<unknown>(keyFunc);
    const fifo = new RealFIFO<unknown>({
      transformer: (obj) => (obj as TestPod).metadata.name,
      keyFunction: keyFunc,
    });
    const history: { action: string; key: string; isInInitialList: boolean }[] = [];
    const handler: DeltaHandler<unknown> = {
      onAdd: (_obj, isInInitialList) =>
        void history.push({ action: 'add', key: keyFunc(), isInInitialList }),
      onUpdate: () =>
        void history.push({ action: 'update', key: keyFunc(), isInInitialList: false }),
      onDelete: () =>
        void history.push({ action: 'delete', key: keyFunc(), isInInitialList: false }),
    };
    const clock = new FakeClock();
    const controller = new InformerController<unknown>({
      queue: fifo,
      listerWatcher: source as ListerWatcher<unknown>,
      clock,
      process: (deltas, isInInitialList, key) =>
        processDeltas(handler, store, deltas, isInInitialList, key),
      processBatch: (deltas, isInInitialList, keys) =>
        processDeltaBatch(handler, store, deltas, isInInitialList, keys),
    });
    const signal = abortedAfterTest().signal;
    void controller.run(signal);
    expect(await waitForCacheSync(signal, () => controller.hasSynced())).toBe(true);
    // The first event is the initial add.
    await eventually(() => history.length === 1);
    expect(history).toEqual([{ action: 'add', key: 'pod-1', isInInitialList: true }]);

    // The store stays at the resourceVersion of the list: the update has no metadata.
    const replaceRV = store.lastStoreSyncResourceVersion();
    history.length = 0;
    source.modify({ metadata: { name: 'pod-1', namespace: 'default', labels: { foo: 'bar' } } });
    await eventually(() => history.length === 1);
    expect(store.lastStoreSyncResourceVersion()).toBe(replaceRV);

    history.length = 0;
    // Modify the pod without telling the watch, then relist.
    source.modifyDropWatch({
      metadata: { name: 'pod-1', namespace: 'default', labels: { foo: 'bar2' } },
    });
    source.resetWatch();
    await eventually(() => {
      clock.step(1000); // past the reflector's backoff before the relist
      return history.length === 1;
    });
    // The store is at the relist's resourceVersion.
    expect(store.lastStoreSyncResourceVersion()).toBe('3');
  });
});
