import { FakeClock } from '@kubets/apimachinery/testing';
import { deferred, eventually, MemoryLogger, nextTurn, statusError } from '@kubets/test-utils';
import type { ConfigMap, Event, Node } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeSink } from '../test/helpers.js';
import {
  type EventBroadcaster,
  type EventBroadcasterOptions,
  formatEventForLog,
  newBroadcaster,
} from './broadcaster.js';

const start = Date.parse('2024-03-08T12:31:24Z');

function configMap(name = 'example', namespace = 'demo'): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, uid: `uid-${name}`, resourceVersion: '42' },
    data: { a: 'b' },
  };
}

interface Setup {
  clock: FakeClock;
  sink: FakeSink;
  logger: MemoryLogger;
  broadcaster: EventBroadcaster;
}

const broadcasters: EventBroadcaster[] = [];
afterEach(async () => {
  for (const b of broadcasters.splice(0)) await b.shutdown();
});

function setup(options: EventBroadcasterOptions = {}, withSink = true): Setup {
  const clock = new FakeClock(start);
  const sink = new FakeSink();
  const logger = new MemoryLogger();
  const broadcaster = newBroadcaster({ clock, logger, random: () => 0.5, ...options });
  broadcasters.push(broadcaster);
  if (withSink) broadcaster.startRecordingToSink(sink);
  return { clock, sink, logger, broadcaster };
}

function creates(sink: FakeSink): Event[] {
  return sink.calls.flatMap((c) => (c.op === 'create' ? [c.event] : []));
}

describe('EventRecorder: the event it builds', () => {
  it('references the object and stamps name, namespace, source, timestamps and count', async () => {
    const { sink, broadcaster } = setup();
    const recorder = broadcaster.newRecorder({ component: 'demo-controller', host: 'node-1' });
    recorder.event(configMap(), 'Normal', 'Synced', 'ConfigMap synced successfully');
    await broadcaster.flush();

    const [event] = creates(sink);
    expect(event).toBeDefined();
    expect(event?.involvedObject).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'demo',
      name: 'example',
      uid: 'uid-example',
      resourceVersion: '42',
    });
    expect(event?.metadata.namespace).toBe('demo');
    const name = event?.metadata.name ?? '';
    expect(name).toMatch(/^example\.[0-9a-f]+$/);
    // The suffix is the Unix time in nanoseconds, in hex.
    const nanos = BigInt(`0x${name.split('.')[1]}`);
    expect(nanos / 1_000_000n).toBe(BigInt(start));
    expect(event?.metadata.resourceVersion).toBeUndefined();
    expect(event).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      type: 'Normal',
      reason: 'Synced',
      message: 'ConfigMap synced successfully',
      count: 1,
      firstTimestamp: '2024-03-08T12:31:24Z',
      lastTimestamp: '2024-03-08T12:31:24Z',
      source: { component: 'demo-controller', host: 'node-1' },
      reportingComponent: 'demo-controller',
      reportingInstance: 'node-1',
    });
  });

  it('puts events about cluster-scoped objects in "default" and names events uniquely', async () => {
    const { sink, broadcaster } = setup();
    const recorder = broadcaster.newRecorder({ component: 'c' });
    const node: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'u1' } };
    recorder.event(node, 'Warning', 'NodeNotReady', 'first');
    recorder.event(node, 'Warning', 'NodeNotReady', 'second');
    await broadcaster.flush();
    const events = creates(sink);
    expect(events.map((e) => e.metadata.namespace)).toEqual(['default', 'default']);
    expect(events[0]?.involvedObject.namespace).toBeUndefined();
    expect(events[0]?.source).toEqual({ component: 'c' });
    // Same (frozen) clock, still two different names.
    expect(new Set(events.map((e) => e.metadata.name)).size).toBe(2);
  });

  it('formats eventf messages printf-style and sets annotations with annotatedEventf', async () => {
    const { sink, broadcaster } = setup();
    const recorder = broadcaster.newRecorder({ component: 'c' });
    recorder.eventf(
      configMap('a'),
      'Normal',
      'Scaled',
      'scaled %s from %d to %d (%v)',
      'web',
      1,
      3,
      true,
    );
    recorder.annotatedEventf(
      configMap('b'),
      { team: 'x' },
      'Warning',
      'Failed',
      'error: %s',
      'boom',
    );
    await broadcaster.flush();
    const [scaled, failed] = creates(sink);
    expect(scaled?.message).toBe('scaled web from 1 to 3 (true)');
    expect(failed?.message).toBe('error: boom');
    expect(failed?.metadata.annotations).toEqual({ team: 'x' });
    expect(scaled?.metadata.annotations).toBeUndefined();
  });

  it('drops (and logs) events about objects without kind, and unknown event types, without throwing', async () => {
    const { sink, logger, broadcaster } = setup();
    const lines: string[] = [];
    broadcaster.startLogging((line) => lines.push(line));
    const recorder = broadcaster.newRecorder({ component: 'c' });
    const noKind = { metadata: { name: 'x', namespace: 'demo' } };
    expect(() => recorder.event(noKind, 'Normal', 'Synced', 'm')).not.toThrow();
    expect(() =>
      recorder.event(configMap(), 'Fatal' as unknown as 'Normal', 'Synced', 'm'),
    ).not.toThrow();
    await broadcaster.flush();
    expect(sink.calls).toEqual([]);
    expect(lines).toEqual([]);
    expect(logger.matching('error', /Could not construct reference.*demo\/x.*no kind/)).toBe(1);
    expect(logger.matching('error', /Unsupported event type: 'Fatal'/)).toBe(1);
  });

  it('accepts an ObjectReference as the object', async () => {
    const { sink, broadcaster } = setup();
    broadcaster
      .newRecorder({ component: 'c' })
      .event({ kind: 'Pod', apiVersion: 'v1', namespace: 'ns', name: 'p' }, 'Normal', 'R', 'm');
    await broadcaster.flush();
    expect(creates(sink)[0]?.involvedObject).toEqual({
      kind: 'Pod',
      apiVersion: 'v1',
      namespace: 'ns',
      name: 'p',
    });
    expect(creates(sink)[0]?.metadata.namespace).toBe('ns');
  });
});

