// client-go's tools/cache/reflector_watchlist_test.go, ported case by case: each test keeps
// the Go test's name, inputs and expectations. Cases that cannot apply are listed in the
// README ("client-go tests not ported").

import type { ListQueryOptions, WatchQueryOptions } from '@kubets/apimachinery';
import { type ObjectList, silentLogger, type WatchEvent } from '@kubets/apimachinery';
import { FakeClock } from '@kubets/apimachinery/testing';
import { eventually } from '@kubets/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  abortedAfterTest,
  expiredError,
  FakeWatch,
  listOf,
  statusError,
  stepThrough,
  type TestPod,
} from '../test/helpers.js';
import { InitialEventsEndBookmarkTicker } from './initial-events-end-ticker.js';
import { metaNamespaceKeyFunc } from './keys.js';
import type { ListerWatcher } from './listwatch.js';
import { Reflector } from './reflector.js';
import { newStore, type Store } from './store.js';

/** client-go's `makePod`: a pod without namespace, with a UID equal to its name. */
function makePod(name: string, rv: string): TestPod {
  return { metadata: { name, resourceVersion: rv, uid: name } } as TestPod;
}

/** The BOOKMARK that ends the initial events (or not, with `value` other than "true"). */
function initialEventsEnd(rv: string, value = 'true'): WatchEvent<TestPod> {
  return {
    type: 'BOOKMARK',
    object: {
      metadata: {
        name: '',
        resourceVersion: rv,
        annotations: { 'k8s.io/initial-events-end': value },
      },
    },
  } as WatchEvent<TestPod>;
}

const addedEvent = (pod: TestPod): WatchEvent<TestPod> => ({ type: 'ADDED', object: pod });

/** `ADDED` events of pods named `p<rv>` at the resourceVersions given. */
const addedPods = (...rvs: number[]): WatchEvent<TestPod>[] =>
  rvs.map((rv) => addedEvent(makePod(`p${rv}`, String(rv))));

/**
 * client-go's `fakeListWatcher` of this test file: counts and records list and watch
 * requests (in one sequence), stops the test after a number of them, answers lists with a
 * custom response (or "not implemented"), and can refuse watches by their options.
 */
class WatchListFakeLW implements ListerWatcher<TestPod> {
  listCounter = 0;
  watchCounter = 0;
  closeAfterWatchRequests = 0;
  closeAfterListRequests = 0;
  readonly requestOptions: (ListQueryOptions | WatchQueryOptions)[] = [];
  customListResponse: ObjectList<TestPod> | undefined;
  watchOptionsPredicate: ((options: WatchQueryOptions) => Error | undefined) | undefined;
  readonly watches: FakeWatch<TestPod>[] = [];

  readonly #stop: () => void;

  constructor(stop: () => void) {
    this.#stop = stop;
  }

  async list(options: ListQueryOptions): Promise<ObjectList<TestPod>> {
    this.listCounter++;
    this.requestOptions.push({ ...options });
    if (this.listCounter === this.closeAfterListRequests) this.#stop();
    if (this.customListResponse !== undefined) return this.customListResponse;
    throw new Error('not implemented');
  }

  async watch(options: WatchQueryOptions, signal: AbortSignal): Promise<FakeWatch<TestPod>> {
    this.watchCounter++;
    this.requestOptions.push({ ...options });
    if (this.watchCounter === this.closeAfterWatchRequests) this.#stop();
    const refusal = this.watchOptionsPredicate?.(options);
    if (refusal !== undefined) throw refusal;
    const w = new FakeWatch<TestPod>(options, signal);
    this.watches.push(w);
    return w;
  }
}

/** A list-watch with no watch-list capability declared (`lwNoWatchListSemanticsUnSupportedExposed`). */
function withoutDeclaration(lw: WatchListFakeLW): ListerWatcher<TestPod> {
  return { list: (o) => lw.list(o), watch: (o, s) => lw.watch(o, s) };
}

/** client-go's `testData`: a fake list-watch, a store, a reflector, and a way to stop them. */
function testData(useWatchList: boolean) {
  const ac = abortedAfterTest();
  const lw = new WatchListFakeLW(() => ac.abort(new Error('time to stop')));
  const store = newStore<TestPod>(metaNamespaceKeyFunc);
  const clock = new FakeClock();
  const reflector = new Reflector(lw, store, {
    clock,
    random: () => 0.5,
    useStreamingList: useWatchList,
    backoff: { next: () => 10 },
  });
  return { lw, store, reflector, clock, ac };
}

