// client-go's util/workqueue/metrics_test.go, ported case by case. client-go's tests build the
// queue with a 1 ms unfinished-work period; kubets' period is fixed at
// UNFINISHED_WORK_UPDATE_PERIOD_MS (500 ms, client-go's default), so the step that triggers
// the update is that period and the expectations that depend on it scale with it. Durations
// are fake milliseconds; the metrics receive seconds.

import { FakeClock } from '@kubets/apimachinery/testing';
import { expect, it } from 'vitest';
import { type MetricsProvider, UNFINISHED_WORK_UPDATE_PERIOD_MS } from './metrics.js';
import { Queue } from './queue.js';

/** client-go's `testMetric`: counts inc/dec, keeps the last set and the last observation. */
class TestMetric {
  inc = 0;
  dec = 0;
  set = 0;
  observedValue = 0;
  observedCount = 0;
  readonly sink = {
    inc: () => {
      this.inc++;
    },
    dec: () => {
      this.dec++;
    },
    set: (v: number) => {
      this.set = v;
    },
    observe: (v: number) => {
      this.observedValue = v;
      this.observedCount++;
    },
  };
  gaugeValue(): number {
    return this.set !== 0 ? this.set : this.inc - this.dec;
  }
}

/** client-go's `testMetricsProvider`: one {@link TestMetric} per metric. */
function testMetricsProvider() {
  const m = {
    depth: new TestMetric(),
    adds: new TestMetric(),
    latency: new TestMetric(),
    duration: new TestMetric(),
    unfinished: new TestMetric(),
    longest: new TestMetric(),
    retries: new TestMetric(),
  };
  const provider: MetricsProvider = {
    newDepthMetric: () => m.depth.sink,
    newAddsMetric: () => m.adds.sink,
    newLatencyMetric: () => m.latency.sink,
    newWorkDurationMetric: () => m.duration.sink,
    newUnfinishedWorkSecondsMetric: () => m.unfinished.sink,
    newLongestRunningProcessorSecondsMetric: () => m.longest.sink,
    newRetriesMetric: () => m.retries.sink,
  };
  return { m, provider };
}

it('TestMetricShutdown', () => {
  const { m, provider } = testMetricsProvider();
  let updates = 0;
  m.unfinished.sink.set = () => {
    updates++;
  };
  const c = new FakeClock(Date.now());
  const q = new Queue<string>({ name: 'test', clock: c, metricsProvider: provider });
  expect(c.pending).toBe(1);
  c.step(UNFINISHED_WORK_UPDATE_PERIOD_MS);
  expect(updates).toBe(1);
  q.shutDown();
  c.step(60 * 60 * 1000);
  expect(updates, 'no update after shutdown').toBe(1);
});

it('TestMetrics', async () => {
  const { m: mp, provider } = testMetricsProvider();
  const c = new FakeClock(0);
  const q = new Queue<string>({ name: 'test', clock: c, metricsProvider: provider });
  try {
    q.add('foo');
    expect(mp.adds.gaugeValue()).toBe(1);
    expect(mp.depth.gaugeValue()).toBe(1);

    c.step(0.05);
    const first = await q.get();
    expect(first.item).toBe('foo');
    expect(mp.latency.observedValue).toBeCloseTo(5e-5, 12);
    expect(mp.latency.observedCount).toBe(1);

    // Added back while processing; repeated adds of the same item collapse.
    for (let n = 0; n < 5; n++) q.add('foo');
    expect(mp.adds.gaugeValue()).toBe(2);
    expect(mp.depth.gaugeValue()).toBe(1);

    c.step(0.025);
    q.done('foo');
    expect(mp.duration.observedValue).toBeCloseTo(2.5e-5, 12);
    expect(mp.duration.observedCount).toBe(1);
    expect(mp.depth.gaugeValue()).toBe(1);

    const again = await q.get();
    expect(again.item).toBe('foo');
    expect(mp.latency.observedValue).toBeCloseTo(2.5e-5, 12);
    expect(mp.latency.observedCount).toBe(2);

    // The periodic update fires at the period's end; 'foo' started 0.075 ms in.
    const startedAt = c.now();
    c.step(UNFINISHED_WORK_UPDATE_PERIOD_MS);
    const runningAtUpdate = (UNFINISHED_WORK_UPDATE_PERIOD_MS - startedAt) / 1000;
    expect(mp.unfinished.gaugeValue()).toBeCloseTo(runningAtUpdate, 12);
    expect(mp.longest.gaugeValue()).toBeCloseTo(runningAtUpdate, 12);

    q.done('foo');
    expect(mp.duration.observedValue).toBeCloseTo(UNFINISHED_WORK_UPDATE_PERIOD_MS / 1000, 12);
    expect(mp.duration.observedCount).toBe(2);
  } finally {
    q.shutDown();
  }
});
