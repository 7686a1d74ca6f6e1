import { PassThrough } from 'node:stream';
import type { Logger, WatchEvent } from '@kubets/apimachinery';
import { FakeClock } from '@kubets/apimachinery/testing';
import { TransportError, WatchStream, watchStreamBrokenEvent } from '@kubets/rest';
import { type EventuallyOptions, eventually, flush, MemoryLogger } from '@kubets/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TestPod } from '../test/helpers.js';
import {
  abortedAfterTest,
  expiredError,
  expiredStatus,
  listOf,
  lowerWatchTimeoutFloor,
  pod,
  runFakes,
  statusError,
} from '../test/helpers.js';
import type { ListerWatcher } from './listwatch.js';
import { Reflector } from './reflector.js';
import type { ReflectorOptions, ReflectorStore } from './reflector-options.js';
import { CacheIndexer } from './store.js';

class RecordingStore implements ReflectorStore<TestPod> {
  ops: string[] = [];
  items = new Map<string, TestPod>();
  resyncs = 0;
  add(obj: TestPod): void {
    this.ops.push(`add ${obj.metadata.name}@${obj.metadata.resourceVersion}`);
    this.items.set(obj.metadata.name, obj);
  }
  update(obj: TestPod): void {
    this.ops.push(`update ${obj.metadata.name}@${obj.metadata.resourceVersion}`);
    this.items.set(obj.metadata.name, obj);
  }
  delete(obj: TestPod): void {
    this.ops.push(`delete ${obj.metadata.name}`);
    this.items.delete(obj.metadata.name);
  }
  replace(list: TestPod[], rv: string): void {
    this.ops.push(`replace [${list.map((p) => p.metadata.name).join(',')}]@${rv}`);
    this.items = new Map(list.map((p) => [p.metadata.name, p]));
  }
  resync(): void {
    this.resyncs++;
  }
}

/** The ERROR event by which @kubets/rest reports an undecodable watch stream. */
const decodeFailure = (message: string): WatchEvent<TestPod> => ({
  type: 'ERROR',
  object: { kind: 'Status', status: 'Failure', code: 500, reason: 'InternalError', message },
});

function setup(options: ReflectorOptions = {}) {
  const { lw, clock, errors, ac, timing } = runFakes();
  lw.watchListSemanticsUnsupported = options.useStreamingList !== true;
  const store = new RecordingStore();
  const reflector = new Reflector(lw, store, {
    ...timing,
    watchErrorHandler: (err) => errors.push(err),
    ...options,
  });
  const start = (): Promise<void> => reflector.run(ac.signal);
  return { lw, store, clock, reflector, ac, errors, start };
}

/**
 * Waits until the reflector sleeps out a backoff (one timer pending), runs `before` (checks of
 * what happened before the sleep ends), then ends the sleep.
 */
async function endBackoff(
  clock: FakeClock,
  before: () => void = () => {},
  waiting?: EventuallyOptions,
): Promise<void> {
  await eventually(() => clock.pending === 1, waiting);
  before();
  clock.stepToNext();
}

