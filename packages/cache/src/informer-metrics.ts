import {
  type HistogramMetric,
  metricsProviderSetting,
  type SettableGaugeMetric,
} from '@kubets/apimachinery';
import type { InformerNameAndResource } from './identity.js';

/**
 * Creates the metrics of informers (client-go `cache.InformerMetricsProvider`), once per
 * informer identity whose {@link InformerNameAndResource.reserved} is true. The metrics it
 * returns should check `id.reserved()` before each update, so that an informer whose name
 * was released stops publishing (the Prometheus adapter in `@kubets/cache/prometheus`
 * does).
 */
export interface InformerMetricsProvider {
  /** Items queued in the informer's FIFO, waiting to be processed. */
  newQueuedItemMetric(id: InformerNameAndResource): SettableGaugeMetric;
  /** Seconds spent processing what was popped from the FIFO (the handlers included). */
  newProcessingLatencyMetric(id: InformerNameAndResource): HistogramMetric;
  /** The resourceVersion of the informer's store (its last 15 digits). */
  newStoreResourceVersionMetric(id: InformerNameAndResource): SettableGaugeMetric;
}

/** The metrics of an informer's FIFO (client-go `fifoMetrics`). */
export interface FIFOMetrics {
  /** Items queued; set after every change of the queue. */
  readonly queuedItems: SettableGaugeMetric;
  /** Seconds each pop's processing took. */
  readonly processingLatency: HistogramMetric;
}

/**
 * `make(provider, id)` with `provider` (the global one when `undefined`), or `undefined` when
 * that is the no-op provider or `id` is not reserved: then nothing is recorded or allocated.
 */
function forReserved<R>(
  id: InformerNameAndResource | undefined,
  provider: InformerMetricsProvider | undefined,
  make: (provider: InformerMetricsProvider, id: InformerNameAndResource) => R,
): R | undefined {
  const chosen = informerMetricsSetting.active(provider);
  if (chosen === undefined || id === undefined || !id.reserved()) return undefined;
  return make(chosen, id);
}

/**
 * The FIFO metrics of informer `id` (client-go `newFIFOMetrics`), or `undefined` (nothing to
 * record, nothing to pay) when `id` is not reserved or no provider is set. FIFOs call it once
 * when created.
 */
export function newFIFOMetrics(
  id: InformerNameAndResource | undefined,
  provider?: InformerMetricsProvider | undefined,
): FIFOMetrics | undefined {
  return forReserved(id, provider, (chosen, reserved) => ({
    queuedItems: chosen.newQueuedItemMetric(reserved),
    processingLatency: chosen.newProcessingLatencyMetric(reserved),
  }));
}

/**
 * The store resourceVersion metric of informer `id` (client-go `newStoreMetrics`), or
 * `undefined` when `id` is not reserved or no provider is set.
 */
export function newStoreResourceVersionMetric(
  id: InformerNameAndResource | undefined,
  provider?: InformerMetricsProvider | undefined,
): SettableGaugeMetric | undefined {
  return forReserved(id, provider, (chosen, reserved) =>
    chosen.newStoreResourceVersionMetric(reserved),
  );
}

const informerMetricsSetting = metricsProviderSetting<InformerMetricsProvider>();

/** The provider whose metrics do nothing: the default. */
export const noopInformerMetricsProvider = informerMetricsSetting.noop;

/**
 * Sets the provider used by informers and stores created afterwards without an
 * `informerMetricsProvider` option (client-go `cache.SetInformerMetricsProvider`). Pass
 * {@link noopInformerMetricsProvider} to switch metrics off again.
 */
export const setInformerMetricsProvider = informerMetricsSetting.set;

/** The provider set by {@link setInformerMetricsProvider} (the no-op one until then). */
export const getInformerMetricsProvider = informerMetricsSetting.get;
