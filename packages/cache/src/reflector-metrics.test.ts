import { FakeClock } from '@kubets/apimachinery/testing';
import { eventually } from '@kubets/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { abortedAfterTest, FakeListerWatcher, listOf, pod, type TestPod } from '../test/helpers.js';
import { Reflector } from './reflector.js';
import {
  newReflectorMetrics,
  noopReflectorMetricsProvider,
  type ReflectorMetricsProvider,
  resourceVersionMetricValue,
  setReflectorMetricsProvider,
} from './reflector-metrics.js';
import { newStore } from './store.js';

/** A provider that records every update as `metric(name) value`. */
function recordingProvider() {
  const log: string[] = [];
  const counter = (metric: string) => (name: string) => ({
    inc: () => void log.push(`${metric}(${name})`),
  });
  const observer = (metric: string) => (name: string) => ({
    observe: (v: number) => void log.push(`${metric}(${name}) ${v}`),
  });
  const provider: ReflectorMetricsProvider = {
    newListsMetric: counter('lists'),
    newListDurationMetric: observer('listDuration'),
    newItemsInListMetric: observer('itemsInList'),
    newWatchesMetric: counter('watches'),
    newShortWatchesMetric: counter('shortWatches'),
    newWatchDurationMetric: observer('watchDuration'),
    newItemsInWatchMetric: observer('itemsInWatch'),
    newLastResourceVersionMetric: (name) => ({
      set: (v) => void log.push(`lastResourceVersion(${name}) ${v}`),
    }),
  };
  return { provider, log };
}

afterEach(() => setReflectorMetricsProvider(noopReflectorMetricsProvider));

describe('reflector metrics', () => {
  it('counts lists, watches and their items and durations, and the last resourceVersion', async () => {
    const { provider, log } = recordingProvider();
    const lw = new FakeListerWatcher<TestPod>();
    lw.listFn = () => listOf([pod('a', '5'), pod('b', '6')], '7');
    const clock = new FakeClock();
    const r = new Reflector(lw, newStore<TestPod>(), {
      name: 'pods',
      clock,
      random: () => 0.5,
      metricsProvider: provider,
    });
    void r.run(abortedAfterTest().signal);
    const w1 = await lw.watchNumber(1);
    expect(log).toEqual([
      'lists(pods)',
      'listDuration(pods) 0',
      'itemsInList(pods) 2',
      'lastResourceVersion(pods) 7',
      'watches(pods)',
    ]);
    log.length = 0;
    w1.push({ type: 'ADDED', object: pod('c', '8') });
    w1.push({ type: 'BOOKMARK', object: { metadata: { name: '', resourceVersion: '9' } } });
    await eventually(() => r.lastSyncResourceVersion() === '9');
    clock.step(3000);
    w1.close();
    await lw.watchNumber(2);
    expect(log).toEqual([
      'lastResourceVersion(pods) 8',
      'lastResourceVersion(pods) 9',
      'watchDuration(pods) 3',
      'itemsInWatch(pods) 2',
      'watches(pods)',
    ]);
    log.length = 0;
    // A watch that ends at once with nothing in it is a short watch.
    lw.watches[1]!.close();
    await eventually(() => log.includes('shortWatches(pods)'));
    expect(log.slice(0, 3)).toEqual([
      'shortWatches(pods)',
      'watchDuration(pods) 0',
      'itemsInWatch(pods) 0',
    ]);
  });

  it('counts a streaming list as a list', async () => {
    const { provider, log } = recordingProvider();
    setReflectorMetricsProvider(provider);
    const lw = new FakeListerWatcher<TestPod>();
    lw.watchListSemanticsUnsupported = false;
    lw.onWatch = (w) => {
      w.push({ type: 'ADDED', object: pod('a', '5') });
      w.push({
        type: 'BOOKMARK',
        object: {
          metadata: {
            name: '',
            resourceVersion: '6',
            annotations: { 'k8s.io/initial-events-end': 'true' },
          },
        },
      });
    };
    const r = new Reflector(lw, newStore<TestPod>(), { name: 'pods', clock: new FakeClock() });
    void r.run(abortedAfterTest().signal);
    await eventually(() => r.lastSyncResourceVersion() === '6');
    expect(log).toEqual([
      'watches(pods)',
      'lists(pods)',
      'listDuration(pods) 0',
      'itemsInList(pods) 1',
      'lastResourceVersion(pods) 6',
    ]);
  });

  it('keeps no metric state without a provider', () => {
    expect(newReflectorMetrics('pods', undefined, new FakeClock())).toBeUndefined();
    expect(
      newReflectorMetrics('pods', noopReflectorMetricsProvider, new FakeClock()),
    ).toBeUndefined();
    const { provider } = recordingProvider();
    expect(newReflectorMetrics('pods', provider, new FakeClock())).toBeDefined();
  });

  it.each([
    ['', 0],
    ['12345', 12345],
    ['1234567890123456789', 567890123456789],
    ['not-a-number', undefined],
  ])('resourceVersion %j as a metric value: %j', (rv, value) => {
    expect(resourceVersionMetricValue(rv)).toBe(value);
  });
});