describe('Reflector list', () => {
  it('lists at resourceVersion 0 with limit 500, replaces the store, then watches from its RV', async () => {
    const { lw, store, reflector, start } = setup();
    lw.listFn = () => listOf([pod('a'), pod('b')], '10');
    void start();
    const w = await lw.watchNumber(1);
    expect(lw.listCalls).toEqual([{ resourceVersion: '0', limit: 500 }]);
    expect(store.ops).toEqual(['replace [a,b]@10']);
    expect(reflector.lastSyncResourceVersion()).toBe('10');
    expect(w.options.resourceVersion).toBe('10');
    expect(w.options.allowWatchBookmarks).toBe(true);
    expect(w.options.timeoutSeconds).toBe(450);
  });

  it('picks watch timeouts at random in [300, 600)', async () => {
    let r = 0;
    const randoms = [0, 0.999999];
    const { lw, start } = setup({ random: () => randoms[r++ % 2]! });
    void start();
    const w1 = await lw.watchNumber(1);
    w1.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '2' } } });
    w1.close();
    const w2 = await lw.watchNumber(2);
    expect([w1.options.timeoutSeconds, w2.options.timeoutSeconds]).toEqual([300, 599]);
  });

  it('follows continue tokens with limit 500 and gathers all pages', async () => {
    const { lw, store, start } = setup();
    lw.listFn = (o) => {
      if (!o.continue) return listOf([pod('a')], '10', 'tok1');
      if (o.continue === 'tok1') return listOf([pod('b')], '10', 'tok2');
      return listOf([pod('c')], '10');
    };
    void start();
    await lw.watchNumber(1);
    expect(lw.listCalls).toEqual([
      { resourceVersion: '0', limit: 500 },
      { limit: 500, continue: 'tok1' },
      { limit: 500, continue: 'tok2' },
    ]);
    expect(store.ops).toEqual(['replace [a,b,c]@10']);
  });

  it('answers an expired continue token with one full list at the resourceVersion asked for', async () => {
    const { lw, store, start, errors } = setup();
    lw.listFn = (o) => {
      if (o.continue) throw expiredError('continue token expired');
      if (o.limit) return listOf([pod('a')], '10', 'tok1');
      return listOf([pod('a'), pod('b'), pod('c')], '20');
    };
    void start();
    const w = await lw.watchNumber(1);
    expect(lw.listCalls).toEqual([
      { resourceVersion: '0', limit: 500 },
      { limit: 500, continue: 'tok1' },
      { resourceVersion: '0' },
    ]);
    expect(store.ops).toEqual(['replace [a,b,c]@20']);
    expect(w.options.resourceVersion).toBe('20');
    expect(errors).toEqual([]);
  });

  it('retries a failed list after a backoff', async () => {
    const { lw, store, clock, start, errors } = setup();
    let calls = 0;
    lw.listFn = () => {
      calls++;
      if (calls === 1) throw statusError(500, 'InternalError');
      return listOf([pod('a')], '5');
    };
    void start();
    await endBackoff(clock, () => {
      expect(clock.requestedSleeps).toEqual([1200]);
      expect(errors).toHaveLength(1);
    });
    await lw.watchNumber(1);
    expect(store.ops).toEqual(['replace [a]@5']);
  });
});

