/**
 * The prom-client adapter for workqueue metrics: `@kubets/workqueue/prometheus`.
 * Requires the optional peer dependency `prom-client` (15.x).
 *
 * ```ts
 * import { setMetricsProvider } from '@kubets/workqueue';
 * import { PrometheusMetricsProvider } from '@kubets/workqueue/prometheus';
 * setMetricsProvider(new PrometheusMetricsProvider()); // prom-client's default registry
 * ```
 * @packageDocumentation
 */
import { Counter, Gauge, Histogram, type Registry, register } from 'prom-client';
import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  MetricsProvider,
  SettableGaugeMetric,
} from './metrics.js';

/** client-go's workqueue metric names (subsystem `workqueue`, label `name`). */
export const WORKQUEUE_METRIC_NAMES = {
  depth: 'workqueue_depth',
  adds: 'workqueue_adds_total',
  latency: 'workqueue_queue_duration_seconds',
  workDuration: 'workqueue_work_duration_seconds',
  unfinishedWork: 'workqueue_unfinished_work_seconds',
  longestRunningProcessor: 'workqueue_longest_running_processor_seconds',
  retries: 'workqueue_retries_total',
} as const;

/** Histogram buckets of client-go's workqueue durations: 10 ns to 10 s, ×10 each. */
export const WORKQUEUE_DURATION_BUCKETS: readonly number[] = Array.from(
  { length: 10 },
  (_, i) => 1e-8 * 10 ** i,
);

/** Options of {@link PrometheusMetricsProvider}. */
export interface PrometheusMetricsProviderOptions {
  /** The registry the metrics are registered in (default: prom-client's global `register`). */
  registry?: Registry;
}

type Label = 'name';

/**
 * A {@link MetricsProvider} backed by prom-client, with client-go's metric names, help and
 * buckets; each queue is one `name` label value. Metrics already registered under these
 * names in the registry (by another provider on the same registry) are reused.
 */
export class PrometheusMetricsProvider implements MetricsProvider {
  readonly #depth: Gauge<Label>;
  readonly #adds: Counter<Label>;
  readonly #latency: Histogram<Label>;
  readonly #workDuration: Histogram<Label>;
  readonly #unfinishedWork: Gauge<Label>;
  readonly #longestRunning: Gauge<Label>;
  readonly #retries: Counter<Label>;

  constructor(options: PrometheusMetricsProviderOptions = {}) {
    const registry = options.registry ?? register;
    const names = WORKQUEUE_METRIC_NAMES;
    const buckets = [...WORKQUEUE_DURATION_BUCKETS];
    this.#depth = registered(registry, Gauge<Label>, {
      name: names.depth,
      help: 'Current depth of workqueue',
    });
    this.#adds = registered(registry, Counter<Label>, {
      name: names.adds,
      help: 'Total number of adds handled by workqueue',
    });
    this.#latency = registered(registry, Histogram<Label>, {
      name: names.latency,
      help: 'How long in seconds an item stays in workqueue before being requested.',
      buckets,
    });
    this.#workDuration = registered(registry, Histogram<Label>, {
      name: names.workDuration,
      help: 'How long in seconds processing an item from workqueue takes.',
      buckets,
    });
    this.#unfinishedWork = registered(registry, Gauge<Label>, {
      name: names.unfinishedWork,
      help:
        'How many seconds of work has been done that is in progress and has not been ' +
        'observed by work_duration. Large values indicate stuck threads.',
    });
    this.#longestRunning = registered(registry, Gauge<Label>, {
      name: names.longestRunningProcessor,
      help: 'How many seconds has the longest running processor for workqueue been running.',
    });
    this.#retries = registered(registry, Counter<Label>, {
      name: names.retries,
      help: 'Total number of retries handled by workqueue',
    });
  }

  newDepthMetric(name: string): GaugeMetric {
    return this.#depth.labels({ name });
  }

  newAddsMetric(name: string): CounterMetric {
    return this.#adds.labels({ name });
  }

  newLatencyMetric(name: string): HistogramMetric {
    return this.#latency.labels({ name });
  }

  newWorkDurationMetric(name: string): HistogramMetric {
    return this.#workDuration.labels({ name });
  }

  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric {
    return this.#unfinishedWork.labels({ name });
  }

  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric {
    return this.#longestRunning.labels({ name });
  }

  newRetriesMetric(name: string): CounterMetric {
    return this.#retries.labels({ name });
  }
}

interface MetricSettings {
  name: string;
  help: string;
  buckets?: number[];
}

const labelNames: readonly Label[] = ['name'];

// prom-client refuses a second registration of a name, so a metric another provider already
// registered in the registry is reused, provided it is of the same type.
function registered<M>(
  registry: Registry,
  kind: new (config: MetricSettings & { labelNames: readonly Label[]; registers: Registry[] }) => M,
  settings: MetricSettings,
): M {
  const metric = registry.getSingleMetric(settings.name);
  if (metric === undefined) return new kind({ ...settings, labelNames, registers: [registry] });
  if (metric instanceof kind) return metric;
  throw new TypeError(`metric ${settings.name} is already registered with a different type`);
}
