import { FakeClock } from '@kubets/apimachinery/testing';
import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  PrometheusMetricsProvider,
  WORKQUEUE_DURATION_BUCKETS,
  WORKQUEUE_METRIC_NAMES,
} from './prometheus.js';
import { Queue } from './queue.js';
import { newRateLimitingQueue } from './rate-limiting-queue.js';

describe('PrometheusMetricsProvider', () => {
  it("registers client-go's workqueue metric names in the given registry", async () => {
    const registry = new Registry();
    new PrometheusMetricsProvider({ registry });
    const metrics = await registry.getMetricsAsJSON();
    const byName = new Map(metrics.map((m) => [m.name, String(m.type)]));
    const expectedTypes: Record<string, string> = {
      workqueue_depth: 'gauge',
      workqueue_adds_total: 'counter',
      workqueue_queue_duration_seconds: 'histogram',
      workqueue_work_duration_seconds: 'histogram',
      workqueue_unfinished_work_seconds: 'gauge',
      workqueue_longest_running_processor_seconds: 'gauge',
      workqueue_retries_total: 'counter',
    };
    expect([...byName.keys()].sort()).toEqual(Object.keys(expectedTypes).sort());
    for (const [name, type] of Object.entries(expectedTypes)) {
      expect(byName.get(name), name).toBe(type);
    }
    expect(Object.values(WORKQUEUE_METRIC_NAMES).sort()).toEqual([...byName.keys()].sort());
  });

  it('uses buckets from 10 ns to 10 s', () => {
    expect(WORKQUEUE_DURATION_BUCKETS).toHaveLength(10);
    expect(WORKQUEUE_DURATION_BUCKETS[0]).toBeCloseTo(1e-8, 20);
    expect(WORKQUEUE_DURATION_BUCKETS[9]).toBeCloseTo(10, 10);
  });

  it('records a queue under its name label', async () => {
    const registry = new Registry();
    const clock = new FakeClock();
    const metricsProvider = new PrometheusMetricsProvider({ registry });
    const q = newRateLimitingQueue<string>(undefined, { clock, name: 'pods', metricsProvider });
    q.add('default/a');
    q.add('default/b');
    q.addRateLimited('default/c');
    clock.step(2);
    const got = await q.get();
    clock.step(3);
    if (!got.shutdown) q.done(got.item);
    clock.step(500);
    const text = await registry.metrics();
    // a was taken; b waits; c came in from the delaying queue at 5 ms.
    const samples = [
      'workqueue_depth{name="pods"} 2',
      'workqueue_adds_total{name="pods"} 3',
      'workqueue_retries_total{name="pods"} 1',
      'workqueue_queue_duration_seconds_count{name="pods"} 1',
      'workqueue_work_duration_seconds_count{name="pods"} 1',
      'workqueue_work_duration_seconds_sum{name="pods"} 0.003',
      'workqueue_unfinished_work_seconds{name="pods"} 0',
      'workqueue_longest_running_processor_seconds{name="pods"} 0',
    ];
    for (const sample of samples) expect(text).toContain(sample);
    q.shutDown();
    expect(clock.pending).toBe(0);
  });

  it('shares one registry between providers, one series per queue name', async () => {
    const registry = new Registry();
    const clock = new FakeClock();
    const first = new Queue<string>({
      clock,
      name: 'one',
      metricsProvider: new PrometheusMetricsProvider({ registry }),
    });
    const second = new Queue<string>({
      clock,
      name: 'two',
      metricsProvider: new PrometheusMetricsProvider({ registry }),
    });
    first.add('a');
    second.add('a');
    second.add('b');
    const text = await registry.metrics();
    expect(text).toContain('workqueue_adds_total{name="one"} 1');
    expect(text).toContain('workqueue_adds_total{name="two"} 2');
    first.shutDown();
    second.shutDown();
  });

  it('refuses a registry holding one of the names with another metric type', () => {
    const other = new Registry();
    // workqueue_depth as a counter: not a gauge.
    new Counter({ name: 'workqueue_depth', help: 'x', registers: [other] });
    expect(() => new PrometheusMetricsProvider({ registry: other })).toThrow(TypeError);
  });
});