describe('Reflector watch', () => {
  it('applies events, advances the RV, and bookmarks only advance the RV', async () => {
    const { lw, store, reflector, start } = setup();
    lw.listFn = () => listOf([pod('a')], '10');
    void start();
    const w = await lw.watchNumber(1);
    w.push({ type: 'ADDED', object: pod('b', '11') });
    w.push({ type: 'MODIFIED', object: pod('a', '12') });
    w.push({ type: 'DELETED', object: pod('b', '13') });
    w.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '20' } } });
    await eventually(() => reflector.lastSyncResourceVersion() === '20');
    expect(store.ops).toEqual(['replace [a]@10', 'add b@11', 'update a@12', 'delete b']);
    // A clean end re-watches at once from the bookmark's RV, without a list.
    w.close();
    const w2 = await lw.watchNumber(2);
    expect(w2.options.resourceVersion).toBe('20');
    expect(lw.listCalls).toHaveLength(1);
  });

  it('re-watches at once after a clean close, without listing or sleeping', async () => {
    const { lw, clock, start } = setup();
    void start();
    const w = await lw.watchNumber(1);
    w.push({ type: 'ADDED', object: pod('x', '2') });
    w.close();
    const w2 = await lw.watchNumber(2);
    expect(w2.options.resourceVersion).toBe('2');
    expect(clock.requestedSleeps).toEqual([]);
    expect(lw.listCalls).toHaveLength(1);
  });

  it('relists after a backoff when a watch ends at once with no events', async () => {
    const { lw, clock, start, errors } = setup();
    void start();
    (await lw.watchNumber(1)).close();
    await endBackoff(clock, () => expect(lw.watches).toHaveLength(1));
    await lw.watchNumber(2);
    expect(lw.listCalls).toHaveLength(2);
    expect(String(errors[0])).toMatch(/^VeryShortWatchError: very short watch/);
  });

  it('relists after 410 thrown by the watch call, after the backoff', async () => {
    const { lw, store, clock, start, errors } = setup();
    let n = 0;
    lw.listFn = () => (++n === 1 ? listOf([pod('a')], '10') : listOf([pod('b')], '30'));
    void start();
    const w = await lw.watchNumber(1);
    w.push({ type: 'ADDED', object: pod('c', '11') });
    w.close();
    lw.watchErrors.push(expiredError());
    // The second watch call fails with 410: list again (at the last RV, no paging), after
    // the backoff every new list waits for.
    await endBackoff(clock, () => expect(lw.listCalls).toHaveLength(1));
    await eventually(() => lw.listCalls.length === 2);
    expect(lw.listCalls[1]).toEqual({ resourceVersion: '11' });
    const w3 = await lw.watchNumber(2);
    expect(w3.options.resourceVersion).toBe('30');
    expect(store.ops.at(-1)).toBe('replace [b]@30');
    expect(errors).toHaveLength(1);
  });

  it('relists after a 410 ERROR event, after the backoff also when the watch made progress', async () => {
    const { lw, clock, start } = setup();
    lw.listFn = () => listOf([], '10');
    void start();
    const w = await lw.watchNumber(1);
    w.push({ type: 'ADDED', object: pod('c', '11') });
    w.push({ type: 'ERROR', object: expiredStatus() });
    // client-go's Run waits for its backoff before every new ListAndWatch.
    await endBackoff(clock, () => expect(lw.listCalls).toHaveLength(1));
    await lw.watchNumber(2);
    expect(lw.listCalls.map((c) => c.resourceVersion)).toEqual(['0', '11']);
    expect(w.stopped).toBe(true);
    expect(clock.requestedSleeps).toHaveLength(1);
  });

  it('takes the events of one read of a watch stream in order, up to an ERROR among them', async () => {
    const body = new PassThrough();
    let watches = 0;
    const lw: ListerWatcher<TestPod> = {
      isWatchListSemanticsUnsupported: () => true,
      list: async () => listOf([pod('a')], '10'),
      watch: async (_options, signal) => {
        watches++;
        const source = watches === 1 ? body : new PassThrough();
        return new WatchStream<TestPod>({ body: source, close: () => source.destroy(), signal });
      },
    };
    const { clock, ac, timing } = runFakes();
    const store = new RecordingStore();
    const reflector = new Reflector(lw, store, timing);
    void reflector.run(ac.signal);
    await eventually(() => watches === 1);
    const events: WatchEvent<TestPod>[] = [
      { type: 'ADDED', object: pod('b', '11') },
      { type: 'MODIFIED', object: pod('a', '12') },
      { type: 'ERROR', object: expiredStatus() },
      { type: 'DELETED', object: pod('b', '13') },
    ];
    body.write(events.map((event) => `${JSON.stringify(event)}\n`).join(''));
    // The 410 ends the watch: the reflector backs off before it lists again.
    await eventually(() => clock.pending === 1);
    expect(store.ops).toEqual(['replace [a]@10', 'add b@11', 'update a@12']);
    expect(reflector.lastSyncResourceVersion()).toBe('12');
    expect(body.destroyed).toBe(true);
  });

  it('falls back to resourceVersion "" when the relist RV is expired too', async () => {
    const { lw, store, clock, start } = setup();
    lw.listFn = (o) => {
      if (o.resourceVersion === '0') return listOf([pod('a')], '10');
      if (o.resourceVersion === '11') throw expiredError();
      return listOf([pod('z')], '50');
    };
    void start();
    const w = await lw.watchNumber(1);
    w.push({ type: 'ADDED', object: pod('c', '11') });
    w.push({ type: 'ERROR', object: expiredStatus() });
    await endBackoff(clock);
    const w2 = await lw.watchNumber(2);
    expect(lw.listCalls).toEqual([
      { resourceVersion: '0', limit: 500 },
      { resourceVersion: '11' },
      { resourceVersion: '' },
    ]);
    expect(w2.options.resourceVersion).toBe('50');
    expect(store.ops.at(-1)).toBe('replace [z]@50');
  });

  it('backs off before relisting when a 410 comes right after the list', async () => {
    const { lw, clock, start } = setup();
    lw.watchErrors.push(expiredError());
    void start();
    await endBackoff(clock, () => expect(lw.listCalls).toHaveLength(1));
    await lw.watchNumber(1);
    expect(lw.listCalls).toHaveLength(2);
  });

  it('backs off on refused connections and 429s with growing delays, re-watching from the same RV', async () => {
    const { lw, clock, start, errors } = setup();
    lw.listFn = () => listOf([], '7');
    const refused = (): Error =>
      new TransportError(
        'watch failed',
        { method: 'GET', url: 'http://127.0.0.1:6443/api/v1/pods' },
        { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) },
      );
    const failures = [
      refused(),
      statusError(429, 'TooManyRequests'),
      refused(),
      statusError(429, 'TooManyRequests'),
    ];
    lw.watchErrors.push(...failures);
    void start();
    for (let i = 1; i <= failures.length; i++) {
      await endBackoff(clock, undefined, { timeoutMs: 2000, what: `backoff ${i}` });
    }
    const w = await lw.watchNumber(1);
    // 800 ms doubling, jitter factor 1.0 (random 0.5 → ×1.5).
    expect(clock.requestedSleeps).toEqual([1200, 2400, 4800, 9600]);
    expect(errors).toEqual(failures);
    expect(lw.listCalls).toHaveLength(1);
    expect(lw.watchCalls.every((c) => c.resourceVersion === '7')).toBe(true);
    // A stream that breaks mid-way is also retried after a backoff.
    w.push({ type: 'ADDED', object: pod('q', '8') });
    w.fail(new Error('connection reset'));
    await endBackoff(clock);
    const w2 = await lw.watchNumber(2);
    expect(w2.options.resourceVersion).toBe('8');
    expect(lw.listCalls).toHaveLength(1);
  });

  it('re-watches after a backoff when the stream broke, relists when an event was undecodable', async () => {
    const { lw, clock, start, errors } = setup();
    lw.listFn = () => listOf([], '7');
    void start();
    const w1 = await lw.watchNumber(1);
    w1.push({ type: 'ADDED', object: pod('q', '8') });
    w1.push(watchStreamBrokenEvent<TestPod>('the watch stream broke: socket hang up'));
    await endBackoff(clock);
    const w2 = await lw.watchNumber(2);
    expect(w2.options.resourceVersion).toBe('8');
    w2.push(
      watchStreamBrokenEvent<TestPod>('the watch stream ended in the middle of an event: bad JSON'),
    );
    await endBackoff(clock);
    const w3 = await lw.watchNumber(3);
    expect(lw.listCalls).toHaveLength(1);
    w3.push(decodeFailure('unable to decode an event from the watch stream: bad JSON'));
    await endBackoff(clock);
    await lw.watchNumber(4);
    expect(lw.listCalls).toHaveLength(2);
    expect(errors).toHaveLength(3);
  });

  it('caps the backoff at 30 s and resets it after 2 minutes without failures', async () => {
    const { lw, clock, start } = setup({ random: () => 0 });
    lw.watchErrors.push(...Array.from({ length: 8 }, () => statusError(500, 'InternalError')));
    void start();
    for (let i = 0; i < 8; i++) {
      await endBackoff(clock);
    }
    const w = await lw.watchNumber(1);
    expect(clock.requestedSleeps).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
    clock.step(121_000);
    w.push({ type: 'ADDED', object: pod('q', '8') });
    w.fail(new Error('reset'));
    await eventually(() => clock.pending === 1);
    expect(clock.requestedSleeps.at(-1)).toBe(800);
  });

  it('stops on abort with nothing left pending', async () => {
    const { lw, clock, ac, start } = setup({ resyncPeriodMs: 1000 });
    const done = start();
    const w = await lw.watchNumber(1);
    expect(clock.pending).toBe(1); // the resync timer
    ac.abort();
    await done;
    expect(clock.pending).toBe(0);
    expect(w.stopped).toBe(true);
    // Also while backing off.
    const s = setup();
    s.lw.watchErrors.push(statusError(500, 'InternalError'));
    const done2 = s.start();
    await eventually(() => s.clock.pending === 1);
    s.ac.abort();
    await done2;
    expect(s.clock.pending).toBe(0);
  });
});

