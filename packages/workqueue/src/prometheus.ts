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

/** client-go's help text of each workqueue metric. */
const WORKQUEUE_METRIC_HELP: Readonly<Record<keyof typeof WORKQUEUE_METRIC_NAMES, string>> = {
  depth: 'Current depth of workqueue',
  adds: 'Total number of adds handled by workqueue',
  latency: 'How long in seconds an item stays in workqueue before being requested.',
  workDuration: 'How long in seconds processing an item from workqueue takes.',
  unfinishedWork:
    'How many seconds of work has been done that is in progress and has not been ' +
    'observed by work_duration. Large values indicate stuck threads.',
  longestRunningProcessor:
    'How many seconds has the longest running processor for workqueue been running.',
  retries: 'Total number of retries handled by workqueue',
};

/** Options of {@link PrometheusMetricsProvider}. */
export interface PrometheusMetricsProviderOptions {
  /** The registry the metrics are registered in (default: prom-client's global `register`). */
  registry?: Registry | undefined;
}

type Label = 'name';

/**
 * A {@link MetricsProvider} backed by prom-client, with client-go's metric names, help and
 * buckets; each queue is one `name` label value. Metrics already registered under these
 * names in the registry (by another provider on the same registry) are reused.
 */
export class PrometheusMetricsProvider implements MetricsProvider {
  readonly newDepthMetric: (name: string) => GaugeMetric;
  readonly newAddsMetric: (name: string) => CounterMetric;
  readonly newLatencyMetric: (name: string) => HistogramMetric;
  readonly newWorkDurationMetric: (name: string) => HistogramMetric;
  readonly newUnfinishedWorkSecondsMetric: (name: string) => SettableGaugeMetric;
  readonly newLongestRunningProcessorSecondsMetric: (name: string) => SettableGaugeMetric;
  readonly newRetriesMetric: (name: string) => CounterMetric;

  constructor(options: PrometheusMetricsProviderOptions = {}) {
    const registry = options.registry ?? register;
    const buckets = [...WORKQUEUE_DURATION_BUCKETS];
    const depth = registered(registry, Gauge<Label>, 'depth');
    const adds = registered(registry, Counter<Label>, 'adds');
    const latency = registered(registry, Histogram<Label>, 'latency', buckets);
    const workDuration = registered(registry, Histogram<Label>, 'workDuration', buckets);
    const unfinishedWork = registered(registry, Gauge<Label>, 'unfinishedWork');
    const longestRunning = registered(registry, Gauge<Label>, 'longestRunningProcessor');
    const retries = registered(registry, Counter<Label>, 'retries');
    this.newDepthMetric = perQueue(depth);
    this.newAddsMetric = perQueue(adds);
    this.newLatencyMetric = perQueue(latency);
    this.newWorkDurationMetric = perQueue(workDuration);
    this.newUnfinishedWorkSecondsMetric = perQueue(unfinishedWork);
    this.newLongestRunningProcessorSecondsMetric = perQueue(longestRunning);
    this.newRetriesMetric = perQueue(retries);
  }
}

/** Each queue is one series of `metric`: the child whose `name` label is the queue's name. */
function perQueue<M>(metric: { labels(labels: Record<Label, string>): M }): (name: string) => M {
  return (name) => metric.labels({ name });
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
  metric: keyof typeof WORKQUEUE_METRIC_NAMES,
  buckets?: number[],
): M {
  const name = WORKQUEUE_METRIC_NAMES[metric];
  const settings: MetricSettings = { name, help: WORKQUEUE_METRIC_HELP[metric] };
  if (buckets) settings.buckets = buckets;
  const existing = registry.getSingleMetric(name);
  if (existing === undefined) return new kind({ ...settings, labelNames, registers: [registry] });
  if (existing instanceof kind) return existing;
  throw new TypeError(`metric ${name} is already registered with a different type`);
}