describe('startLogging and startEventWatcher', () => {
  it("prints client-go's StartLogging line", async () => {
    const { broadcaster } = setup({}, false);
    const lines: string[] = [];
    broadcaster.startLogging((line) => lines.push(line));
    const mydemo = {
      apiVersion: 'crddemo.k8s.io/v1',
      kind: 'Mydemo',
      metadata: {
        name: 'example-mydemo',
        namespace: 'default',
        uid: '8a6d17f7-17f3-4a1d-8250-bb092678ae7e',
        resourceVersion: '10818363',
      },
    };
    broadcaster
      .newRecorder({ component: 'c' })
      .event(mydemo, 'Normal', 'Synced', 'Mydemo synced successfully');
    // Delivery is asynchronous: event() returned before any watcher ran.
    expect(lines).toEqual([]);
    await broadcaster.flush();
    expect(lines).toEqual([
      'Event(v1.ObjectReference{Kind:"Mydemo", Namespace:"default", Name:"example-mydemo", UID:"8a6d17f7-17f3-4a1d-8250-bb092678ae7e", APIVersion:"crddemo.k8s.io/v1", ResourceVersion:"10818363", FieldPath:""}): type: \'Normal\' reason: \'Synced\' Mydemo synced successfully',
    ]);
  });

  it('delivers to every watcher in order, reports handler errors, and stops a watcher on stop()', async () => {
    const { broadcaster, logger } = setup({}, false);
    const seen: string[] = [];
    const other: string[] = [];
    const watcher = broadcaster.startEventWatcher((e) => {
      seen.push(e.reason ?? '');
    });
    broadcaster.startEventWatcher((e) => {
      other.push(e.reason ?? '');
      if (e.reason === 'B') throw new Error('handler bug');
    });
    const recorder = broadcaster.newRecorder({ component: 'c' });
    for (const reason of ['A', 'B', 'C']) recorder.event(configMap(), 'Normal', reason, 'm');
    await broadcaster.flush();
    expect(seen).toEqual(['A', 'B', 'C']);
    expect(other).toEqual(['A', 'B', 'C']);
    expect(logger.matching('error', /failed to handle/)).toBe(1);
    watcher.stop();
    recorder.event(configMap(), 'Normal', 'D', 'm');
    await broadcaster.flush();
    expect(seen).toEqual(['A', 'B', 'C']);
    expect(other).toEqual(['A', 'B', 'C', 'D']);
  });

  it('formatEventForLog tolerates missing fields', () => {
    expect(formatEventForLog({ metadata: {}, involvedObject: {} })).toBe(
      'Event(v1.ObjectReference{Kind:"", Namespace:"", Name:"", UID:"", APIVersion:"", ResourceVersion:"", FieldPath:""}): type: \'\' reason: \'\' ',
    );
  });
});