/**
 * The Go test's event goroutine: sends each event to the current watch once it is open and
 * waits until the reflector took it; after `stopAfter` events it ends that watch (the next
 * events go to the next watch), after `closeAfter` events it stops the reflector.
 */
async function sendEvents(
  lw: WatchListFakeLW,
  events: readonly WatchEvent<TestPod>[],
  ac: AbortController,
  { stopAfter = 0, closeAfter = 0 }: { stopAfter?: number; closeAfter?: number },
): Promise<void> {
  let current = 0;
  for (let i = 0; i < events.length; i++) {
    await eventually(() => lw.watches.length > current, { what: `watch #${current + 1}` });
    const w = lw.watches[current]!;
    w.push(events[i]!);
    await eventually(() => w.pending === 0 || w.stopped, { what: `event ${i + 1} taken` });
    if (i + 1 === stopAfter) {
      w.close();
      current++;
      continue;
    }
    if (i + 1 === closeAfter) ac.abort(new Error(`done after ${i} watch events`));
  }
}

/**
 * A request's options as the Go test compares them: unset and empty fields dropped, and
 * `timeoutSeconds` only checked for presence (the Go test ignores its value).
 */
function comparable(options: ListQueryOptions | WatchQueryOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || value === '') continue;
    out[key] = key === 'timeoutSeconds' ? 'set' : value;
  }
  return out;
}

/** The options of a streaming list request (client-go's expected watch-list ListQueryOptions). */
const watchListOptions = {
  sendInitialEvents: true,
  allowWatchBookmarks: true,
  resourceVersionMatch: 'NotOlderThan',
  timeoutSeconds: 'set',
};
const initialList = { resourceVersion: '0', limit: 500 };
const watchFrom = (resourceVersion: string) => ({
  allowWatchBookmarks: true,
  resourceVersion,
  timeoutSeconds: 'set',
});

