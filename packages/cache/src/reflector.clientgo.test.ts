// client-go's tools/cache/reflector_test.go, ported case by case: each test keeps the Go
// test's name, inputs and expectations. Cases that cannot apply are listed in the README
// ("client-go tests not ported").

import type { ListQueryOptions } from '@kubets/apimachinery';
import {
  ExponentialBackoffManager,
  type ObjectList,
  type Status,
  StatusError,
  type WatchEvent,
} from '@kubets/apimachinery';
import { FakeClock } from '@kubets/apimachinery/testing';
import { TransportError } from '@kubets/rest';
import { eventually } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import type { TestPod } from '../test/helpers.js';
import {
  abortedAfterTest,
  added,
  deleted,
  expiredError,
  FakeListerWatcher,
  listOf,
  modified,
  statusError,
  stepThrough,
} from '../test/helpers.js';
import { DeltaFIFO, NonAtomicRealFIFO } from './compat.js';
import type { Delta } from './delta.js';
import { metaNamespaceKeyFunc } from './keys.js';
import { Reflector } from './reflector.js';
import type { BackoffManager, ReflectorOptions, ReflectorStore } from './reflector-options.js';
import { type CacheIndexer, newStore, type Store } from './store.js';

/** A pod in namespace `ns`, as the Go tests make them (`mkPod`). */
function mkPod(name: string, rv = '', namespace = 'ns'): TestPod {
  return { metadata: { name, namespace, resourceVersion: rv } };
}

/** `count` pods `pod-0`… with resourceVersion = index (the Go tests' `pods[i]`). */
function numberedPods(count: number): TestPod[] {
  return Array.from({ length: count }, (_, i) => mkPod(`pod-${i}`, String(i)));
}

/** name → resourceVersion of a store's content. */
function contentOf(store: Store<TestPod>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of store.list()) out[p.metadata.name] = p.metadata.resourceVersion ?? '';
  return out;
}

/** A Status as the API server sends it in an ERROR event or an error response. */
function status(
  code: number,
  reason: string,
  message: string,
  extra: Partial<Status> = {},
): Status {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message, ...extra };
}

/** An ERROR watch event carrying `object` (a Status, or anything a broken server sends). */
function errorEvent(object: unknown): WatchEvent<TestPod> {
  return { type: 'ERROR', object } as WatchEvent<TestPod>;
}

/** Node's "connection refused", as the transport reports it (the code on a cause). */
function connectionRefused(): Error {
  const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), {
    code: 'ECONNREFUSED',
  });
  return new TransportError(
    'request failed',
    { method: 'GET', url: 'https://127.0.0.1:6443/api/v1/pods' },
    { cause },
  );
}

/** client-go's `fakeDelayFunc`: counts backoff delays and waits none. */
function countingBackoff(): BackoffManager & { calls: number } {
  return {
    calls: 0,
    next() {
      this.calls++;
      return 0;
    },
  };
}

/** A new reflector on a fake clock; options as the Go test sets them. */
function reflector(
  lw: FakeListerWatcher<TestPod>,
  store: ReflectorStore<TestPod>,
  options: ReflectorOptions = {},
) {
  const clock = new FakeClock();
  const errors: unknown[] = [];
  lw.watchListSemanticsUnsupported = options.useStreamingList !== true;
  const r = new Reflector(lw, store, {
    clock,
    random: () => 0.5,
    watchErrorHandler: (err) => errors.push(err),
    ...options,
  });
  return { r, clock, errors };
}

/** A store that keeps nothing and calls `resync` on resync (client-go `FakeCustomStore`). */
function nullStore(resync: () => void): ReflectorStore<TestPod> {
  const ignore = (): void => undefined;
  return { add: ignore, update: ignore, delete: ignore, replace: ignore, resync };
}

/** A signal aborted as soon as the next watch opens: ListAndWatch ends after its list. */
function stopAtWatch(lw: FakeListerWatcher<TestPod>): AbortSignal {
  const ac = abortedAfterTest();
  lw.onWatch = () => ac.abort(new Error('done'));
  return ac.signal;
}

/** Lists answered in order from a table; each call records its options. */
function listsFrom(lw: FakeListerWatcher<TestPod>, answers: (ObjectList<TestPod> | Error)[]) {
  lw.listFn = () => {
    const next = answers.shift();
    if (next === undefined) throw new Error('unexpected list call');
    if (next instanceof Error) throw next;
    return next;
  };
}

/** client-go's `storeWithRV`: a store recording every resourceVersion update it is given. */
function storeWithRV() {
  const resourceVersions: string[] = [];
  const s: ReflectorStore<TestPod> = Object.assign(newStore<TestPod>(metaNamespaceKeyFunc), {
    updateResourceVersion: (rv: string) => void resourceVersions.push(rv),
  });
  return { s, resourceVersions };
}