describe('correlation when recording to a sink', () => {
  it('patches count, lastTimestamp and message of the existing Event for repeats: 1 → 2 → 3', async () => {
    const { clock, sink, broadcaster } = setup();
    const recorder = broadcaster.newRecorder({ component: 'c' });
    recorder.event(configMap(), 'Normal', 'Synced', 'synced');
    await broadcaster.flush();
    clock.step(61_000);
    recorder.event(configMap(), 'Normal', 'Synced', 'synced');
    await broadcaster.flush();
    clock.step(60_000);
    recorder.event(configMap(), 'Normal', 'Synced', 'synced');
    await broadcaster.flush();

    expect(sink.calls.map((c) => c.op)).toEqual(['create', 'patch', 'patch']);
    const created = sink.calls[0]?.event;
    const name = created?.metadata.name;
    const patches = sink.calls.flatMap((c) => (c.op === 'patch' ? [c] : []));
    expect(patches.map((p) => p.event.metadata.name)).toEqual([name, name]);
    expect(patches.map((p) => p.patch)).toEqual([
      { count: 2, lastTimestamp: '2024-03-08T12:32:25Z', message: 'synced' },
      { count: 3, lastTimestamp: '2024-03-08T12:33:25Z', message: 'synced' },
    ]);
    // The patched event keeps the first occurrence's firstTimestamp and the server's resourceVersion.
    expect(patches[1]?.event.firstTimestamp).toBe('2024-03-08T12:31:24Z');
    expect(patches[1]?.event.metadata.resourceVersion).toBe('2');
    expect(sink.stored.size).toBe(1);
    expect([...sink.stored.values()][0]).toMatchObject({
      count: 3,
      firstTimestamp: '2024-03-08T12:31:24Z',
      lastTimestamp: '2024-03-08T12:33:25Z',
    });
  });

  it('recreates the Event when the patch finds it gone (NotFound → create)', async () => {
    const { sink, broadcaster } = setup();
    const recorder = broadcaster.newRecorder({ component: 'c' });
    recorder.event(configMap(), 'Normal', 'Synced', 'synced');
    await broadcaster.flush();
    sink.stored.clear(); // expired on the server
    recorder.event(configMap(), 'Normal', 'Synced', 'synced');
    await broadcaster.flush();
    expect(sink.calls.map((c) => c.op)).toEqual(['create', 'patch', 'create']);
    const recreated = sink.calls[2]?.event;
    expect(recreated?.count).toBe(2);
    expect(recreated?.metadata.name).toBe(sink.calls[0]?.event.metadata.name);
    expect(recreated?.metadata.resourceVersion).toBeUndefined();
    expect(sink.stored.size).toBe(1);
  });

  it('aggregates after 10 similar events (same reason, different messages)', async () => {
    const { clock, sink, broadcaster } = setup();
    const recorder = broadcaster.newRecorder({ component: 'c' });
    for (let i = 1; i <= 11; i++) {
      recorder.event(configMap(), 'Warning', 'FailedSync', `attempt ${i} failed`);
      clock.step(1000);
    }
    await broadcaster.flush();
    const ops = sink.calls.map(
      (c) => `${c.op}:${c.op === 'patch' ? c.patch.message : c.event.message}`,
    );
    expect(ops).toEqual([
      ...Array.from({ length: 9 }, (_, i) => `create:attempt ${i + 1} failed`),
      'create:(combined from similar events): attempt 10 failed',
      'patch:(combined from similar events): attempt 11 failed',
    ]);
    const aggregate = sink.calls[9]?.event;
    expect(aggregate?.metadata.name).toMatch(/^example\.[0-9a-f]+$/);
    expect(aggregate?.involvedObject.name).toBe('example');
    expect(aggregate?.count).toBe(1);
    const lastPatch = sink.calls[10];
    expect(lastPatch?.op === 'patch' && lastPatch.patch.count).toBe(2);
    expect(lastPatch?.event.metadata.name).toBe(aggregate?.metadata.name);
  });

  it('starts a fresh aggregation window after 10 minutes without similar events', async () => {
    const { clock, sink, broadcaster } = setup();
    const recorder = broadcaster.newRecorder({ component: 'c' });
    for (let i = 1; i <= 9; i++) recorder.event(configMap(), 'Warning', 'FailedSync', `m${i}`);
    await broadcaster.flush();
    clock.step(600_001);
    recorder.event(configMap(), 'Warning', 'FailedSync', 'm10');
    await broadcaster.flush();
    expect(sink.calls.at(-1)?.event.message).toBe('m10');
  });

  it('drops events beyond the spam burst (25 per source+object) and refills one per 5 minutes', async () => {
    const { clock, sink, broadcaster } = setup();
    const recorder = broadcaster.newRecorder({ component: 'c' });
    for (let i = 0; i < 30; i++) recorder.event(configMap(), 'Normal', `Reason${i}`, 'm');
    await broadcaster.flush();
    expect(sink.calls).toHaveLength(25);
    expect(creates(sink).at(-1)?.reason).toBe('Reason24');

    // Another object has its own budget.
    recorder.event(configMap('other'), 'Normal', 'Reason0', 'm');
    await broadcaster.flush();
    expect(sink.calls).toHaveLength(26);

    clock.step(299_000);
    recorder.event(configMap(), 'Normal', 'Late1', 'm');
    await broadcaster.flush();
    expect(sink.calls).toHaveLength(26);
    clock.step(2_000); // 301 s since the bucket emptied: one token
    recorder.event(configMap(), 'Normal', 'Late2', 'm');
    recorder.event(configMap(), 'Normal', 'Late3', 'm');
    await broadcaster.flush();
    expect(
      creates(sink)
        .slice(26)
        .map((e) => e.reason),
    ).toEqual(['Late2']);
  });
});

