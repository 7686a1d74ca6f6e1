import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { newInformerName } from './identity.js';
import {
  INFORMER_METRIC_NAMES,
  PrometheusInformerMetricsProvider,
  PrometheusReflectorMetricsProvider,
  REFLECTOR_METRIC_NAMES,
} from './prometheus.js';

const registeredNames = (registry: Registry): string[] =>
  registry
    .getMetricsAsArray()
    .map((m) => m.name)
    .sort();

describe('PrometheusInformerMetricsProvider', () => {
  it("registers Kubernetes' informer metrics, labelled by name and resource, while reserved", async () => {
    const registry = new Registry();
    const provider = new PrometheusInformerMetricsProvider({ registry });
    const name = newInformerName('prom-informer');
    const id = name.withResource({ group: 'apps', version: 'v1', resource: 'deployments' });
    provider.newQueuedItemMetric(id).set(3);
    provider.newProcessingLatencyMetric(id).observe(0.002);
    const rv = provider.newStoreResourceVersionMetric(id);
    rv.set(42);
    const text = await registry.metrics();
    expect(text).toContain(
      'informer_queued_items{name="prom-informer",group="apps",version="v1",resource="deployments"} 3',
    );
    expect(text).toContain(
      'informer_processing_latency_seconds_bucket{le="0.005",name="prom-informer",group="apps",version="v1",resource="deployments"} 1',
    );
    expect(text).toContain('informer_store_resource_version{name="prom-informer"');
    name.release();
    rv.set(43); // dropped: the name was released
    expect(await registry.metrics()).toContain('resource="deployments"} 42');
    expect(registeredNames(registry)).toEqual(Object.values(INFORMER_METRIC_NAMES).sort());
    // A second provider on the same registry reuses the metrics.
    expect(() => new PrometheusInformerMetricsProvider({ registry })).not.toThrow();
  });
});

describe('PrometheusReflectorMetricsProvider', () => {
  it("registers client-go's reflector metrics with a name label", async () => {
    const registry = new Registry();
    const provider = new PrometheusReflectorMetricsProvider({ registry });
    provider.newListsMetric('pods').inc();
    provider.newItemsInListMetric('pods').observe(10);
    provider.newLastResourceVersionMetric('pods').set(7);
    const text = await registry.metrics();
    expect(text).toContain('reflector_lists_total{name="pods"} 1');
    expect(text).toContain('reflector_items_per_list_sum{name="pods"} 10');
    expect(text).toContain('reflector_last_resource_version{name="pods"} 7');
    expect(registeredNames(registry)).toEqual(Object.values(REFLECTOR_METRIC_NAMES).sort());
  });
});
