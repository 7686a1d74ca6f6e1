/**
 * The prom-client adapter for informer and reflector metrics: `@kubets/cache/prometheus`.
 * Requires the optional peer dependency `prom-client` (15.x).
 *
 * ```ts
 * import { setInformerMetricsProvider, setReflectorMetricsProvider } from '@kubets/cache';
 * import {
 *   PrometheusInformerMetricsProvider,
 *   PrometheusReflectorMetricsProvider,
 * } from '@kubets/cache/prometheus';
 * setInformerMetricsProvider(new PrometheusInformerMetricsProvider()); // prom-client's default registry
 * setReflectorMetricsProvider(new PrometheusReflectorMetricsProvider());
 * ```
 * @packageDocumentation
 */
import type { HistogramMetric, SettableGaugeMetric } from '@kubets/apimachinery';
import {
  metricSpecsOf,
  type PrometheusProviderClass,
  type PrometheusProviderOptions,
  perNameMetricsProvider,
  registeredMetric,
} from '@kubets/apimachinery/prometheus';
import { Gauge, Histogram, register } from 'prom-client';
import type { InformerNameAndResource } from './identity.js';
import type { InformerMetricsProvider } from './informer-metrics.js';
import type { ReflectorMetricsProvider } from './reflector-metrics.js';

/** The informer metric names of Kubernetes' client-go metrics (subsystem `informer`). */
export const INFORMER_METRIC_NAMES = {
  queuedItems: 'informer_queued_items',
  processingLatency: 'informer_processing_latency_seconds',
  storeResourceVersion: 'informer_store_resource_version',
} as const;

/** The reflector metric names of client-go's reflector metrics provider (label `name`). */
export const REFLECTOR_METRIC_NAMES = {
  lists: 'reflector_lists_total',
  listDuration: 'reflector_list_duration_seconds',
  itemsInList: 'reflector_items_per_list',
  watches: 'reflector_watches_total',
  shortWatches: 'reflector_short_watches_total',
  watchDuration: 'reflector_watch_duration_seconds',
  itemsInWatch: 'reflector_items_per_watch',
  lastResourceVersion: 'reflector_last_resource_version',
} as const;

/** Buckets of `informer_processing_latency_seconds`, in seconds, as Kubernetes sets them. */
export const INFORMER_PROCESSING_LATENCY_BUCKETS: readonly number[] = [
  0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

const INFORMER_METRIC_HELP: Readonly<Record<keyof typeof INFORMER_METRIC_NAMES, string>> = {
  queuedItems: 'Number of items currently queued in the FIFO.',
  processingLatency: 'Time taken to process events after popping from the queue.',
  storeResourceVersion: 'The 15 least significant digits of the resource version of the store.',
};

const REFLECTOR_METRIC_HELP: Readonly<Record<keyof typeof REFLECTOR_METRIC_NAMES, string>> = {
  lists: 'Total number of API lists done by the reflectors',
  listDuration: 'How long an API list takes to return and decode for the reflectors',
  itemsInList: 'How many items an API list returns to the reflectors',
  watches: 'Total number of API watches done by the reflectors',
  shortWatches: 'Total number of short API watches done by the reflectors',
  watchDuration: 'How long an API watch takes to return and decode for the reflectors',
  itemsInWatch: 'How many items an API watch returns to the reflectors',
  lastResourceVersion: 'Last resource version seen for the reflectors',
};

type InformerLabel = 'name' | 'group' | 'version' | 'resource';
const informerLabels: readonly InformerLabel[] = ['name', 'group', 'version', 'resource'];

/**
 * An {@link InformerMetricsProvider} backed by prom-client, with Kubernetes' names, help and
 * buckets, labelled by the informer's name, group, version and resource. Updates are dropped
 * once the identity is no longer reserved (its name released).
 */
export class PrometheusInformerMetricsProvider implements InformerMetricsProvider {
  readonly #queuedItems: Gauge<InformerLabel>;
  readonly #processingLatency: Histogram<InformerLabel>;
  readonly #storeResourceVersion: Gauge<InformerLabel>;

  constructor(options: PrometheusProviderOptions = {}) {
    const registry = options.registry ?? register;
    const metric = <K extends keyof typeof INFORMER_METRIC_NAMES>(key: K) => ({
      name: INFORMER_METRIC_NAMES[key],
      help: INFORMER_METRIC_HELP[key],
      labelNames: informerLabels,
    });
    this.#queuedItems = registeredMetric(registry, Gauge<InformerLabel>, metric('queuedItems'));
    this.#processingLatency = registeredMetric(registry, Histogram<InformerLabel>, {
      ...metric('processingLatency'),
      buckets: [...INFORMER_PROCESSING_LATENCY_BUCKETS],
    });
    this.#storeResourceVersion = registeredMetric(
      registry,
      Gauge<InformerLabel>,
      metric('storeResourceVersion'),
    );
  }

  newQueuedItemMetric(id: InformerNameAndResource): SettableGaugeMetric {
    return whileReserved(id, this.#queuedItems.labels(labelsOf(id)));
  }

  newProcessingLatencyMetric(id: InformerNameAndResource): HistogramMetric {
    const child = this.#processingLatency.labels(labelsOf(id));
    return { observe: (value) => id.reserved() && child.observe(value) };
  }

  newStoreResourceVersionMetric(id: InformerNameAndResource): SettableGaugeMetric {
    return whileReserved(id, this.#storeResourceVersion.labels(labelsOf(id)));
  }
}

function labelsOf(id: InformerNameAndResource): Record<InformerLabel, string> {
  const { group, version, resource } = id.groupVersionResource;
  return { name: id.name, group, version, resource };
}

function whileReserved(
  id: InformerNameAndResource,
  gauge: { set(v: number): void },
): SettableGaugeMetric {
  return { set: (value) => id.reserved() && gauge.set(value) };
}

const reflectorMetric = metricSpecsOf(REFLECTOR_METRIC_NAMES, REFLECTOR_METRIC_HELP);

/**
 * A {@link ReflectorMetricsProvider} backed by prom-client, with client-go's reflector
 * metric names and help; each reflector is one `name` label value. Metrics already
 * registered under these names in the registry are reused; a metric of another type under
 * one of the names is refused with a `TypeError`.
 *
 * `new PrometheusReflectorMetricsProvider({ registry })`, or with no options for
 * prom-client's global registry.
 */
export const PrometheusReflectorMetricsProvider: PrometheusProviderClass<ReflectorMetricsProvider> =
  perNameMetricsProvider<ReflectorMetricsProvider>({
    newListsMetric: reflectorMetric('counter', 'lists'),
    newListDurationMetric: reflectorMetric('summary', 'listDuration'),
    newItemsInListMetric: reflectorMetric('summary', 'itemsInList'),
    newWatchesMetric: reflectorMetric('counter', 'watches'),
    newShortWatchesMetric: reflectorMetric('counter', 'shortWatches'),
    newWatchDurationMetric: reflectorMetric('summary', 'watchDuration'),
    newItemsInWatchMetric: reflectorMetric('summary', 'itemsInWatch'),
    newLastResourceVersionMetric: reflectorMetric('gauge', 'lastResourceVersion'),
  });

/** A provider made by {@link PrometheusReflectorMetricsProvider}: a {@link ReflectorMetricsProvider}. */
export type PrometheusReflectorMetricsProvider = ReflectorMetricsProvider;