describe('the bounded queue', () => {
  it('drops rather than blocks when the broadcaster and watcher queues are full', async () => {
    const { sink, logger, broadcaster } = setup({ maxQueuedEvents: 5 });
    const gate = deferred();
    sink.behaviour = () => gate.promise;
    const recorder = broadcaster.newRecorder({ component: 'c' });

    // 20 synchronous events: the broadcaster queue takes 5, the other 15 are dropped at once.
    for (let i = 0; i < 20; i++) recorder.event(configMap(), 'Normal', `A${i}`, 'm');
    expect(logger.matching('error', /too many queued events/)).toBe(15);
    await eventually(() => sink.calls.length === 1, { what: 'the first write' });
    // The sink is stuck on A0; its watcher holds A1..A4 (4 of 5 places).

    for (let i = 0; i < 10; i++) recorder.event(configMap(), 'Normal', `B${i}`, 'm');
    await nextTurn();
    // B0..B4 reached the watcher queue's last place (B0) or were dropped there (B1..B4);
    // B5..B9 never got into the broadcaster queue.
    expect(logger.matching('error', /too many queued events/)).toBe(20);
    expect(logger.matching('warn', /watcher queue is full/)).toBe(4);

    gate.resolve();
    await broadcaster.flush();
    expect(sink.calls.map((c) => c.event.reason)).toEqual(['A0', 'A1', 'A2', 'A3', 'A4', 'B0']);
  });
});

