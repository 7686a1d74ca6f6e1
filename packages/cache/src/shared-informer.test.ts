import { eventually } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import type { TestPod } from '../test/helpers.js';
import {
  expiredStatus,
  FakeListerWatcher,
  listOf,
  pod,
  runFakes,
  statusError,
} from '../test/helpers.js';
import type { ResourceEventHandler } from './handler.js';
import { deletedObject, filteringResourceEventHandler } from './handler.js';
import { type DeletedFinalStateUnknown, isDeletedFinalStateUnknown } from './keys.js';
import { newSharedIndexInformer } from './shared-informer.js';
import type { SharedIndexInformerOptions } from './shared-informer-options.js';
import { metaNamespaceIndexFunc, namespaceIndex } from './thread-safe-store.js';

function describeDelete(obj: TestPod | DeletedFinalStateUnknown<TestPod>): string {
  if (isDeletedFinalStateUnknown<TestPod>(obj)) {
    return `delete tombstone ${obj.key} (last rv ${obj.obj?.metadata.resourceVersion})`;
  }
  return `delete ${obj.metadata.name}`;
}

/** A handler recording what it sees as strings. */
function recorder(): { log: string[]; handler: ResourceEventHandler<TestPod> } {
  const log: string[] = [];
  return {
    log,
    handler: {
      onAdd: (obj, initial) =>
        void log.push(
          `add ${obj.metadata.name}@${obj.metadata.resourceVersion}${initial ? ' (initial)' : ''}`,
        ),
      onUpdate: (oldObj, newObj) =>
        void log.push(
          `update ${newObj.metadata.name} ${oldObj.metadata.resourceVersion}->${newObj.metadata.resourceVersion}`,
        ),
      onDelete: (obj) => void log.push(describeDelete(obj)),
    },
  };
}

/** Waits until the handler has seen as many events as expected, then compares them in order. */
async function expectLog(r: { log: string[] }, expected: string[]): Promise<void> {
  await eventually(() => r.log.length === expected.length);
  expect(r.log).toEqual(expected);
}

function setup(options: SharedIndexInformerOptions<TestPod> = {}) {
  const { lw, clock, errors: handlerErrors, ac, timing } = runFakes();
  const informer = newSharedIndexInformer(lw, 'pods', {
    ...timing,
    onHandlerError: (err) => handlerErrors.push(err),
    ...options,
  });
  let done: Promise<void> | undefined;
  const start = (): Promise<void> => {
    done = informer.run(ac.signal);
    return done;
  };
  return { lw, clock, informer, ac, start, handlerErrors, done: () => done };
}