describe('Reflector bookmarks', () => {
  it('hands watch BOOKMARKs to a store that takes them (client-go ReflectorBookmarkStore)', async () => {
    const { lw, ac, timing } = runFakes();
    const store = new CacheIndexer<TestPod>();
    void new Reflector(lw, store, timing).run(ac.signal);
    const w = await lw.watchNumber(1);
    w.push({ type: 'ADDED', object: pod('a', '5') });
    w.push({ type: 'BOOKMARK', object: { metadata: { name: '', resourceVersion: '9' } } });
    await eventually(() => store.lastStoreSyncResourceVersion() === '9');
    expect(store.listKeys()).toEqual(['default/a']);
  });
});

describe('Reflector streaming list', () => {
  it('uses sendInitialEvents and replaces at the initial-events-end bookmark, then keeps watching', async () => {
    const { lw, store, reflector, start } = setup({ useStreamingList: true });
    lw.onWatch = (w) => {
      if (!w.options.sendInitialEvents) return;
      w.push({ type: 'ADDED', object: pod('a', '5') });
      w.push({ type: 'ADDED', object: pod('b', '6') });
      w.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '7' } } });
      w.push({
        type: 'BOOKMARK',
        object: {
          metadata: { resourceVersion: '9', annotations: { 'k8s.io/initial-events-end': 'true' } },
        },
      });
      w.push({ type: 'MODIFIED', object: pod('a', '10') });
    };
    void start();
    await eventually(() => reflector.lastSyncResourceVersion() === '10');
    expect(lw.listCalls).toEqual([]);
    expect(lw.watchCalls).toEqual([
      {
        resourceVersion: '',
        resourceVersionMatch: 'NotOlderThan',
        sendInitialEvents: true,
        allowWatchBookmarks: true,
        timeoutSeconds: 450,
      },
    ]);
    expect(store.ops).toEqual(['replace [a,b]@9', 'update a@10']);
  });

  it("falls back to a paged list when the server refuses (kube-apiserver 1.20's 422), and streams again at the next list", async () => {
    const { lw, store, clock, start } = setup({ useStreamingList: true });
    // What kube-apiserver 1.20 answers (it ignores sendInitialEvents).
    lw.watchErrors.push(
      statusError(
        422,
        'Invalid',
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch',
      ),
    );
    lw.listFn = () => listOf([pod('a')], '3');
    void start();
    // The refused streaming list opened no stream: the first stream is the plain watch.
    const w = await lw.watchNumber(1);
    expect(lw.watchCalls[0]?.sendInitialEvents).toBe(true);
    expect(w.options.sendInitialEvents).toBeUndefined();
    expect(lw.listCalls).toEqual([{ resourceVersion: '0', limit: 500 }]);
    expect(store.ops).toEqual(['replace [a]@3']);
    w.push({ type: 'ADDED', object: pod('b', '4') });
    w.push({ type: 'ERROR', object: expiredStatus() });
    await endBackoff(clock);
    // As client-go: every list tries streaming first.
    const w2 = await lw.watchNumber(2);
    expect(w2.options).toMatchObject({ sendInitialEvents: true, resourceVersion: '4' });
  });

  it('logs every 10 s that the streaming list still waits for its end bookmark', async () => {
    const logger = new MemoryLogger();
    const { lw, clock, start } = setup({ useStreamingList: true, logger });
    void start();
    const w = await lw.watchNumber(1);
    await eventually(() => clock.pending === 1); // the ticker
    const warnings = () => logger.lines.filter((l) => l.message.startsWith('Warning: event'));
    clock.step(10_000);
    await eventually(() => warnings().length === 1);
    w.push({ type: 'ADDED', object: pod('a', '5') });
    await eventually(() => w.pending === 0);
    clock.step(10_000);
    await eventually(() => warnings().length === 2);
    expect(warnings().map((l) => [l.level, l.message, l.fields?.error])).toEqual([
      [
        'info',
        'Warning: event bookmark expired',
        'reflector: awaiting required bookmark event for initial events stream, no events received for 10s',
      ],
      [
        'info',
        'Warning: event bookmark expired',
        "reflector: hasn't received required bookmark event marking the end of initial events stream, received last event 10s ago",
      ],
    ]);
  });

  it('asks for a new streaming list after a backoff when the stream ends after some events without the end bookmark', async () => {
    const { lw, store, clock, start } = setup({ useStreamingList: true });
    lw.onWatch = (w) => {
      if (lw.watches.length === 1) {
        w.push({ type: 'ADDED', object: pod('a', '5') });
        w.close();
        return;
      }
      w.push({ type: 'ADDED', object: pod('a', '5') });
      w.push({
        type: 'BOOKMARK',
        object: {
          metadata: { resourceVersion: '8', annotations: { 'k8s.io/initial-events-end': 'true' } },
        },
      });
    };
    void start();
    await lw.watchNumber(1);
    // The ticker stopped with the stream; what is pending is the backoff.
    await eventually(() => clock.pending === 1 && clock.nextDue() !== 10_000);
    expect(lw.watchCalls).toHaveLength(1);
    clock.stepToNext();
    await eventually(() => store.ops.length === 1);
    expect(lw.listCalls).toEqual([]);
    expect(lw.watchCalls.map((c) => c.sendInitialEvents)).toEqual([true, true]);
    expect(store.ops).toEqual(['replace [a]@8']);
  });

  it('falls back to a paged list when the connection of a streaming list breaks at once', async () => {
    const { lw, store, start } = setup({ useStreamingList: true });
    lw.onWatch = (w) => {
      if (w.options.sendInitialEvents)
        w.push(watchStreamBrokenEvent<TestPod>('the watch stream broke: socket hang up'));
    };
    lw.listFn = () => listOf([pod('a')], '8');
    void start();
    const w = await lw.watchNumber(2);
    expect(w.options.sendInitialEvents).toBeUndefined();
    expect(lw.watchCalls.filter((c) => c.sendInitialEvents)).toHaveLength(1);
    expect(store.ops).toEqual(['replace [a]@8']);
  });

  it('falls back to a paged list when the stream ends at once with no events (a very short watch)', async () => {
    const { lw, store, start } = setup({ useStreamingList: true });
    lw.onWatch = (w) => {
      if (w.options.sendInitialEvents) w.close();
    };
    lw.listFn = () => listOf([pod('a'), pod('b')], '8');
    void start();
    const w = await lw.watchNumber(2);
    expect(w.options.sendInitialEvents).toBeUndefined();
    expect(store.ops).toEqual(['replace [a,b]@8']);
  });
});