describe('writing with retries', () => {
  it('retries a failed write (random first wait, then 10 s) until it succeeds', async () => {
    const { clock, sink, broadcaster } = setup();
    let failures = 2;
    sink.behaviour = () =>
      failures-- > 0 ? new Error('connect ECONNREFUSED 127.0.0.1:6443') : undefined;
    broadcaster.newRecorder({ component: 'c' }).event(configMap(), 'Normal', 'Synced', 'm');
    await eventually(() => clock.pending === 1, { what: 'first retry wait' });
    expect(clock.requestedSleeps).toEqual([5000]); // 10 s × random() (0.5)
    clock.step(5000);
    await eventually(() => clock.pending === 1 && sink.calls.length === 2, {
      what: 'second retry wait',
    });
    expect(clock.requestedSleeps).toEqual([5000, 10_000]);
    clock.step(10_000);
    await broadcaster.flush();
    expect(sink.calls.map((c) => c.op)).toEqual(['create', 'create', 'create']);
    expect(sink.stored.size).toBe(1);
  });

  it('gives up after 12 tries and logs it', async () => {
    const { clock, sink, logger, broadcaster } = setup();
    sink.behaviour = () => new Error('network down');
    broadcaster.newRecorder({ component: 'c' }).event(configMap(), 'Normal', 'Synced', 'm');
    for (let i = 0; i < 11; i++) {
      await eventually(() => clock.pending === 1, { what: `retry wait ${i + 1}` });
      clock.step(10_000);
    }
    await broadcaster.flush();
    expect(sink.calls).toHaveLength(12);
    expect(clock.requestedSleeps).toHaveLength(11);
    expect(logger.matching('error', /retry limit exceeded/)).toBe(1);
  });

  it('does not retry errors the server returned (AlreadyExists, Forbidden)', async () => {
    const { clock, sink, logger, broadcaster } = setup();
    sink.behaviour = (call) =>
      call.event.reason === 'Dup'
        ? statusError(409, 'AlreadyExists', 'exists')
        : statusError(403, 'Forbidden', 'no');
    const recorder = broadcaster.newRecorder({ component: 'c' });
    recorder.event(configMap(), 'Normal', 'Dup', 'm');
    recorder.event(configMap(), 'Normal', 'Denied', 'm');
    await broadcaster.flush();
    expect(sink.calls).toHaveLength(2);
    expect(clock.requestedSleeps).toEqual([]);
    expect(logger.matching('debug', /will not retry/)).toBe(1);
    expect(logger.matching('error', /will not retry/)).toBe(1);
  });

  it('is silent by default', async () => {
    const sink = new FakeSink();
    sink.behaviour = () => statusError(403, 'Forbidden', 'no');
    const broadcaster = newBroadcaster({ clock: new FakeClock(start) });
    broadcasters.push(broadcaster);
    broadcaster.startRecordingToSink(sink);
    const recorder = broadcaster.newRecorder({ component: 'c' });
    const writes: unknown[] = [];
    const original = { log: console.log, error: console.error, warn: console.warn };
    console.log = console.error = console.warn = (...args: unknown[]) => writes.push(args);
    try {
      recorder.event({ metadata: { name: 'no-kind' } }, 'Normal', 'R', 'm');
      recorder.event(configMap(), 'Normal', 'R', 'm');
      await broadcaster.flush();
    } finally {
      Object.assign(console, original);
    }
    expect(writes).toEqual([]);
    expect(sink.calls).toHaveLength(1);
  });
});

describe('shutdown', () => {
  it('ends a pending retry wait at once and drops later events', async () => {
    const { clock, sink, logger, broadcaster } = setup();
    sink.behaviour = () => new Error('network down');
    const lines: string[] = [];
    broadcaster.startLogging((line) => lines.push(line));
    const recorder = broadcaster.newRecorder({ component: 'c' });
    recorder.event(configMap(), 'Normal', 'First', 'm');
    await eventually(() => clock.pending === 1, { what: 'retry wait' });
    recorder.event(configMap(), 'Normal', 'Queued', 'm');
    await broadcaster.shutdown();
    expect(clock.pending).toBe(0);
    expect(logger.matching('error', /broadcaster is shut down/)).toBe(1);
    // The log watcher handled everything queued before shutdown; the sink abandoned "Queued".
    expect(lines.map((l) => /reason: '(\w+)'/.exec(l)?.[1])).toEqual(['First', 'Queued']);
    expect(sink.calls.map((c) => c.event.reason)).toEqual(['First']);

    recorder.event(configMap(), 'Normal', 'Late', 'm');
    await nextTurn();
    expect(lines).toHaveLength(2);
    expect(logger.matching('error', /broadcaster is shut down \(will not retry!\)/)).toBe(1);
  });

  it('leaves no timers behind with the real clock', async () => {
    // Track the timers this test's broadcaster creates, rather than counting every timer in
    // the process (the test runner has its own, which come and go).
    const pending = new Set<unknown>();
    const realSetTimeout = globalThis.setTimeout;
    const realClearTimeout = globalThis.clearTimeout;
    const setSpy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((
      callback: () => void,
      ms?: number,
    ) => {
      const handle: unknown = realSetTimeout(() => {
        pending.delete(handle);
        callback();
      }, ms);
      pending.add(handle);
      return handle;
    }) as typeof setTimeout);
    const clearSpy = vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((
      handle: Parameters<typeof clearTimeout>[0],
    ) => {
      pending.delete(handle);
      realClearTimeout(handle);
    }) as typeof clearTimeout);
    try {
      const sink = new FakeSink();
      sink.behaviour = () => new Error('network down');
      const broadcaster = newBroadcaster({ random: () => 0.99 });
      broadcaster.startRecordingToSink(sink);
      broadcaster.newRecorder({ component: 'c' }).event(configMap(), 'Normal', 'R', 'm');
      await eventually(() => pending.size > 0, { what: 'the retry timer' });
      await broadcaster.shutdown();
      expect(pending.size).toBe(0);
      expect(sink.calls).toHaveLength(1);
    } finally {
      setSpy.mockRestore();
      clearSpy.mockRestore();
    }
  });
});
