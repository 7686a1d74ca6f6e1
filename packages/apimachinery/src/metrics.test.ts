import { describe, expect, it } from 'vitest';
import {
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  metricsProviderSetting,
  noopMetric,
  noopMetricsProvider,
  type SettableGaugeMetric,
} from './metrics.js';

interface QueueLikeMetricsProvider {
  newDepthMetric(name: string): GaugeMetric;
  newAddsMetric(name: string): CounterMetric;
  newLatencyMetric(name: string): HistogramMetric;
  newLongestRunningMetric(name: string): SettableGaugeMetric;
}

describe('noopMetric', () => {
  it('accepts every call of every metric kind and cannot be changed', () => {
    expect(() => {
      noopMetric.inc();
      noopMetric.dec();
      noopMetric.set(3);
      noopMetric.observe(0.5);
    }).not.toThrow();
    expect(Object.isFrozen(noopMetric)).toBe(true);
  });
});

describe('noopMetricsProvider', () => {
  it('answers every new…Metric method with the no-op metric', () => {
    const provider = noopMetricsProvider<QueueLikeMetricsProvider>();
    expect(provider.newDepthMetric('q')).toBe(noopMetric);
    expect(provider.newAddsMetric('q')).toBe(noopMetric);
    expect(provider.newLatencyMetric('q')).toBe(noopMetric);
    expect(provider.newLongestRunningMetric('q')).toBe(noopMetric);
  });

  it('is not a thenable and keeps the behaviour of a plain object otherwise', async () => {
    const provider = noopMetricsProvider<QueueLikeMetricsProvider>();
    expect((provider as unknown as { then?: unknown }).then).toBeUndefined();
    expect(await Promise.resolve(provider)).toBe(provider);
    expect(String(provider)).toBe('[object Object]');
    expect((provider as unknown as Record<string, unknown>).depth).toBeUndefined();
  });

  it('makes a distinct provider per call', () => {
    expect(noopMetricsProvider<QueueLikeMetricsProvider>()).not.toBe(
      noopMetricsProvider<QueueLikeMetricsProvider>(),
    );
  });
});

describe('metricsProviderSetting', () => {
  const recording: QueueLikeMetricsProvider = {
    newDepthMetric: () => ({ inc: () => {}, dec: () => {} }),
    newAddsMetric: () => ({ inc: () => {} }),
    newLatencyMetric: () => ({ observe: () => {} }),
    newLongestRunningMetric: () => ({ set: () => {} }),
  };

  it('starts from its no-op provider, which makes nothing active', () => {
    const setting = metricsProviderSetting<QueueLikeMetricsProvider>();
    expect(setting.get()).toBe(setting.noop);
    expect(setting.noop.newAddsMetric('q')).toBe(noopMetric);
    expect(setting.active()).toBeUndefined();
    expect(setting.active(undefined)).toBeUndefined();
    expect(setting.active(setting.noop)).toBeUndefined();
  });

  it('prefers the provider given to the one set, and the one set to nothing', () => {
    const setting = metricsProviderSetting<QueueLikeMetricsProvider>();
    expect(setting.active(recording)).toBe(recording);
    const other: QueueLikeMetricsProvider = { ...recording };
    setting.set(other);
    expect(setting.get()).toBe(other);
    expect(setting.active()).toBe(other);
    expect(setting.active(recording)).toBe(recording);
    // A caller that asks for the no-op provider explicitly records nothing.
    expect(setting.active(setting.noop)).toBeUndefined();
  });

  it('switches metrics off again when set back to its no-op provider', () => {
    const setting = metricsProviderSetting<QueueLikeMetricsProvider>();
    setting.set(recording);
    setting.set(setting.noop);
    expect(setting.get()).toBe(setting.noop);
    expect(setting.active()).toBeUndefined();
  });

  it('keeps one setting per family', () => {
    const queues = metricsProviderSetting<QueueLikeMetricsProvider>();
    const reflectors = metricsProviderSetting<QueueLikeMetricsProvider>();
    queues.set(recording);
    expect(reflectors.get()).toBe(reflectors.noop);
    expect(reflectors.active()).toBeUndefined();
  });
});