describe('SharedIndexInformer', () => {
  it('updates the indexer, then notifies adds, updates and deletes in order', async () => {
    const { lw, informer, start } = setup({
      indexers: { [namespaceIndex]: metaNamespaceIndexFunc },
    });
    const r = recorder();
    const seenInStore: boolean[] = [];
    informer.addEventHandler(r.handler);
    informer.addEventHandler({
      onAdd: (obj) => void seenInStore.push(informer.getStore().get(obj) === obj),
    });
    lw.listFn = () => listOf([pod('a', '1'), pod('b', '1')], '1');
    void start();
    const w = await lw.watchNumber(1);
    await eventually(() => informer.hasSynced());
    w.push({ type: 'MODIFIED', object: pod('a', '2') });
    w.push({ type: 'DELETED', object: pod('b', '3') });
    w.push({ type: 'ADDED', object: pod('c', '4', 'other') });
    await expectLog(r, [
      'add a@1 (initial)',
      'add b@1 (initial)',
      'update a 1->2',
      'delete b',
      'add c@4',
    ]);
    expect(seenInStore).toEqual([true, true, true]);
    expect(informer.getIndexer().byIndex(namespaceIndex, 'other')).toHaveLength(1);
    expect(informer.getStore().listKeys().sort()).toEqual(['default/a', 'other/c']);
    expect(informer.lastSyncResourceVersion()).toBe('4');
  });

  it('hands watch bookmarks to its store in order with the changes (EmitDeltaTypeBookmark)', async () => {
    const { lw, informer, start } = setup();
    const r = recorder();
    informer.addEventHandler(r.handler);
    const storeRV = () => informer.getStore().lastStoreSyncResourceVersion?.();
    lw.listFn = () => listOf([pod('a', '1')], '3');
    void start();
    const w = await lw.watchNumber(1);
    await eventually(() => informer.hasSynced());
    expect(storeRV(), 'at the list').toBe('3');
    w.push({ type: 'MODIFIED', object: pod('a', '4') });
    w.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '7' } } as TestPod });
    await eventually(() => storeRV() === '7', { what: 'store at the first bookmark' });
    w.push({ type: 'ADDED', object: pod('b', '8') });
    await eventually(() => informer.getStore().getByKey('default/b') !== undefined);
    expect(storeRV(), 'at the add after the bookmark').toBe('8');
    w.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } as TestPod });
    await eventually(() => storeRV() === '9', { what: 'store at the second bookmark' });
    // A bookmark notifies nobody.
    await expectLog(r, ['add a@1 (initial)', 'update a 1->4', 'add b@8']);
    expect(informer.lastSyncResourceVersion()).toBe('9');
  });

  it('delivers a tombstone for an object missing from a relist, and skips unchanged objects', async () => {
    const { lw, clock, informer, start } = setup();
    const r = recorder();
    informer.addEventHandler(r.handler);
    let n = 0;
    lw.listFn = () =>
      ++n === 1
        ? listOf([pod('a', '1'), pod('b', '1'), pod('c', '1')], '1')
        : listOf([pod('a', '1'), pod('c', '7')], '9');
    void start();
    const w = await lw.watchNumber(1);
    w.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '5' } } });
    w.push({ type: 'ERROR', object: expiredStatus() });
    // The relist waits for the reflector's backoff.
    await eventually(() => clock.pending === 1);
    clock.stepToNext();
    await lw.watchNumber(2);
    await expectLog(r, [
      'add a@1 (initial)',
      'add b@1 (initial)',
      'add c@1 (initial)',
      // A relist is applied at once, deletions notified first (client-go 1.36 `AtomicFIFO`).
      'delete tombstone default/b (last rv 1)',
      'update c 1->7',
    ]);
    expect(informer.getStore().listKeys().sort()).toEqual(['default/a', 'default/c']);
  });

  it('keeps the cached object for each relisted item whose resourceVersion did not change', async () => {
    const { lw, clock, informer, start } = setup();
    const transformed: string[] = [];
    informer.setTransform((obj) => {
      transformed.push(`${obj.metadata.name}@${obj.metadata.resourceVersion}`);
      return obj;
    });
    let n = 0;
    lw.listFn = () =>
      ++n === 1
        ? listOf([pod('a', '1'), pod('b', '1')], '1')
        : listOf([pod('a', '1'), pod('b', '7')], '9');
    void start();
    const w = await lw.watchNumber(1);
    await eventually(() => informer.hasSynced());
    const store = informer.getStore();
    const cachedA = store.getByKey('default/a');
    const cachedB = store.getByKey('default/b');
    w.push({ type: 'ERROR', object: expiredStatus() });
    // A 410 right after the list: the relist waits out a backoff.
    await eventually(() => clock.pending === 1);
    clock.stepToNext();
    await lw.watchNumber(2);
    await eventually(() => store.getByKey('default/b')?.metadata.resourceVersion === '7');
    expect(store.getByKey('default/a')).toBe(cachedA);
    expect(store.getByKey('default/b')).not.toBe(cachedB);
    // The kept object was transformed when it was first cached, not again.
    expect(transformed).toEqual(['a@1', 'b@1', 'b@7']);
  });

  it('replays the cache to a handler added after start; its registration syncs once processed', async () => {
    const { lw, informer, start } = setup();
    lw.listFn = () => listOf([pod('a'), pod('b')], '1');
    void start();
    const w = await lw.watchNumber(1);
    await eventually(() => informer.hasSynced());
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const late: string[] = [];
    const reg = informer.addEventHandler({
      onAdd: async (obj, initial) => {
        await gate;
        late.push(`${obj.metadata.name} ${initial}`);
      },
      onUpdate: (_o, n) => void late.push(`update ${n.metadata.name}`),
    });
    expect(reg.hasSynced()).toBe(false);
    w.push({ type: 'MODIFIED', object: pod('a', '2') });
    release();
    await eventually(() => late.length === 3);
    expect(late).toEqual(['a true', 'b true', 'update a']);
    expect(reg.hasSynced()).toBe(true);
  });

  it('registration hasSynced waits for the handler to process the initial list', async () => {
    const { lw, informer, start } = setup();
    lw.listFn = () => listOf([pod('a'), pod('b')], '1');
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slowReg = informer.addEventHandler({ onAdd: () => gate });
    const fastReg = informer.addEventHandler({});
    expect(slowReg.hasSynced()).toBe(false);
    void start();
    await eventually(() => informer.hasSynced());
    await eventually(() => fastReg.hasSynced());
    expect(slowReg.hasSynced()).toBe(false);
    release();
    await eventually(() => slowReg.hasSynced());
  });

  it('stops notifying a removed handler', async () => {
    const { lw, informer, start } = setup();
    const r = recorder();
    const other = recorder();
    const reg = informer.addEventHandler(r.handler);
    informer.addEventHandler(other.handler);
    void start();
    const w = await lw.watchNumber(1);
    w.push({ type: 'ADDED', object: pod('a', '2') });
    await eventually(() => r.log.length === 1);
    informer.removeEventHandler(reg);
    informer.removeEventHandler(reg); // harmless twice
    w.push({ type: 'ADDED', object: pod('b', '3') });
    await eventually(() => other.log.length === 2);
    expect(r.log).toEqual(['add a@2']);
  });

  it('a slow handler does not delay another handler or the informer', async () => {
    const { lw, informer, start } = setup();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: string[] = [];
    informer.addEventHandler({
      onAdd: async (obj) => {
        await gate; // blocked "for seconds"
        slow.push(obj.metadata.name);
      },
    });
    const fast = recorder();
    informer.addEventHandler(fast.handler);
    lw.listFn = () => listOf([pod('a')], '1');
    void start();
    const w = await lw.watchNumber(1);
    for (let i = 0; i < 1000; i++) w.push({ type: 'ADDED', object: pod(`p${i}`, `${i + 2}`) });
    await eventually(() => fast.log.length === 1001);
    expect(informer.hasSynced()).toBe(true);
    expect(informer.getStore().listKeys()).toHaveLength(1001);
    expect(slow).toEqual([]);
    release();
    await eventually(() => slow.length === 1001);
    expect(slow.slice(0, 3)).toEqual(['a', 'p0', 'p1']);
  });

  it('hands a handler one notification at a time: the next only once its promise settled', async () => {
    const { lw, informer, start } = setup();
    const log: string[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    informer.addEventHandler({
      onAdd: async (obj) => {
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        log.push(`start ${obj.metadata.name}`);
        // Several turns of the microtask queue, so an overlapping call would show.
        for (let i = 0; i < 5; i++) await Promise.resolve();
        log.push(`end ${obj.metadata.name}`);
        inFlight--;
      },
    });
    void start();
    const w = await lw.watchNumber(1);
    for (const name of ['a', 'b', 'c']) w.push({ type: 'ADDED', object: pod(name, '2') });
    await eventually(() => log.length === 6);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(mostInFlight).toBe(1);
  });

  it('reports throwing and rejecting handlers and keeps going', async () => {
    const { lw, informer, start, handlerErrors } = setup();
    const seen: string[] = [];
    informer.addEventHandler({
      onAdd: (obj) => {
        seen.push(obj.metadata.name);
        if (obj.metadata.name === 'bad') throw new Error('sync boom');
      },
      onUpdate: async (_old, obj) => {
        seen.push(`u ${obj.metadata.name}`);
        throw new Error('async boom');
      },
    });
    void start();
    const w = await lw.watchNumber(1);
    w.push({ type: 'ADDED', object: pod('bad', '2') });
    w.push({ type: 'MODIFIED', object: pod('bad', '3') });
    w.push({ type: 'ADDED', object: pod('good', '4') });
    await eventually(() => seen.length === 3);
    expect(seen).toEqual(['bad', 'u bad', 'good']);
    expect(handlerErrors.map((e) => (e as Error).message)).toEqual(['sync boom', 'async boom']);
    expect(informer.isStopped()).toBe(false);
  });

  it('resyncs per handler: Sync updates go only to handlers due', async () => {
    const { lw, clock, informer, start } = setup({ resyncPeriodMs: 10_000 });
    const fast = recorder();
    const never = recorder();
    const byDefault = recorder();
    informer.addEventHandler(fast.handler, { resyncPeriodMs: 2000 });
    informer.addEventHandler(never.handler, { resyncPeriodMs: 0 });
    informer.addEventHandler(byDefault.handler);
    lw.listFn = () => listOf([pod('a', '1')], '1');
    void start();
    await lw.watchNumber(1);
    await eventually(() => informer.hasSynced() && clock.pending === 1);
    expect(clock.nextDue()).toBe(2000); // the check period is the shortest handler period
    for (let t = 2000; t <= 10_000; t += 2000) {
      clock.step(2000);
      await eventually(() => fast.log.length === 1 + t / 2000, {
        timeoutMs: 2000,
        what: `resync at ${t}`,
      });
      await eventually(() => clock.pending === 1);
    }
    await eventually(() => byDefault.log.length === 2);
    expect(fast.log.slice(1)).toEqual(Array(5).fill('update a 1->1'));
    expect(byDefault.log).toEqual(['add a@1 (initial)', 'update a 1->1']);
    expect(never.log).toEqual(['add a@1 (initial)']);
  });

  it('raises resync periods under 1 s to 1 s', async () => {
    const { lw, clock, informer, start } = setup({ resyncPeriodMs: 5000 });
    const tiny = recorder();
    informer.addEventHandler(tiny.handler, { resyncPeriodMs: 10 });
    lw.listFn = () => listOf([pod('a', '1')], '1');
    void start();
    await lw.watchNumber(1);
    await eventually(() => clock.pending === 1);
    expect(clock.nextDue()).toBe(1000);
    const late = recorder();
    // Added after start: its first resync is due 1.5 s after it was added.
    informer.addEventHandler(late.handler, { resyncPeriodMs: 1500 });
    clock.step(1000);
    await eventually(() => tiny.log.length === 2);
    expect(late.log).toEqual(['add a@1 (initial)']);
  });

  it('shares managedFields trees of listed items as they are decoded, unless a transform comes first', async () => {
    const withTree = (name: string) => {
      const p = pod(name, '1');
      p.metadata.managedFields = [
        { manager: 'kubectl', fieldsV1: { 'f:metadata': { 'f:labels': {} } } } as {
          manager: string;
        },
      ];
      return p;
    };
    const treeOf = (p: TestPod) =>
      (p.metadata.managedFields?.[0] as { fieldsV1?: unknown } | undefined)?.fieldsV1;

    const sharing = setup();
    sharing.lw.listFn = () => listOf([], '1');
    void sharing.start();
    await sharing.lw.watchNumber(1);
    const prepare = sharing.lw.lastListHints?.prepareItem;
    expect(prepare).toBeTypeOf('function');
    const [a, b] = [withTree('a'), withTree('b')];
    expect(treeOf(a)).not.toBe(treeOf(b));
    prepare!(a);
    prepare!(b);
    expect(treeOf(b)).toBe(treeOf(a));
    expect(Object.isFrozen(treeOf(a))).toBe(true);

    const transformed = setup();
    transformed.informer.setTransform((p) => p);
    void transformed.start();
    await transformed.lw.watchNumber(1);
    expect(transformed.lw.lastListHints?.prepareItem).toBeUndefined();

    const notSharing = setup({ shareManagedFields: false });
    void notSharing.start();
    await notSharing.lw.watchNumber(1);
    expect(notSharing.lw.lastListHints?.prepareItem).toBeUndefined();
  });

  it('applies the transform before caching; setTransform only before start', async () => {
    const { lw, informer, start } = setup();
    informer.setTransform((p) => {
      p.metadata.managedFields = undefined;
      return p;
    });
    const withFields = (name: string, rv: string) => {
      const p = pod(name, rv);
      p.metadata.managedFields = [{ manager: 'kubectl' }];
      return p;
    };
    const seen: (TestPod | undefined)[] = [];
    informer.addEventHandler({
      onAdd: (p) => void seen.push(p),
      onUpdate: (_o, p) => void seen.push(p),
      onDelete: (p) => void seen.push(deletedObject(p)),
    });
    lw.listFn = () => listOf([withFields('a', '1')], '1');
    void start();
    const w = await lw.watchNumber(1);
    w.push({ type: 'MODIFIED', object: withFields('a', '2') });
    w.push({ type: 'DELETED', object: withFields('a', '3') });
    await eventually(() => seen.length === 3);
    expect(seen.every((p) => p?.metadata.managedFields === undefined)).toBe(true);
    expect(() => informer.setTransform((p) => p)).toThrow(/already started/);
    expect(() => informer.setWatchErrorHandler(() => {})).toThrow(/already started/);
  });

  it('calls the watch error handler, and stops cleanly on abort', async () => {
    const { lw, clock, informer, ac, start, done } = setup();
    const errors: unknown[] = [];
    informer.setWatchErrorHandler((err) => errors.push(err));
    lw.watchErrors.push(statusError(500, 'InternalError'));
    void start();
    await eventually(() => errors.length === 1 && clock.pending === 1);
    await expect(informer.run(ac.signal)).rejects.toThrow(/already been started/);
    ac.abort();
    await done();
    expect(informer.isStopped()).toBe(true);
    expect(clock.pending).toBe(0);
    expect(() => informer.addEventHandler({})).toThrow(/stopped/);
  });

  it('addIndexers works on a filled cache', async () => {
    const { lw, informer, start } = setup();
    lw.listFn = () => listOf([pod('a', '1', 'x', 'n1'), pod('b', '1', 'y', 'n1')], '1');
    void start();
    await eventually(() => informer.hasSynced());
    informer.addIndexers({ node: (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []) });
    expect(informer.getIndexer().indexKeys('node', 'n1').sort()).toEqual(['x/a', 'y/b']);
  });

  it('uses the example type for its name and is not synced before running', () => {
    const informer = newSharedIndexInformer(new FakeListerWatcher<TestPod>(), {
      apiVersion: 'v1',
      kind: 'Pod',
    });
    expect(informer.hasSynced()).toBe(false);
    expect(informer.lastSyncResourceVersion()).toBe('');
    expect(informer.isStopped()).toBe(false);
  });
});

describe('filteringResourceEventHandler', () => {
  it('turns updates into and out of the filter into adds and deletes', () => {
    const r = recorder();
    const h = filteringResourceEventHandler<TestPod>(
      (p) => deletedObject(p)?.metadata.namespace === 'keep',
      r.handler,
    );
    h.onAdd?.(pod('a', '1', 'keep'), true);
    h.onAdd?.(pod('b', '1', 'drop'), false);
    h.onUpdate?.(pod('a', '1', 'keep'), pod('a', '2', 'keep'));
    h.onUpdate?.(pod('c', '1', 'drop'), pod('c', '2', 'keep'));
    h.onUpdate?.(pod('a', '2', 'keep'), pod('a', '3', 'drop'));
    h.onUpdate?.(pod('d', '2', 'drop'), pod('d', '3', 'drop'));
    h.onDelete?.(pod('e', '1', 'keep'));
    h.onDelete?.(pod('f', '1', 'drop'));
    expect(r.log).toEqual([
      'add a@1 (initial)',
      'update a 1->2',
      'add c@2',
      'delete a',
      'delete e',
    ]);
  });
});
