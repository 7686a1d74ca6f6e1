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
import type { GaugeMetric } from '@kubets/apimachinery';
import {
  metricSpecsOf,
  type PrometheusProviderClass,
  type PrometheusProviderOptions,
  perNameMetricsProvider,
  registeredMetric,
} from '@kubets/apimachinery/prometheus';
import { Gauge, register } from 'prom-client';
import type { DepthMetricWithPriority, MetricsProvider } from './metrics.js';

/**
 * client-go's workqueue metric names (subsystem `workqueue`, label `name`; the depth of a
 * priority queue also has controller-runtime's label `priority`).
 */
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

const workqueueMetric = metricSpecsOf(WORKQUEUE_METRIC_NAMES, WORKQUEUE_METRIC_HELP);

/**
 * controller-runtime's bound on the distinct priorities a depth reports: beyond it, every
 * priority is reported under {@link PRIORITY_CARDINALITY_EXCEEDED}.
 */
export const MAX_REPORTED_PRIORITIES = 25;

/** The `priority` label of a depth that has seen more than {@link MAX_REPORTED_PRIORITIES}. */
export const PRIORITY_CARDINALITY_EXCEEDED = 'exceeded_cardinality_limit';

type DepthLabel = 'name' | 'priority';
const depthLabels: readonly DepthLabel[] = ['name', 'priority'];

/** One queue's depth by priority, with controller-runtime's bound on the label's values. */
class DepthByPriority implements DepthMetricWithPriority {
  readonly #depth: Gauge<DepthLabel>;
  readonly #name: string;
  #seen: Set<number> | undefined = new Set();

  constructor(depth: Gauge<DepthLabel>, name: string) {
    this.#depth = depth;
    this.#name = name;
  }

  inc(priority: number): void {
    this.#depth.inc({ name: this.#name, priority: this.#label(priority) });
  }

  dec(priority: number): void {
    this.#depth.dec({ name: this.#name, priority: this.#label(priority) });
  }

  #label(priority: number): string {
    if (this.#seen === undefined) return PRIORITY_CARDINALITY_EXCEEDED;
    this.#seen.add(priority);
    if (this.#seen.size <= MAX_REPORTED_PRIORITIES) return String(priority);
    this.#seen = undefined;
    return PRIORITY_CARDINALITY_EXCEEDED;
  }
}

const PerNamePrometheusProvider = perNameMetricsProvider<
  Omit<MetricsProvider, 'newDepthMetric' | 'newDepthMetricWithPriority'>
>({
  newAddsMetric: workqueueMetric('counter', 'adds'),
  newLatencyMetric: workqueueMetric('histogram', 'latency', WORKQUEUE_DURATION_BUCKETS),
  newWorkDurationMetric: workqueueMetric('histogram', 'workDuration', WORKQUEUE_DURATION_BUCKETS),
  newUnfinishedWorkSecondsMetric: workqueueMetric('gauge', 'unfinishedWork'),
  newLongestRunningProcessorSecondsMetric: workqueueMetric('gauge', 'longestRunningProcessor'),
  newRetriesMetric: workqueueMetric('counter', 'retries'),
});

/**
 * A {@link MetricsProvider} backed by prom-client, with client-go's metric names, help and
 * buckets; each queue is one `name` label value. A priority queue's depth is reported per
 * priority too (the `priority` label, as controller-runtime does); the other queues' depth
 * series have no `priority` label. Metrics already registered under these names in the
 * registry (by another provider on the same registry) are reused; a metric of another type
 * under one of the names is refused with a `TypeError`.
 *
 * `new PrometheusMetricsProvider({ registry })`, or with no options for prom-client's global
 * registry.
 */
export const PrometheusMetricsProvider: PrometheusProviderClass<MetricsProvider> = class
  extends PerNamePrometheusProvider
  implements MetricsProvider
{
  readonly #depth: Gauge<DepthLabel>;

  constructor(options: PrometheusProviderOptions = {}) {
    super(options);
    const { name, help } = workqueueMetric('gauge', 'depth');
    this.#depth = registeredMetric(options.registry ?? register, Gauge<DepthLabel>, {
      name,
      help,
      labelNames: depthLabels,
    });
  }

  newDepthMetric(name: string): GaugeMetric {
    return this.#depth.labels({ name });
  }

  newDepthMetricWithPriority(name: string): DepthMetricWithPriority {
    return new DepthByPriority(this.#depth, name);
  }
};

/** A provider made by {@link PrometheusMetricsProvider}: a {@link MetricsProvider}. */
export type PrometheusMetricsProvider = MetricsProvider;