/** The store's pods, sorted by name (client-go `verifyStore`). */
function storeContent(store: Store<TestPod>): TestPod[] {
  return store.list().sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('client-go reflector_watchlist_test.go', () => {
  describe('TestNewReflectorWithDisablementWatchList', () => {
    it.each([
      {
        name: 'WatchListClient feature gate off, client supports WatchList semantics',
        enableWatchListClientFG: false,
        lw: 'supports',
        expectUseWatchListValue: false,
      },
      {
        name: 'WatchListClient feature gate on, client supports WatchList semantics',
        enableWatchListClientFG: true,
        lw: 'supports',
        expectUseWatchListValue: true,
      },
      {
        name: "WatchListClient feature gate on, client doesn't support the WatchList semantics",
        enableWatchListClientFG: true,
        lw: 'doesNotSupport',
        expectUseWatchListValue: false,
      },
      {
        name: "WatchListClient feature gate on, client doesn't expose the IsWatchListSemanticsUnSupported method",
        enableWatchListClientFG: true,
        lw: 'notExposed',
        expectUseWatchListValue: true,
      },
    ] as const)('$name', async (scenario) => {
      const ac = abortedAfterTest();
      const fake = new WatchListFakeLW(() => ac.abort(new Error('first request made')));
      fake.closeAfterListRequests = 1;
      fake.closeAfterWatchRequests = 1;
      fake.customListResponse = listOf([], '1');
      let lw: ListerWatcher<TestPod> = fake;
      if (scenario.lw === 'notExposed') lw = withoutDeclaration(fake);
      else {
        const unsupported = scenario.lw === 'doesNotSupport';
        lw = Object.assign(withoutDeclaration(fake), {
          isWatchListSemanticsUnsupported: () => unsupported,
        });
      }
      // The feature gate is client-go's process-wide switch; kubets has the same switch per
      // reflector (useStreamingList) and reads the gate's environment variable for its default.
      vi.stubEnv('KUBE_FEATURE_WatchListClient', String(scenario.enableWatchListClientFG));
      const r = new Reflector(lw, newStore<TestPod>(metaNamespaceKeyFunc), {
        clock: new FakeClock(),
      });
      await r.listAndWatch(ac.signal);
      const first = fake.requestOptions[0] as WatchQueryOptions;
      expect(first.sendInitialEvents === true).toBe(scenario.expectUseWatchListValue);
      expect(fake.watchCounter + fake.listCounter).toBe(1);
    });
  });

  describe('TestInitialEventsEndBookmarkTicker', () => {
    /** Lets the ticker's loop run, so that a tick that is due has happened. */
    const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

    /** The Go test's ticker: name "testName", a 1 s interval, on a fake clock; counts ticks. */
    function testTicker(waitingForBookmark: boolean) {
      const clock = new FakeClock();
      const counted = { ticks: 0 };
      const target = new InitialEventsEndBookmarkTicker({
        name: 'testName',
        clock,
        logger: silentLogger,
        watchStartMs: clock.now(),
        tickIntervalMs: 1000,
        waitingForBookmark,
        onTick: () => void counted.ticks++,
      });
      return { clock, counted, target };
    }

    it('testing NoopInitialEventsEndBookmarkTicker', async () => {
      const { clock, counted, target } = testTicker(false);
      clock.step(30_000);
      await settle();
      expect(counted.ticks).toBe(0);
      expect(target.produceWarningIfExpired()).toBeUndefined();
      target.observeLastEventTimestamp(clock.now());
      expect(target.produceWarningIfExpired()).toBeUndefined();
      expect(counted.ticks).toBe(0);
      target.stop();
    });

    it('testing InitialEventsEndBookmarkTicker backed by a fake clock', async () => {
      const { clock, counted, target } = testTicker(true);
      // Each step: what happens first (if anything), how far the clock moves, the ticks
      // counted after it and, where the Go test checks one, the warning produced.
      const steps: {
        before?: 'observe an event' | 'stop';
        ms: number;
        ticks: number;
        warning?: string;
      }[] = [
        { ms: 500, ticks: 0 },
        {
          ms: 500,
          ticks: 1,
          warning:
            'testName: awaiting required bookmark event for initial events stream, no events received for 1s',
        },
        {
          ms: 1000,
          ticks: 2,
          warning:
            'testName: awaiting required bookmark event for initial events stream, no events received for 2s',
        },
        { before: 'observe an event', ms: 500, ticks: 2 },
        {
          ms: 500,
          ticks: 3,
          warning:
            "testName: hasn't received required bookmark event marking the end of initial events stream, received last event 1s ago",
        },
        {
          ms: 1000,
          ticks: 4,
          warning:
            "testName: hasn't received required bookmark event marking the end of initial events stream, received last event 2s ago",
        },
        { before: 'stop', ms: 5000, ticks: 4 },
      ];
      for (const { before, ms, ticks, warning } of steps) {
        if (before === 'observe an event') target.observeLastEventTimestamp(clock.now());
        if (before === 'stop') target.stop();
        clock.step(ms);
        await settle();
        expect(counted.ticks).toBe(ticks);
        if (warning !== undefined) expect(target.produceWarningIfExpired()?.message).toBe(warning);
      }
    });
  });

  describe('TestWatchListResourceVersion', () => {
    it.each([
      { name: 'empty resource version', watchEvents: [], expectedResourceVersion: '' },
      {
        name: 'empty resource version without bookmark event',
        watchEvents: [addedEvent(makePod('p1', '1'))],
        expectedResourceVersion: '',
      },
      {
        name: 'non empty resource version with bookmark event and initial events annotation',
        watchEvents: [addedEvent(makePod('p1', '1')), initialEventsEnd('2')],
        expectedResourceVersion: '2',
      },
    ])('$name', async (scenario) => {
      const { lw, reflector, ac } = testData(true);
      const sending = sendEvents(lw, scenario.watchEvents, ac, {
        closeAfter: scenario.watchEvents.length,
      });
      const running = reflector.listAndWatch(ac.signal);
      if (scenario.watchEvents.length === 0) {
        await eventually(() => lw.watchCounter === 1, { what: 'the streaming list request' });
        ac.abort(new Error('done'));
      }
      await running;
      await sending;
      expect(reflector.lastSyncResourceVersion()).toBe(scenario.expectedResourceVersion);
    });
  });

  describe('TestWatchList', () => {
    interface Scenario {
      name: string;
      disableUseWatchList?: boolean;
      closeAfterWatchEvents?: number;
      closeAfterWatchRequests?: number;
      closeAfterListRequests?: number;
      stopAfterWatchEvents?: number;
      watchOptionsPredicate?: (options: WatchQueryOptions) => Error | undefined;
      watchEvents?: WatchEvent<TestPod>[];
      podList?: ObjectList<TestPod>;
      expectedRequestOptions: Record<string, unknown>[];
      expectedWatchRequests: number;
      expectedListRequests?: number;
      expectedStoreContent?: TestPod[];
      expectedError?: string;
    }
    const p1WithDeadline: TestPod = {
      ...makePod('p1', '3'),
      spec: { activeDeadlineSeconds: 12 },
    } as TestPod;
    /** A streaming list refused with `refusal()`: a list, then a watch delivering p2. */
    const fallbackScenario = (name: string, refusal: () => Error): Scenario => ({
      name,
      watchOptionsPredicate: (options) =>
        options.sendInitialEvents === true ? refusal() : undefined,
      podList: listOf([makePod('p1', '1')], '1'),
      closeAfterWatchEvents: 1,
      watchEvents: [addedEvent(makePod('p2', '2'))],
      expectedWatchRequests: 2,
      expectedListRequests: 1,
      expectedStoreContent: [makePod('p1', '1'), makePod('p2', '2')],
      expectedRequestOptions: [watchListOptions, initialList, watchFrom('1')],
    });
    const scenarios: Scenario[] = [
      {
        name: "the reflector won't be synced if the bookmark event has been received",
        watchEvents: [addedEvent(makePod('p1', '1'))],
        closeAfterWatchEvents: 1,
        expectedWatchRequests: 1,
        expectedRequestOptions: [watchListOptions],
      },
      {
        name: 'the reflector uses the old LIST/WATCH semantics if the UseWatchList is turned off',
        disableUseWatchList: true,
        closeAfterWatchRequests: 1,
        podList: listOf([makePod('p1', '1')], '1'),
        expectedWatchRequests: 1,
        expectedListRequests: 1,
        expectedRequestOptions: [initialList, watchFrom('1')],
        expectedStoreContent: [makePod('p1', '1')],
      },
      // Two Go cases, the same but for the streaming list's refusal.
      fallbackScenario(
        'returning any other error than apierrors.NewInvalid forces fallback',
        () => new Error('dummy error'),
      ),
      fallbackScenario(
        "the reflector can fall back to old LIST/WATCH semantics when a server doesn't support streaming",
        () => statusError(422, 'Invalid', 'streaming is not allowed'),
      ),
      {
        name: 'prove that the reflector is synced after receiving a bookmark event',
        closeAfterWatchEvents: 3,
        watchEvents: [...addedPods(1, 2), initialEventsEnd('2')],
        expectedWatchRequests: 1,
        expectedRequestOptions: [watchListOptions],
        expectedStoreContent: [makePod('p1', '1'), makePod('p2', '2')],
      },
      {
        name: 'check if Updates and Deletes events are propagated during streaming (until the bookmark is received)',
        closeAfterWatchEvents: 6,
        watchEvents: [
          addedEvent(makePod('p1', '1')),
          addedEvent(makePod('p2', '2')),
          { type: 'MODIFIED', object: p1WithDeadline },
          addedEvent(makePod('p3', '4')),
          { type: 'DELETED', object: makePod('p3', '5') },
          initialEventsEnd('5'),
        ],
        expectedWatchRequests: 1,
        expectedRequestOptions: [watchListOptions],
        expectedStoreContent: [makePod('p2', '2'), p1WithDeadline],
      },
      {
        name: 'checks if the reflector retries 429',
        watchOptionsPredicate: (() => {
          let counter = 1;
          return () => {
            if (counter < 3) {
              counter++;
              return statusError(429, 'TooManyRequests', 'busy, check again later');
            }
            return undefined;
          };
        })(),
        closeAfterWatchEvents: 2,
        watchEvents: [addedEvent(makePod('p1', '1')), initialEventsEnd('2')],
        expectedWatchRequests: 3,
        expectedRequestOptions: [watchListOptions, watchListOptions, watchListOptions],
        expectedStoreContent: [makePod('p1', '1')],
      },
      {
        name: 'check if stopping a watcher before sync results in creating a new watch-list request',
        stopAfterWatchEvents: 1,
        closeAfterWatchEvents: 3,
        // The second request gets the last two.
        watchEvents: [...addedPods(1, 1), initialEventsEnd('1')],
        expectedWatchRequests: 2,
        expectedRequestOptions: [watchListOptions, watchListOptions],
        expectedStoreContent: [makePod('p1', '1')],
      },
      {
        name: 'stopping a watcher after synchronization results in creating a new watch request',
        stopAfterWatchEvents: 4,
        closeAfterWatchEvents: 5,
        // The second request gets the last one.
        watchEvents: [...addedPods(1, 2), initialEventsEnd('2'), ...addedPods(3, 4)],
        expectedWatchRequests: 2,
        expectedRequestOptions: [watchListOptions, watchFrom('3')],
        expectedStoreContent: [
          makePod('p1', '1'),
          makePod('p2', '2'),
          makePod('p3', '3'),
          makePod('p4', '4'),
        ],
      },
      {
        name: 'expiring an established watcher results in returning an error from the reflector',
        watchOptionsPredicate: (() => {
          let counter = 0;
          return () => {
            counter++;
            return counter === 2 ? expiredError('rv already expired') : undefined;
          };
        })(),
        stopAfterWatchEvents: 3,
        watchEvents: [
          addedEvent(makePod('p1', '1')),
          initialEventsEnd('2'),
          addedEvent(makePod('p3', '3')),
        ],
        expectedWatchRequests: 2,
        expectedRequestOptions: [watchListOptions, watchFrom('3')],
        expectedStoreContent: [makePod('p1', '1'), makePod('p3', '3')],
        expectedError: 'rv already expired',
      },
      {
        name: 'prove that the reflector is checking the value of the initialEventsEnd annotation',
        closeAfterWatchEvents: 3,
        watchEvents: [...addedPods(1, 2), initialEventsEnd('2', 'false')],
        expectedWatchRequests: 1,
        expectedRequestOptions: [watchListOptions],
      },
    ];

    it.each(scenarios)('$name', async (scenario) => {
      const { lw, store, reflector, clock, ac } = testData(!scenario.disableUseWatchList);
      lw.watchOptionsPredicate = scenario.watchOptionsPredicate;
      lw.closeAfterWatchRequests = scenario.closeAfterWatchRequests ?? 0;
      lw.customListResponse = scenario.podList;
      lw.closeAfterListRequests = scenario.closeAfterListRequests ?? 0;
      const sending = sendEvents(lw, scenario.watchEvents ?? [], ac, {
        stopAfter: scenario.stopAfterWatchEvents ?? 0,
        closeAfter: scenario.closeAfterWatchEvents ?? 0,
      });

      const outcome = await stepThrough(clock, reflector.listAndWatch(ac.signal)).then(
        () => undefined,
        (err: unknown) => err,
      );
      await sending;

      if (scenario.expectedError === undefined) expect(outcome).toBeUndefined();
      else expect(String(outcome)).toContain(scenario.expectedError);
      expect(lw.watchCounter).toBe(scenario.expectedWatchRequests);
      expect(lw.listCounter).toBe(scenario.expectedListRequests ?? 0);
      expect(lw.requestOptions.map(comparable)).toEqual(scenario.expectedRequestOptions);
      expect(storeContent(store)).toEqual(
        [...(scenario.expectedStoreContent ?? [])].sort((a, b) =>
          a.metadata.name.localeCompare(b.metadata.name),
        ),
      );
    });
  });
});

describe('the WatchListClient gate as an environment variable (kubets)', () => {
  it.each([
    { value: 'false', streaming: false },
    { value: '0', streaming: false },
    { value: 'true', streaming: true },
    { value: 'not-a-bool', streaming: true },
  ])('KUBE_FEATURE_WatchListClient=$value', async ({ value, streaming }) => {
    vi.stubEnv('KUBE_FEATURE_WatchListClient', value);
    const ac = abortedAfterTest();
    const lw = new WatchListFakeLW(() => ac.abort(new Error('first request made')));
    lw.closeAfterListRequests = 1;
    lw.closeAfterWatchRequests = 1;
    lw.customListResponse = listOf([], '1');
    // No useStreamingList option: the environment variable sets the default.
    const r = new Reflector(lw, newStore<TestPod>(metaNamespaceKeyFunc), {
      clock: new FakeClock(),
    });
    await r.listAndWatch(ac.signal);
    expect((lw.requestOptions[0] as WatchQueryOptions).sendInitialEvents === true).toBe(streaming);
  });

  it('an explicit useStreamingList wins over the environment variable', async () => {
    vi.stubEnv('KUBE_FEATURE_WatchListClient', 'false');
    const { lw, reflector, ac } = testData(true);
    lw.closeAfterWatchRequests = 1;
    await reflector.listAndWatch(ac.signal);
    expect(lw.requestOptions.map(comparable)).toEqual([watchListOptions]);
  });
});
