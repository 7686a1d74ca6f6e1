import { PatchType } from '@kubets/rest';
import type { Event } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  EventAggregator,
  EventCorrelator,
  EventLogger,
  EventSourceObjectSpamFilter,
  getEventKey,
  maxLruCacheEntries,
} from './correlator.js';
import { LruCache } from './lru.js';
import { sprintf } from './printf.js';
import { getReference, isObjectReferenceError } from './reference.js';
import { type CoreV1EventsClient, eventSinkFromClientset } from './sink.js';
import { rfc3339 } from './time.js';

function event(overrides: Partial<Event> = {}, name = 'cm.1'): Event {
  return {
    metadata: { name, namespace: 'ns' },
    involvedObject: { kind: 'ConfigMap', apiVersion: 'v1', namespace: 'ns', name: 'cm', uid: 'u' },
    source: { component: 'c' },
    type: 'Normal',
    reason: 'Synced',
    message: 'm',
    count: 1,
    firstTimestamp: '2024-01-01T00:00:00Z',
    lastTimestamp: '2024-01-01T00:00:00Z',
    ...overrides,
  };
}

describe('sprintf', () => {
  it('formats %s %d %v %q %x %% and reports missing and extra arguments like Go', () => {
    expect(sprintf('%s has %d pods (%v) %q 100%%', ['web', 3.7, { a: 1 }, 'x'])).toBe(
      'web has 3 pods ({"a":1}) "x" 100%',
    );
    expect(sprintf('%x %+v %#v', [255, [1, 2], new Error('boom')])).toBe('ff 1,2 boom');
    expect(sprintf('%d', ['nan'])).toBe('%!d(string=nan)');
    expect(sprintf('%s and %s', ['one'])).toBe('one and %!s(MISSING)');
    expect(sprintf('done', [1])).toBe('done%!(EXTRA number=1)');
    expect(sprintf('%v %v', [undefined, null])).toBe('<undefined> <null>');
  });
});

describe('LruCache', () => {
  it('evicts the least recently used entry beyond its bound', () => {
    const cache = new LruCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('c', 3);
    expect(cache.has('b')).toBe(false);
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
    expect(() => new LruCache(0)).toThrow(RangeError);
  });

  it('bounds the correlation caches at 4096 entries by default', () => {
    expect(maxLruCacheEntries).toBe(4096);
    const logger = new EventLogger();
    const first = event({ reason: 'R0' });
    logger.observe(first, getEventKey(first));
    for (let i = 1; i <= 4096; i++) {
      const e = event({ reason: `R${i}` });
      logger.observe(e, getEventKey(e));
    }
    // R0 was evicted: its repeat is a first occurrence again (no patch).
    expect(logger.observe(first, getEventKey(first)).patch).toBeUndefined();
    const recent = event({ reason: 'R4096' });
    expect(logger.observe(recent, getEventKey(recent)).patch?.count).toBe(2);
  });
});

describe('correlation pieces', () => {
  it('EventLogger: repeats take the first name, resourceVersion and firstTimestamp', () => {
    const logger = new EventLogger();
    const first = event({}, 'cm.a');
    const key = getEventKey(first);
    expect(logger.observe(first, key)).toEqual({ event: first, patch: undefined });
    logger.updateState({ ...first, metadata: { ...first.metadata, resourceVersion: '7' } });
    const repeat = event(
      { lastTimestamp: '2024-01-01T00:05:00Z', firstTimestamp: '2024-01-01T00:05:00Z' },
      'cm.b',
    );
    const { event: observed, patch } = logger.observe(repeat, key);
    expect(observed.metadata).toEqual({ name: 'cm.a', namespace: 'ns', resourceVersion: '7' });
    expect(observed.firstTimestamp).toBe('2024-01-01T00:00:00Z');
    expect(observed.count).toBe(2);
    expect(patch).toEqual({ count: 2, lastTimestamp: '2024-01-01T00:05:00Z', message: 'm' });
  });

  it('EventAggregator: the 10th distinct message within the window aggregates', () => {
    let now = Date.parse('2024-01-01T00:00:00Z');
    const aggregator = new EventAggregator({ clock: { now: () => now } });
    const results = Array.from({ length: 10 }, (_, i) =>
      aggregator.aggregate(event({ message: `m${i}` })),
    );
    expect(results.slice(0, 9).every((r) => r.event.message?.startsWith('m'))).toBe(true);
    const last = results[9];
    expect(last?.event.message).toBe('(combined from similar events): m9');
    expect(last?.key).not.toBe(getEventKey(event({ message: 'm9' })));
    // A different reason is a different group.
    expect(aggregator.aggregate(event({ reason: 'Other', message: 'x' })).event.message).toBe('x');
    now += 600_001;
    expect(aggregator.aggregate(event({ message: 'fresh' })).event.message).toBe('fresh');
  });

  it('EventSourceObjectSpamFilter: burst then one token per qps interval', () => {
    let now = 0;
    const filter = new EventSourceObjectSpamFilter({
      clock: { now: () => now },
      burstSize: 2,
      qps: 1,
    });
    expect([filter.filter(event()), filter.filter(event()), filter.filter(event())]).toEqual([
      false,
      false,
      true,
    ]);
    now += 1000;
    expect(filter.filter(event())).toBe(false);
    expect(filter.filter(event())).toBe(true);
  });

  it('EventCorrelator: spam-filtered events are skipped', () => {
    const correlator = new EventCorrelator({ clock: { now: () => 0 }, burstSize: 1 });
    expect(correlator.correlate(event({ reason: 'A' })).skip).toBe(false);
    expect(correlator.correlate(event({ reason: 'B' })).skip).toBe(true);
  });
});

describe('getReference', () => {
  it('requires kind and apiVersion with a clear error', () => {
    const err = (() => {
      try {
        getReference({ apiVersion: 'v1', metadata: { name: 'x', namespace: 'ns' } });
      } catch (e) {
        return e;
      }
    })();
    expect(isObjectReferenceError(err)).toBe(true);
    expect(String(err)).toMatch(/ns\/x: the object has no kind/);
    expect(() => getReference({ kind: 'Pod', metadata: { name: 'p' } })).toThrow(/no apiVersion/);
  });
});

describe('eventSinkFromClientset', () => {
  it("writes into the event's namespace and patches with a strategic merge patch", async () => {
    const calls: unknown[][] = [];
    const client = (namespace: string): CoreV1EventsClient => ({
      create: async (e) => {
        calls.push(['create', namespace, e.metadata.name]);
        return e;
      },
      update: async (e) => {
        calls.push(['update', namespace, e.metadata.name]);
        return e;
      },
      patch: async (name, patchType, body) => {
        calls.push(['patch', namespace, name, patchType, body]);
        return event();
      },
    });
    const sink = eventSinkFromClientset({ coreV1: () => ({ events: client }) });
    await sink.create(event());
    await sink.update(event({ metadata: { name: 'cm.2', namespace: 'other' } }));
    await sink.patch(event(), { count: 2, lastTimestamp: 't', message: 'm' });
    expect(calls).toEqual([
      ['create', 'ns', 'cm.1'],
      ['update', 'other', 'cm.2'],
      [
        'patch',
        'ns',
        'cm.1',
        PatchType.StrategicMergePatch,
        { count: 2, lastTimestamp: 't', message: 'm' },
      ],
    ]);
  });
});

describe('rfc3339', () => {
  it('renders whole seconds in UTC, as metav1.Time does', () => {
    expect(rfc3339(Date.parse('2024-03-08T12:31:24.987Z'))).toBe('2024-03-08T12:31:24Z');
  });
});