describe('client-go reflector_test.go', () => {
  it('TestCloseWatchChannelOnError', async () => {
    const lw = new FakeListerWatcher<TestPod>();
    const { r } = reflector(lw, newStore(metaNamespaceKeyFunc));
    lw.onWatch = (w) => w.push(errorEvent(mkPod('bar')));
    await r.listAndWatch(abortedAfterTest().signal);
    expect(lw.watches).toHaveLength(1);
    expect(lw.watches[0]!.stopped).toBe(true);
  });

  it('TestRunUntil', async () => {
    const lw = new FakeListerWatcher<TestPod>();
    const store = newStore<TestPod>(metaNamespaceKeyFunc);
    const { r } = reflector(lw, store);
    const ac = abortedAfterTest();
    const done = r.run(ac.signal);
    const w = await lw.watchNumber(1);
    w.push(added(mkPod('bar')));
    await eventually(() => store.list().length === 1);
    ac.abort(new Error('done'));
    await done;
    expect(w.stopped).toBe(true);
  });

  it('TestReflectorResyncChan', async () => {
    const lw = new FakeListerWatcher<TestPod>();
    let resyncs = 0;
    const { r, clock } = reflector(
      lw,
      nullStore(() => void resyncs++),
      { resyncPeriodMs: 1 },
    );
    void r.run(abortedAfterTest().signal);
    await lw.watchNumber(1);
    await eventually(() => clock.pending === 1);
    clock.step(1);
    await eventually(() => resyncs === 1);
  });

  // Stopping: before anything ran, or while watching; the watch is always stopped.
  describe.each([
    { name: 'TestReflectorWatchStoppedBefore', stopBefore: true },
    { name: 'TestReflectorHandleWatchStoppedBefore', stopBefore: true },
    { name: 'TestReflectorStopWatch', stopBefore: true },
    { name: 'TestReflectorWatchStoppedAfter', stopBefore: false },
    { name: 'TestReflectorHandleWatchStoppedAfter', stopBefore: false },
  ])('$name', ({ stopBefore }) => {
    it('returns without error and leaves no watch open', async () => {
      const lw = new FakeListerWatcher<TestPod>();
      const { r } = reflector(lw, newStore(metaNamespaceKeyFunc));
      const ac = abortedAfterTest();
      if (stopBefore) ac.abort(new Error("don't run"));
      else lw.onWatch = () => ac.abort(new Error('stopped after watching started'));
      await r.listAndWatch(ac.signal);
      expect(lw.listCalls).toHaveLength(stopBefore ? 0 : 1);
      expect(lw.watches).toHaveLength(stopBefore ? 0 : 1);
      expect(lw.watches.every((w) => w.stopped)).toBe(true);
    });
  });

  // A watch closed by the server with no events, at once: a VeryShortWatchError ends
  // ListAndWatch (the caller relists after a backoff).
  describe.each([
    { name: 'TestReflectorHandleWatchResultChanClosedBefore', closeInOnWatch: true },
    { name: 'TestReflectorHandleWatchResultChanClosedAfter', closeInOnWatch: false },
  ])('$name', ({ closeInOnWatch }) => {
    it('ends the watch with a VeryShortWatchError', async () => {
      const lw = new FakeListerWatcher<TestPod>();
      const { r, errors } = reflector(lw, newStore(metaNamespaceKeyFunc));
      if (closeInOnWatch) lw.onWatch = (w) => w.close();
      const done = r.listAndWatch(abortedAfterTest().signal);
      if (!closeInOnWatch) (await lw.watchNumber(1)).close();
      await done;
      expect(lw.watches).toHaveLength(1);
      expect(lw.watches[0]!.stopped).toBe(true);
      expect(errors).toHaveLength(1);
      expect((errors[0] as Error).name).toBe('VeryShortWatchError');
    });
  });

  it('TestReflectorWatchHandler', async () => {
    const lw = new FakeListerWatcher<TestPod>();
    const store = newStore<TestPod>(metaNamespaceKeyFunc);
    const ac = abortedAfterTest();
    // Stops once the event at resourceVersion 32 is applied.
    const stopping: ReflectorStore<TestPod> = {
      add: (p) => {
        store.add(p);
        if (p.metadata.resourceVersion === '32')
          ac.abort(new Error('LastSyncResourceVersion is 32'));
      },
      update: (p) => store.update(p),
      delete: (p) => store.delete(p),
      replace: (list, rv) => store.replace(list, rv),
      resync: () => undefined,
    };
    const { r } = reflector(lw, stopping);
    lw.listFn = () => listOf([mkPod('foo'), mkPod('bar')], '1');
    lw.onWatch = (w) =>
      w.push(deleted(mkPod('foo')), modified(mkPod('bar', '55')), added(mkPod('baz', '32')));
    await r.listAndWatch(ac.signal);
    const table = [
      { pod: mkPod('foo', ''), exists: false },
      { pod: mkPod('bar', '55'), exists: true },
      { pod: mkPod('baz', '32'), exists: true },
    ];
    for (const item of table) {
      const got = store.get(item.pod);
      expect(got !== undefined, item.pod.metadata.name).toBe(item.exists);
      if (got) expect(got.metadata.resourceVersion).toBe(item.pod.metadata.resourceVersion);
    }
    expect(r.lastSyncResourceVersion()).toBe('32');
  });

  describe('TestReflectorListAndWatch', () => {
    const table = [
      {
        name: 'UseWatchList enabled',
        useWatchList: true,
        listResults: [] as ObjectList<TestPod>[],
        watchEvents: [
          added(mkPod('foo', '1')),
          {
            type: 'BOOKMARK',
            object: {
              metadata: {
                name: 'foo',
                resourceVersion: '1',
                annotations: { 'k8s.io/initial-events-end': 'true' },
              },
            },
          },
          modified(mkPod('foo', '2')),
          added(mkPod('bar', '3')),
          added(mkPod('baz', '4')),
          added(mkPod('qux', '5')),
          added(mkPod('zoo', '6')),
        ] as WatchEvent<TestPod>[],
        expectedListOptions: [] as ListQueryOptions[],
        expectedWatchOptions: [
          {
            allowWatchBookmarks: true,
            resourceVersion: '',
            resourceVersionMatch: 'NotOlderThan',
            sendInitialEvents: true,
          },
        ],
      },
      {
        name: 'UseWatchList disabled',
        useWatchList: false,
        listResults: [listOf([mkPod('foo', '1')], '1')],
        watchEvents: [
          modified(mkPod('foo', '2')),
          added(mkPod('bar', '3')),
          added(mkPod('baz', '4')),
          added(mkPod('qux', '5')),
          added(mkPod('zoo', '6')),
        ],
        expectedListOptions: [{ resourceVersion: '0', limit: 500 }],
        expectedWatchOptions: [{ allowWatchBookmarks: true, resourceVersion: '1' }],
      },
    ];
    // Pod "foo" at rv 1 is superseded by rv 2.
    const expectedStore = [
      ['foo', '2'],
      ['bar', '3'],
      ['baz', '4'],
      ['qux', '5'],
      ['zoo', '6'],
    ];
    it.each(table)('$name', async (tc) => {
      const lw = new FakeListerWatcher<TestPod>();
      listsFrom(lw, [...tc.listResults]);
      lw.onWatch = (w) => w.push(...tc.watchEvents);
      const fifo = new DeltaFIFO<TestPod>({ keyFunction: metaNamespaceKeyFunc });
      const { r } = reflector(lw, fifo, { useStreamingList: tc.useWatchList });
      void r.run(abortedAfterTest().signal);
      // Every event sent (the Go fake watcher hands them over one by one) before popping.
      await eventually(() => r.lastSyncResourceVersion() === '6');
      const popped: string[][] = [];
      for (let i = 0; i < expectedStore.length; i++) {
        const deltas = await fifo.pop(() => undefined);
        const newest = deltas.at(-1)!.object as TestPod;
        popped.push([newest.metadata.name, newest.metadata.resourceVersion ?? '']);
      }
      expect(popped).toEqual(expectedStore);
      const withoutTimeout = ({ timeoutSeconds: _, ...rest }: { timeoutSeconds?: number }) => rest;
      expect(lw.listCalls).toEqual(tc.expectedListOptions);
      expect(lw.watchCalls.map(withoutTimeout)).toEqual(tc.expectedWatchOptions);
    });
  });

  it('TestReflectorListAndWatchWithErrors', async () => {
    const mkList = (rv: string, ...pods: TestPod[]) => listOf(pods, rv);
    const table: {
      list?: ObjectList<TestPod>;
      listErr?: Error;
      events?: WatchEvent<TestPod>[];
      watchErr?: Error;
    }[] = [
      { list: mkList('1'), events: [added(mkPod('foo', '2')), added(mkPod('bar', '3'))] },
      {
        list: mkList('3', mkPod('foo', '2'), mkPod('bar', '3')),
        events: [deleted(mkPod('foo', '4')), added(mkPod('qux', '5'))],
      },
      { listErr: new Error('a list error') },
      {
        list: mkList('5', mkPod('bar', '3'), mkPod('qux', '5')),
        watchErr: new Error('a watch error'),
      },
      {
        list: mkList('5', mkPod('bar', '3'), mkPod('qux', '5')),
        events: [added(mkPod('baz', '6'))],
      },
      { list: mkList('6', mkPod('bar', '3'), mkPod('qux', '5'), mkPod('baz', '6')) },
    ];
    const s = newStore<TestPod>(metaNamespaceKeyFunc);
    for (const [line, item] of table.entries()) {
      if (item.list) {
        // The list is what the store holds by now.
        const expected = Object.fromEntries(
          item.list.items.map((p) => [p.metadata.name, p.metadata.resourceVersion]),
        );
        expect(contentOf(s), `line ${line}`).toEqual(expected);
      }
      const ac = abortedAfterTest();
      const events = item.events ?? [];
      let applied = 0;
      // The watch stops once its events are in the store.
      const counting: ReflectorStore<TestPod> = {
        add: (p) => count(() => s.add(p)),
        update: (p) => count(() => s.update(p)),
        delete: (p) => count(() => s.delete(p)),
        replace: (list, rv) => s.replace(list, rv),
        resync: () => undefined,
      };
      function count(apply: () => void): void {
        apply();
        if (++applied === events.length) ac.abort(new Error('done'));
      }
      const lw = new FakeListerWatcher<TestPod>();
      lw.listFn = () => {
        if (item.listErr) throw item.listErr;
        return item.list!;
      };
      // The first watch fails with watchErr, if any; a second one would fail anyway.
      lw.watchErrors = item.watchErr ? [item.watchErr] : [undefined, new Error('second watch')];
      lw.onWatch = (w) => {
        if (events.length === 0) ac.abort(new Error('done'));
        else w.push(...events);
      };
      const { r } = reflector(lw, counting);
      const outcome = await r.listAndWatch(ac.signal).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(outcome, `line ${line}`).toBe(item.listErr ?? item.watchErr);
    }
  });

  /**
   * ListAndWatch whose first `numConnFails` watch calls are refused, stopped once a watch
   * opens; the fake time it took must be within the bounds.
   */
  async function watchAfterRefusals(
    bounds: { numConnFails: number; expLowerBound: number; expUpperBound: number },
    options: ReflectorOptions & { clock: FakeClock },
  ): Promise<FakeListerWatcher<TestPod>> {
    const { clock } = options;
    const lw = new FakeListerWatcher<TestPod>();
    lw.watchErrors.push(...Array.from({ length: bounds.numConnFails }, connectionRefused));
    const r = new Reflector(lw, newStore<TestPod>(metaNamespaceKeyFunc), options);
    const signal = stopAtWatch(lw);
    const start = clock.now();
    await stepThrough(clock, r.listAndWatch(signal));
    const elapsed = clock.now() - start;
    expect(elapsed).toBeGreaterThanOrEqual(bounds.expLowerBound);
    expect(elapsed).toBeLessThanOrEqual(bounds.expUpperBound);
    return lw;
  }

  describe('TestReflectorListAndWatchInitConnBackoff', () => {
    const maxBackoff = 50;
    const table = [
      // maxBackoff not reached: the time grows exponentially.
      { numConnFails: 5, expLowerBound: 32, expUpperBound: 64 },
      // maxBackoff reached: the time flattens.
      { numConnFails: 40, expLowerBound: 35 * 2 * maxBackoff, expUpperBound: 40 * 2 * maxBackoff },
    ];
    it.each(table)('$numConnFails connection failures', async (test) => {
      const clock = new FakeClock();
      const backoff = new ExponentialBackoffManager({
        initialMs: 1,
        maxMs: maxBackoff,
        factor: 2,
        jitter: 1,
        now: () => clock.now(),
        // The Go test's clock driver oversteps each delay; the longest jitter stands in.
        random: () => 0.999,
      });
      const lw = await watchAfterRefusals(test, { name: 'test-reflector', clock, backoff });
      expect(lw.listCalls).toHaveLength(1);
    });
  });

  describe('TestNewReflectorWithCustomBackoff', () => {
    const testCases = [
      {
        name: 'default backoff',
        backoff: undefined,
        numConnFails: 2,
        expLowerBound: 0,
        expUpperBound: 10_000,
      },
      {
        // 10 + 20 + 40 + 80 + 100 ms
        name: 'custom backoff',
        backoff: { initialMs: 10, factor: 2, jitter: 0, maxMs: 100 },
        numConnFails: 5,
        expLowerBound: 250,
        expUpperBound: 300,
      },
    ];
    it.each(testCases)('$name', async (tc) => {
      const clock = new FakeClock();
      const options: ReflectorOptions & { clock: FakeClock } = { clock, random: () => 0.5 };
      if (tc.backoff)
        options.backoff = new ExponentialBackoffManager({ ...tc.backoff, now: () => clock.now() });
      await watchAfterRefusals(tc, options);
    });
  });

  it('TestBackoffOnTooManyRequests', async () => {
    const err = statusError(429, 'TooManyRequests', 'too many requests');
    const fd = countingBackoff();
    const lw = new FakeListerWatcher<TestPod>();
    lw.watchErrors.push(err);
    lw.onWatch = (w) => {
      if (fd.calls === 1) w.push(errorEvent(err.status));
      else w.close();
    };
    const { r, clock } = reflector(lw, newStore(metaNamespaceKeyFunc), {
      name: 'test-reflector',
      backoff: fd,
    });
    await stepThrough(clock, r.listAndWatch(abortedAfterTest().signal));
    expect(fd.calls).toBe(2);
  });

  it('TestNoRelistOnTooManyRequests', async () => {
    const err = statusError(429, 'TooManyRequests', 'too many requests');
    const fd = countingBackoff();
    const lw = new FakeListerWatcher<TestPod>();
    lw.watchErrors.push(err, err, err, err);
    lw.onWatch = (w) => w.close();
    const { r, clock } = reflector(lw, newStore(metaNamespaceKeyFunc), {
      name: 'test-reflector',
      backoff: fd,
    });
    await stepThrough(clock, r.listAndWatch(abortedAfterTest().signal));
    expect(lw.listCalls).toHaveLength(1);
    expect(lw.watchCalls).toHaveLength(5);
  });

  describe('TestRetryInternalError', () => {
    const testCases = [
      { name: 'retries off', maxInternalDuration: 0, rewindTime: 0, wantRetries: 0 },
      {
        name: 'retries on, all calls fail',
        maxInternalDuration: 30_000,
        rewindTime: 0,
        wantRetries: 31,
      },
      {
        name: 'retries on, one call successful',
        maxInternalDuration: 30_000,
        rewindTime: 10,
        wantRetries: 40,
      },
    ];
    it.each(testCases)('$name', async (tc) => {
      const err = status(500, 'InternalError', 'Internal error occurred: etcdserver: no leader');
      const fd = countingBackoff();
      const lw = new FakeListerWatcher<TestPod>();
      const { r, clock } = reflector(lw, newStore(metaNamespaceKeyFunc), {
        name: 'test-reflector',
        backoff: fd,
        maxInternalErrorRetryDurationMs: tc.maxInternalDuration,
      });
      let counter = 0;
      lw.onWatch = (w) => {
        counter++;
        if (counter === tc.rewindTime) clock.step(60_000);
        clock.step(1000);
        w.push(errorEvent(err));
      };
      await r.listAndWatch(abortedAfterTest().signal);
      expect(counter - 1).toBe(tc.wantRetries);
      expect(fd.calls).toBe(0);
    });
  });

  it('TestReflectorResync', async () => {
    let iteration = 0;
    const rerr = new Error('expected resync reached');
    const store = nullStore(() => {
      iteration++;
      if (iteration === 2) throw rerr;
    });
    const lw = new FakeListerWatcher<TestPod>();
    lw.listFn = () => listOf([], '0');
    const { r, clock, errors } = reflector(lw, store, { resyncPeriodMs: 1 });
    let done = false;
    const listing = r.listAndWatch(abortedAfterTest().signal).finally(() => {
      done = true;
    });
    // At most a few resync periods: without the error ending the watch, it would go on.
    for (let i = 0; i < 5 && !done; i++) {
      await eventually(() => done || clock.pending > 0);
      if (!done) clock.step(1);
    }
    // The error from the resync is not propagated up to here.
    await expect(listing).resolves.toBeUndefined();
    expect(iteration).toBe(2);
    expect(errors).toEqual([rerr]);
    expect(lw.watches[0]!.stopped).toBe(true);
  });

  /** A reflector that first listed at RV 0 (answered unpaged, at RV 10), to relist at RV 10. */
  async function listedAt10(lw: FakeListerWatcher<TestPod>, options: ReflectorOptions = {}) {
    const s = newStore<TestPod>(metaNamespaceKeyFunc);
    const { r } = reflector(lw, s, options);
    const answer = lw.listFn;
    lw.listFn = () => listOf([], '10');
    await r.listAndWatch(stopAtWatch(lw));
    lw.listFn = answer;
    lw.listCalls.length = 0;
    return { r, s };
  }

  // Pages of 10 pods at RV 10, by continue token.
  const pagesOf10: Record<string, ObjectList<TestPod>> = {
    '': listOf(numberedPods(10).slice(0, 4), '10', 'C1'),
    C1: listOf(numberedPods(10).slice(4, 8), '10', 'C2'),
    C2: listOf(numberedPods(10).slice(8, 10), '10'),
  };

  it('TestReflectorWatchListPageSize', async () => {
    const lw = new FakeListerWatcher<TestPod>();
    lw.listFn = (o) => {
      if (o.limit !== 4) throw new Error(`expected list limit 4, got ${o.limit}`);
      return pagesOf10[o.continue ?? '']!;
    };
    // Paginates also the not-consistent read at RV 10, in chunks of 4.
    const { r, s } = await listedAt10(lw, { pageSize: 4 });
    await r.listAndWatch(stopAtWatch(lw));
    expect(s.list()).toHaveLength(10);
    expect(lw.listCalls.map((o) => o.continue ?? '')).toEqual(['', 'C1', 'C2']);
  });

  it('TestReflectorNotPaginatingNotConsistentReads', async () => {
    const lw = new FakeListerWatcher<TestPod>();
    lw.listFn = (o) => {
      if (o.resourceVersion !== '10') throw new Error(`expected RV "10", got ${o.resourceVersion}`);
      if (o.limit) throw new Error(`expected list limit 0, got ${o.limit}`);
      return listOf(numberedPods(10), '10');
    };
    const { r, s } = await listedAt10(lw);
    await r.listAndWatch(stopAtWatch(lw));
    expect(s.list()).toHaveLength(10);
  });

  it('TestReflectorPaginatingNonConsistentReadsIfWatchCacheDisabled', async () => {
    const lw = new FakeListerWatcher<TestPod>();
    lw.listFn = (o) => {
      if (o.limit !== 500) throw new Error(`expected the default list limit 500, got ${o.limit}`);
      return pagesOf10[o.continue ?? '']!;
    };
    const s = newStore<TestPod>(metaNamespaceKeyFunc);
    const { r } = reflector(lw, s);
    // The initial list (RV 0) was paginated, so the later ones are too.
    await r.listAndWatch(stopAtWatch(lw));
    expect(s.list()).toHaveLength(10);
    await r.listAndWatch(stopAtWatch(lw));
    expect(s.list()).toHaveLength(10);
    expect(lw.listCalls.map((o) => o.resourceVersion)).toEqual([
      '0',
      undefined,
      undefined,
      '10',
      undefined,
      undefined,
    ]);
  });

  /** Runs ListAndWatch `times` times, each stopped at its watch; returns the list calls' RVs. */
  async function relists(
    lw: FakeListerWatcher<TestPod>,
    s: Store<TestPod>,
    times: number,
    options: ReflectorOptions = {},
  ) {
    const { r } = reflector(lw, s, options);
    const sizes: number[] = [];
    for (let i = 0; i < times; i++) {
      await r.listAndWatch(stopAtWatch(lw));
      sizes.push(s.list().length);
    }
    return { rvs: lw.listCalls.map((o) => o.resourceVersion ?? ''), sizes };
  }

  // Relists at the last resourceVersion (not going back in time), and at "" once that
  // exact resourceVersion has expired (a server without a watch cache).
  const pods8 = numberedPods(8);
  it.each([
    {
      name: 'TestReflectorResyncWithResourceVersion',
      answers: { '0': listOf(pods8.slice(0, 4), '10'), '10': listOf(pods8, '11') },
      expectedRVs: ['0', '10'],
    },
    {
      name: 'TestReflectorExpiredExactResourceVersion',
      answers: {
        '0': listOf(pods8.slice(0, 4), '10'),
        '10': expiredError('The resourceVersion for the provided watch is too old.'),
        '': listOf(pods8, '11'),
      },
      expectedRVs: ['0', '10', ''],
    },
  ] as {
    name: string;
    answers: Record<string, ObjectList<TestPod> | Error>;
    expectedRVs: string[];
  }[])('$name', async (tc) => {
    const lw = new FakeListerWatcher<TestPod>();
    lw.listFn = (o) => {
      const answer = tc.answers[o.resourceVersion ?? ''];
      if (answer === undefined)
        throw new Error(`unrecognized resourceVersion ${o.resourceVersion}`);
      if (answer instanceof Error) throw answer;
      return answer;
    };
    const { rvs, sizes } = await relists(lw, newStore(metaNamespaceKeyFunc), 2);
    expect(sizes).toEqual([4, 8]);
    expect(rvs).toEqual(tc.expectedRVs);
  });

  it('TestReflectorResourceVersionUpdate', async () => {
    const { s, resourceVersions } = storeWithRV();
    const lw = new FakeListerWatcher<TestPod>();
    lw.listFn = () => listOf([], '10');
    const ac = abortedAfterTest();
    const makePod = (rv: string) => mkPod('', rv);
    lw.onWatch = (w) => {
      w.push(
        added(makePod('10')),
        modified(makePod('20')),
        { type: 'BOOKMARK', object: makePod('30') },
        deleted(makePod('40')),
      );
    };
    const { r } = reflector(lw, s);
    const done = r.listAndWatch(ac.signal);
    await eventually(() => resourceVersions.length === 4);
    ac.abort(new Error('done'));
    await done;
    expect(resourceVersions).toEqual(['10', '20', '30', '40']);
  });

  it('TestReflectorResourceVersionUpdate, from a watch at "0" (a kubets case)', async () => {
    // The same events from a watch started at "0" (a list without a resourceVersion): its
    // ADDED events are synthetic and unordered, so nothing is propagated before the MODIFIED.
    const { s, resourceVersions } = storeWithRV();
    const lw = new FakeListerWatcher<TestPod>();
    lw.listFn = () => listOf([], '0');
    const ac = abortedAfterTest();
    lw.onWatch = (w) => {
      w.push(added(mkPod('a', '10')), modified(mkPod('a', '20')), deleted(mkPod('a', '40')));
    };
    const { r } = reflector(lw, s);
    const done = r.listAndWatch(ac.signal);
    await eventually(() => resourceVersions.length === 2);
    ac.abort(new Error('done'));
    await done;
    expect(resourceVersions).toEqual(['20', '40']);
  });

  it('TestReflectorFullListIfExpired', async () => {
    const lw = new FakeListerWatcher<TestPod>();
    const pods = numberedPods(8);
    const answers: Record<string, ObjectList<TestPod> | Error> = {
      // the initial limited list
      '0||4': listOf(pods.slice(0, 4), '10'),
      // the first page of the list at RV 10
      '10||4': listOf(pods.slice(0, 4), '11', 'C1'),
      // its second page
      '|C1|4': expiredError('The resourceVersion for the provided watch is too old.'),
      // the unlimited list at RV 10
      '10||0': listOf(pods.slice(0, 8), '11'),
    };
    lw.listFn = (o) => {
      const answer = answers[`${o.resourceVersion ?? ''}|${o.continue ?? ''}|${o.limit ?? 0}`];
      if (answer === undefined) throw new Error(`unexpected list options ${JSON.stringify(o)}`);
      if (answer instanceof Error) throw answer;
      return answer;
    };
    const { rvs, sizes } = await relists(lw, newStore(metaNamespaceKeyFunc), 2, { pageSize: 4 });
    expect(sizes).toEqual([4, 8]);
    // The relist at RV 10 expires on its second page: one full list at RV 10 again.
    expect(rvs).toEqual(['0', '10', '', '10']);
  });

  it('TestReflectorFullListIfTooLarge', async () => {
    const lw = new FakeListerWatcher<TestPod>();
    let version = 30;
    const timeout = (message: string, causes?: { reason?: string; message?: string }[]) =>
      new StatusError(
        status(504, 'Timeout', `Timeout: ${message}`, {
          details: { retryAfterSeconds: 1, ...(causes ? { causes } : {}) },
        }),
      );
    lw.listFn = (o) => {
      const resourceVersion = String(version);
      switch (o.resourceVersion) {
        // the initial list
        case '0':
          return listOf([], '20');
        // relists after the initial list, in the error formats of current servers,
        // of 1.17.0–1.18.5 and of older ones
        case '20':
          throw timeout('too large resource version', [{ reason: 'ResourceVersionTooLarge' }]);
        case '30':
          throw timeout('too large resource version', [{ message: 'Too large resource version' }]);
        case '40':
          throw timeout('Too large resource version');
        // the relist from etcd after a "too large" error
        case '':
          version += 10;
          return listOf([], resourceVersion);
        default:
          throw new Error(`unexpected list call at ${o.resourceVersion}`);
      }
    };
    const { rvs } = await relists(lw, newStore(metaNamespaceKeyFunc), 4);
    expect(rvs).toEqual(['0', '20', '', '30', '', '40', '']);
  });

  describe('TestWatchTimeout', () => {
    const testCases = [
      { name: 'no timeout', minWatchTimeoutSeconds: undefined, expectedMinTimeoutSeconds: 5 * 60 },
      {
        name: 'small timeout not honored',
        minWatchTimeoutSeconds: 1,
        expectedMinTimeoutSeconds: 5 * 60,
      },
      { name: '30m timeout', minWatchTimeoutSeconds: 30 * 60, expectedMinTimeoutSeconds: 30 * 60 },
    ];
    it.each(testCases)('$name', async (tc) => {
      for (const random of [0, 0.999]) {
        const lw = new FakeListerWatcher<TestPod>();
        lw.listFn = () => listOf([], '10');
        const options: ReflectorOptions = { random: () => random };
        if (tc.minWatchTimeoutSeconds !== undefined) {
          options.minWatchTimeoutSeconds = tc.minWatchTimeoutSeconds;
        }
        const { r } = reflector(lw, newStore(metaNamespaceKeyFunc), options);
        await r.listAndWatch(stopAtWatch(lw));
        const got = lw.watchCalls[0]?.timeoutSeconds ?? 0;
        expect(got).toBeGreaterThanOrEqual(tc.expectedMinTimeoutSeconds);
        expect(got).toBeLessThanOrEqual(2 * tc.expectedMinTimeoutSeconds);
      }
    });
  });

  it('TestReflectorReplacesStoreOnUnsafeDelete', async () => {
    const storeReadError = status(
      500,
      'StorageReadError',
      'failed to prepare current and previous objects: corrupt object has been deleted',
    );
    // These pods exist from the start and never change.
    const preExisting = mkPod('foo-1', '1');
    const pods = [preExisting, mkPod('foo-2', '2'), mkPod('foo-3', '3')];
    const lastExpectedRV = '5';
    const corruptObj = mkPod('foo', '4');
    const s = newStore<TestPod>(metaNamespaceKeyFunc);
    let replaceInvoked = 0;
    const checks: string[] = [];
    const store: ReflectorStore<TestPod> = {
      add: (p) => s.add(p),
      update: (p) => s.update(p),
      delete: (p) => s.delete(p),
      resync: () => undefined,
      replace: (list, rv) => {
        // The relist after the ERROR event.
        const watched = rv === lastExpectedRV;
        if (watched) {
          replaceInvoked++;
          if (s.get(corruptObj) === undefined)
            checks.push('the corrupt object is in the store before');
          if (s.get(preExisting) === undefined)
            checks.push('the pre-existing object is in the store before');
        }
        s.replace(list, rv);
        if (watched) {
          replaceInvoked++;
          if (s.get(corruptObj) !== undefined) checks.push('the corrupt object is gone after');
          if (s.get(preExisting) === undefined)
            checks.push('the pre-existing object is still there after');
        }
      },
    };
    const lw = new FakeListerWatcher<TestPod>();
    listsFrom(lw, [listOf(pods, '3'), listOf(pods, lastExpectedRV)]);
    lw.onWatch = (w) => {
      // The object turns corrupt and is deleted unsafely: the watch sends an ERROR, while
      // the storage's resourceVersion moved on to 5 with the delete.
      if (lw.watches.length === 1) w.push(added(corruptObj), errorEvent(storeReadError));
    };
    const { r, clock } = reflector(lw, store);
    const ac = abortedAfterTest();
    const done = r.run(ac.signal);
    await stepThrough(
      clock,
      eventually(() => r.lastSyncResourceVersion() === lastExpectedRV),
    );
    expect(checks).toEqual([]);
    expect(replaceInvoked).toBe(2);
    expect(s.list()).toHaveLength(pods.length);
    ac.abort();
    await done;
  });

  describe('TestReflectorRespectStoreTransformer', () => {
    const mkHostPod = (name: string, rv: string) => ({
      ...mkPod(name, rv),
      spec: { hostname: 'test' },
    });
    type HostPod = ReturnType<typeof mkHostPod>;
    const transforming = (counter: { invoked: number }) => (pod: HostPod) => {
      counter.invoked++;
      pod.spec.hostname = 'transformed';
      return pod;
    };
    it.each([
      {
        name: 'real-fifo',
        storeBuilder: (counter: { invoked: number }) => {
          const fifo = new NonAtomicRealFIFO<HostPod>({
            keyFunction: metaNamespaceKeyFunc,
            knownObjects: newStore<HostPod>(metaNamespaceKeyFunc) as CacheIndexer<HostPod>,
            transformer: transforming(counter),
          });
          // What the queued deltas leave: the last state of each key not deleted.
          const items = () => {
            const objects = new Map<string, HostPod>();
            for (const item of fifo.list()) {
              const delta = item as Delta<HostPod>;
              const key = fifo.keyOf(delta.object);
              if (delta.type === 'Deleted') objects.delete(key);
              else objects.set(key, delta.object as HostPod);
            }
            return [...objects.values()];
          };
          return { store: fifo, items, queued: () => fifo.length };
        },
      },
      {
        name: 'delta-fifo',
        storeBuilder: (counter: { invoked: number }) => {
          const fifo = new DeltaFIFO<HostPod>({
            keyFunction: metaNamespaceKeyFunc,
            transformer: transforming(counter),
          });
          return { store: fifo, items: () => fifo.list() as HostPod[], queued: () => fifo.length };
        },
      },
    ])('$name', async (test) => {
      const lastExpectedRV = '3';
      const events = [
        added(mkHostPod('foo-1', '1')),
        added(mkHostPod('foo-2', '2')),
        {
          type: 'BOOKMARK',
          object: {
            metadata: {
              resourceVersion: lastExpectedRV,
              annotations: { 'k8s.io/initial-events-end': 'true' },
            },
          },
        },
        added(mkHostPod('foo-3', '3')),
      ] as WatchEvent<HostPod>[];
      const counter = { invoked: 0 };
      const { store, items, queued } = test.storeBuilder(counter);
      const lw = new FakeListerWatcher<HostPod>();
      lw.listFn = () => {
        throw new Error('list call not expected with a streaming list');
      };
      lw.onWatch = (w) => {
        if (lw.watches.length === 1) w.push(...events);
      };
      lw.watchListSemanticsUnsupported = false;
      const r = new Reflector<HostPod>(lw, store, {
        clock: new FakeClock(),
        useStreamingList: true,
      });
      void r.run(abortedAfterTest().signal);
      await eventually(() => queued() === 3);
      expect(r.lastSyncResourceVersion()).toBe(lastExpectedRV);
      const informerItems = items();
      expect(informerItems).toHaveLength(3);
      for (const item of informerItems) expect(item.spec.hostname).toBe('transformed');
      // Once per object: twice on replace, once on the following add. (client-go counts 5: it
      // also transforms the initial events into its temporary store.)
      expect(counter.invoked).toBe(3);
    });
  });
});