describe('Reflector resync', () => {
  it('calls store.resync every period when shouldResync allows', async () => {
    let allow = true;
    const { lw, store, clock, start } = setup({ resyncPeriodMs: 1000, shouldResync: () => allow });
    void start();
    await lw.watchNumber(1);
    await eventually(() => clock.pending === 1);
    clock.step(1000);
    await eventually(() => store.resyncs === 1);
    await eventually(() => clock.pending === 1);
    allow = false;
    clock.step(1000);
    await flush();
    await eventually(() => clock.pending === 1);
    expect(store.resyncs).toBe(1);
    allow = true;
    clock.step(1000);
    await eventually(() => store.resyncs === 2);
  });
});

describe('Reflector watch deadline', () => {
  // The deadline runs on real timers (not the injected clock): fake just setTimeout.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function recordingLogger(): { logger: Logger; warnings: string[] } {
    const warnings: string[] = [];
    const ignore = (): void => {};
    return {
      warnings,
      logger: { debug: ignore, info: ignore, error: ignore, warn: (m) => void warnings.push(m) },
    };
  }

  it('aborts a watch that never ends at timeoutSeconds + 10% and watches again from the last RV', async () => {
    const { logger, warnings } = recordingLogger();
    const { lw, store, clock, errors, start } = setup({ logger });
    lw.listFn = () => listOf([pod('a', '10')], '10');
    void start();
    const w1 = await lw.watchNumber(1);
    expect(w1.options.timeoutSeconds).toBe(450);
    w1.push({ type: 'MODIFIED', object: pod('a', '11') });
    await eventually(() => store.ops.length === 2);

    // 450 s + max(5 s, 45 s): the watch is still trusted just before...
    vi.advanceTimersByTime(494_999);
    await flush();
    expect(w1.stopped).toBe(false);
    expect(lw.watches).toHaveLength(1);
    // ...and aborted at its deadline; the next watch resumes from the last RV seen, at once.
    vi.advanceTimersByTime(1);
    const w2 = await lw.watchNumber(2);
    expect(w1.stopped).toBe(true);
    expect(w2.options.resourceVersion).toBe('11');
    expect(lw.listCalls).toHaveLength(1);
    expect(clock.requestedSleeps).toEqual([]); // no backoff
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/did not end within 495 s/);
    expect(warnings).toEqual([
      'The watch outlived its deadline; aborted it, watching again from the last resourceVersion',
    ]);
    expect(store.ops).toEqual(['replace [a]@10', 'update a@11']);

    // The new watch has its own deadline, and keeps working.
    w2.push({ type: 'ADDED', object: pod('b', '12') });
    await eventually(() => store.items.has('b'));
    vi.advanceTimersByTime(495_000);
    const w3 = await lw.watchNumber(3);
    expect(w3.options.resourceVersion).toBe('12');
  });

  it('a watch that keeps delivering events is still cut at its deadline', async () => {
    lowerWatchTimeoutFloor(10);
    const { lw, store, start } = setup({
      minWatchTimeoutSeconds: 10,
    });
    void start();
    const w1 = await lw.watchNumber(1);
    expect(w1.options.timeoutSeconds).toBe(15); // deadline: 15 s + max(5 s, 1.5 s)
    for (let i = 0; i < 19; i++) {
      w1.push({ type: 'ADDED', object: pod(`p${i}`, `${2 + i}`) });
      vi.advanceTimersByTime(1000);
      await eventually(() => store.items.size === i + 1);
    }
    expect(lw.watches).toHaveLength(1);
    vi.advanceTimersByTime(1000);
    const w2 = await lw.watchNumber(2);
    expect(w1.stopped).toBe(true);
    expect(w2.options.resourceVersion).toBe('20');
  });

  it('covers a watch request still waiting for its response, and honours the grace option', async () => {
    const errors: unknown[] = [];
    const watchCalls: string[] = [];
    const lw: ListerWatcher<TestPod> = {
      list: async () => listOf([], '5'),
      // Never answers (a stalled server): only the signal ends it.
      watch: (options, signal) => {
        watchCalls.push(options.resourceVersion ?? '');
        return new Promise<AsyncIterable<WatchEvent<TestPod>>>((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      },
    };
    const ac = abortedAfterTest();
    lowerWatchTimeoutFloor(10);
    const reflector = new Reflector(lw, new RecordingStore(), {
      clock: new FakeClock(),
      random: () => 0,
      minWatchTimeoutSeconds: 10,
      watchDeadlineGraceSeconds: 2,
      watchErrorHandler: (err) => errors.push(err),
      useStreamingList: false,
    });
    const done = reflector.run(ac.signal);
    await eventually(() => watchCalls.length === 1);
    vi.advanceTimersByTime(11_999);
    await flush();
    expect(watchCalls).toHaveLength(1);
    vi.advanceTimersByTime(1);
    await eventually(() => watchCalls.length === 2);
    expect(watchCalls).toEqual(['5', '5']);
    expect(String(errors[0])).toMatch(/did not end within 12 s/);
    ac.abort();
    await done;
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a watch stream that just ends when aborted (as @kubets/rest does) is reported too', async () => {
    const errors: unknown[] = [];
    const watchCalls: string[] = [];
    const lw: ListerWatcher<TestPod> = {
      list: async () => listOf([], '5'),
      watch: async (options, signal) => {
        watchCalls.push(options.resourceVersion ?? '');
        return {
          [Symbol.asyncIterator]: () => ({
            // Nothing until aborted; then a clean end, no error.
            next: () =>
              new Promise<IteratorResult<WatchEvent<TestPod>>>((resolve) => {
                const done = (): void => resolve({ done: true, value: undefined });
                if (signal.aborted) done();
                else signal.addEventListener('abort', done, { once: true });
              }),
          }),
        };
      },
    };
    const clock = new FakeClock();
    const ac = abortedAfterTest();
    lowerWatchTimeoutFloor(60);
    const reflector = new Reflector(lw, new RecordingStore(), {
      clock,
      random: () => 0,
      minWatchTimeoutSeconds: 60,
      watchErrorHandler: (err) => errors.push(err),
      useStreamingList: false,
    });
    void reflector.run(ac.signal);
    await eventually(() => watchCalls.length === 1);
    vi.advanceTimersByTime(66_000); // 60 s + max(5 s, 6 s)
    await eventually(() => watchCalls.length === 2);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/did not end within 66 s/);
    expect(clock.requestedSleeps).toEqual([]); // not taken for a very short watch: no backoff
  });

  it('a watch that ends in time disarms its deadline; Infinity turns deadlines off', async () => {
    const { lw, ac, start } = setup();
    const done = start();
    const w1 = await lw.watchNumber(1);
    expect(vi.getTimerCount()).toBe(1);
    w1.push({ type: 'ADDED', object: pod('a', '2') });
    w1.close();
    await lw.watchNumber(2);
    expect(vi.getTimerCount()).toBe(1); // the new watch's only
    ac.abort();
    await done;
    expect(vi.getTimerCount()).toBe(0);

    const off = setup({ watchDeadlineGraceSeconds: Number.POSITIVE_INFINITY });
    void off.start();
    const w = await off.lw.watchNumber(1);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10 * 3600_000);
    await flush();
    expect(w.stopped).toBe(false);
    expect(off.lw.watches).toHaveLength(1);
  });

  it('covers a streaming list that stalls: falls back to a paged list', async () => {
    lowerWatchTimeoutFloor(10);
    const { lw, store, start } = setup({
      useStreamingList: true,
      minWatchTimeoutSeconds: 10,
    });
    lw.listFn = () => listOf([pod('a', '3')], '3');
    void start();
    const w1 = await lw.watchNumber(1);
    expect(w1.options.sendInitialEvents).toBe(true);
    w1.push({ type: 'ADDED', object: pod('a', '3') }); // and then nothing, no bookmark
    vi.advanceTimersByTime(20_000);
    const w2 = await lw.watchNumber(2);
    expect(w1.stopped).toBe(true);
    expect(lw.listCalls).toHaveLength(1);
    expect(store.ops).toEqual(['replace [a]@3']);
    expect(w2.options.resourceVersion).toBe('3');
  });
});
