import { Counter, Gauge, Registry, register } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type * as metric from './metrics.js';
import {
  metricSpecsOf,
  type PerNameMetricSpecs,
  perNameMetricsProvider,
  registeredMetric,
} from './prometheus.js';

interface ExampleMetricsProvider {
  newRequestsMetric(name: string): metric.CounterMetric;
  newInFlightMetric(name: string): metric.GaugeMetric;
  newLastSizeMetric(name: string): metric.SettableGaugeMetric;
  newLatencyMetric(name: string): metric.HistogramMetric;
  newSizesMetric(name: string): metric.SummaryMetric;
}

const NAMES = {
  requests: 'example_requests_total',
  inFlight: 'example_in_flight',
  lastSize: 'example_last_size',
  latency: 'example_latency_seconds',
  sizes: 'example_sizes',
} as const;

const HELP: Record<keyof typeof NAMES, string> = {
  requests: 'Requests made',
  inFlight: 'Requests in flight',
  lastSize: 'Size of the last response',
  latency: 'Seconds each request took',
  sizes: 'Sizes of the responses',
};

const spec = metricSpecsOf(NAMES, HELP);
const specs: PerNameMetricSpecs<ExampleMetricsProvider> = {
  newRequestsMetric: spec('counter', 'requests'),
  newInFlightMetric: spec('gauge', 'inFlight'),
  newLastSizeMetric: spec('gauge', 'lastSize'),
  newLatencyMetric: spec('histogram', 'latency', [0.1, 1]),
  newSizesMetric: spec('summary', 'sizes'),
};
const ExampleProvider = perNameMetricsProvider<ExampleMetricsProvider>(specs);

afterEach(() => {
  for (const name of Object.values(NAMES)) register.removeSingleMetric(name);
});

describe('metricSpecsOf', () => {
  it('takes the name and help of a key from the two tables', () => {
    expect(spec('counter', 'requests')).toEqual({
      type: 'counter',
      name: 'example_requests_total',
      help: 'Requests made',
      buckets: undefined,
    });
    expect(spec('histogram', 'latency', [1, 2]).buckets).toEqual([1, 2]);
  });
});

describe('perNameMetricsProvider', () => {
  it('registers every metric with its type, help and buckets, each name one series', async () => {
    const registry = new Registry();
    const provider = new ExampleProvider({ registry });
    provider.newRequestsMetric('pods').inc();
    provider.newRequestsMetric('pods').inc();
    provider.newRequestsMetric('nodes').inc();
    const inFlight = provider.newInFlightMetric('pods');
    inFlight.inc();
    inFlight.inc();
    inFlight.dec();
    provider.newLastSizeMetric('pods').set(7);
    provider.newLatencyMetric('pods').observe(0.5);
    provider.newSizesMetric('pods').observe(10);

    const types = new Map(
      (await registry.getMetricsAsJSON()).map((m) => [m.name, [String(m.type), m.help]]),
    );
    expect(Object.fromEntries(types)).toEqual({
      example_requests_total: ['counter', 'Requests made'],
      example_in_flight: ['gauge', 'Requests in flight'],
      example_last_size: ['gauge', 'Size of the last response'],
      example_latency_seconds: ['histogram', 'Seconds each request took'],
      example_sizes: ['summary', 'Sizes of the responses'],
    });
    const text = await registry.metrics();
    for (const sample of [
      'example_requests_total{name="pods"} 2',
      'example_requests_total{name="nodes"} 1',
      'example_in_flight{name="pods"} 1',
      'example_last_size{name="pods"} 7',
      'example_latency_seconds_bucket{le="0.1",name="pods"} 0',
      'example_latency_seconds_bucket{le="1",name="pods"} 1',
      'example_sizes_sum{name="pods"} 10',
    ]) {
      expect(text).toContain(sample);
    }
  });

  it("uses prom-client's global registry without options", async () => {
    new ExampleProvider().newRequestsMetric('pods').inc();
    expect(await register.metrics()).toContain('example_requests_total{name="pods"} 1');
  });

  it('makes instances of the class it returns, with the methods as own properties', () => {
    const provider = new ExampleProvider({ registry: new Registry() });
    expect(provider).toBeInstanceOf(ExampleProvider);
    expect(Object.keys(provider).sort()).toEqual(Object.keys(specs).sort());
  });

  it('shares the metrics of one registry between providers', async () => {
    const registry = new Registry();
    new ExampleProvider({ registry }).newRequestsMetric('one').inc();
    new ExampleProvider({ registry }).newRequestsMetric('one').inc();
    expect(await registry.metrics()).toContain('example_requests_total{name="one"} 2');
  });

  it('refuses a registry holding one of its names as another type, naming it', () => {
    const registry = new Registry();
    new Counter({ name: 'example_in_flight', help: 'x', registers: [registry] });
    expect(() => new ExampleProvider({ registry })).toThrow(
      new TypeError('metric example_in_flight is already registered with a different type'),
    );
  });

  it('only accepts a metric type whose series has what the method returns', () => {
    perNameMetricsProvider<ExampleMetricsProvider>({
      ...specs,
      // @ts-expect-error a counter cannot be set, as the last-size gauge must be
      newLastSizeMetric: spec('counter', 'lastSize'),
    });
    perNameMetricsProvider<ExampleMetricsProvider>({
      ...specs,
      // @ts-expect-error a histogram cannot count one up
      newRequestsMetric: spec('histogram', 'requests'),
    });
  });
});

describe('registeredMetric', () => {
  it('registers a new metric, then hands the same one back', () => {
    const registry = new Registry();
    const config = { name: 'example_gauge', help: 'A gauge' };
    const first = registeredMetric(registry, Gauge, config);
    expect(registry.getSingleMetric('example_gauge')).toBe(first);
    expect(registeredMetric(registry, Gauge, config)).toBe(first);
  });

  it('throws a TypeError naming a metric registered with another type', () => {
    const registry = new Registry();
    registeredMetric(registry, Counter, { name: 'example_taken', help: 'A counter' });
    expect(() => registeredMetric(registry, Gauge, { name: 'example_taken', help: 'x' })).toThrow(
      /metric example_taken is already registered with a different type/,
    );
  });
});
