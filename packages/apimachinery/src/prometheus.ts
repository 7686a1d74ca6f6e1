/**
 * The prom-client building blocks of the `@kubets` Prometheus adapters
 * (`@kubets/workqueue/prometheus`, `@kubets/cache/prometheus`):
 * `@kubets/apimachinery/prometheus`. Requires the optional peer dependency `prom-client`
 * (15.x); the main entry of `@kubets/apimachinery` never loads it.
 *
 * ```ts
 * import type { CounterMetric } from '@kubets/apimachinery';
 * import { perNameMetricsProvider } from '@kubets/apimachinery/prometheus';
 *
 * interface RequestMetricsProvider {
 *   newRequestsMetric(name: string): CounterMetric;
 * }
 * const PrometheusRequestMetricsProvider = perNameMetricsProvider<RequestMetricsProvider>({
 *   newRequestsMetric: { type: 'counter', name: 'requests_total', help: 'Requests made' },
 * });
 * new PrometheusRequestMetricsProvider().newRequestsMetric('pods').inc();
 * ```
 * @packageDocumentation
 */
import { Counter, Gauge, Histogram, type Registry, register, Summary } from 'prom-client';
import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  SettableGaugeMetric,
  SummaryMetric,
} from './metrics.js';

/** Options of the Prometheus metrics providers. */
export interface PrometheusProviderOptions {
  /** The registry the metrics are registered in (default: prom-client's global `register`). */
  registry?: Registry | undefined;
}

/**
 * The metric called `config.name` in `registry`: the one already registered there (by another
 * provider on the same registry), or a new `kind` registered with `config`.
 *
 * @throws {TypeError} when a metric of another type holds the name in `registry`.
 */
export function registeredMetric<M, C extends { name: string }>(
  registry: Registry,
  kind: new (config: C & { registers: Registry[] }) => M,
  config: C,
): M {
  // prom-client refuses a second registration of a name: reuse it, provided its type matches.
  const existing = registry.getSingleMetric(config.name);
  if (existing === undefined) return new kind({ ...config, registers: [registry] });
  if (existing instanceof kind) return existing;
  throw new TypeError(`metric ${config.name} is already registered with a different type`);
}

/** The metric types of prom-client a {@link PerNameMetricSpec} can ask for. */
export type PrometheusMetricType = 'counter' | 'gauge' | 'histogram' | 'summary';

/** What one series of each {@link PrometheusMetricType} can do. */
export interface PrometheusSeriesOf {
  /** A counter's series. */
  counter: CounterMetric;
  /** A gauge's series: set, or moved by one. */
  gauge: GaugeMetric & SettableGaugeMetric;
  /** A histogram's series. */
  histogram: HistogramMetric;
  /** A summary's series. */
  summary: SummaryMetric;
}

/** One metric of a provider made by {@link perNameMetricsProvider}. */
export interface PerNameMetricSpec<T extends PrometheusMetricType = PrometheusMetricType> {
  /** The prom-client type of the metric. */
  readonly type: T;
  /** The metric's name, e.g. `workqueue_depth`. */
  readonly name: string;
  /** The metric's help text. */
  readonly help: string;
  /** Histogram buckets (prom-client's defaults when absent). */
  readonly buckets?: readonly number[] | undefined;
}

/**
 * The spec maker of a family of metrics whose names and help texts are two tables with the
 * same keys: `spec(type, key, buckets?)` is the {@link PerNameMetricSpec} of metric `key`.
 */
export function metricSpecsOf<K extends string>(
  names: Readonly<Record<K, string>>,
  help: Readonly<Record<K, string>>,
): <T extends PrometheusMetricType>(
  type: T,
  key: K,
  buckets?: readonly number[] | undefined,
) => PerNameMetricSpec<T> {
  return (type, key, buckets) => ({ type, name: names[key], help: help[key], buckets });
}

/** The metric types whose series can stand for a metric interface `M`. */
type TypesServing<M> = {
  [T in PrometheusMetricType]: PrometheusSeriesOf[T] extends M ? T : never;
}[PrometheusMetricType];

/**
 * One {@link PerNameMetricSpec} for each method of the provider interface `P`, of a type
 * whose series has what that method returns (a counter cannot stand for a gauge).
 */
export type PerNameMetricSpecs<P> = {
  [K in keyof P]-?: P[K] extends (name: string) => infer M
    ? PerNameMetricSpec<TypesServing<M>>
    : never;
};

/** A constructor of prom-client-backed providers of interface `P`. */
export type PrometheusProviderClass<P> = new (options?: PrometheusProviderOptions) => P;

/** The label each series of a {@link perNameMetricsProvider} provider is told apart by. */
export type NameLabel = 'name';

const nameLabel: readonly NameLabel[] = ['name'];

interface NamedMetric {
  labels(labels: Record<NameLabel, string>): unknown;
}
type NamedMetricKind = new (config: {
  name: string;
  help: string;
  labelNames: readonly NameLabel[];
  buckets?: number[];
  registers: Registry[];
}) => NamedMetric;
const kinds: Record<PrometheusMetricType, NamedMetricKind> = {
  counter: Counter,
  gauge: Gauge,
  histogram: Histogram,
  summary: Summary,
};

/**
 * A class of metrics providers of interface `P` (client-go's `MetricsProvider` shape: each
 * method takes the name of what is measured and returns its metric) backed by prom-client.
 * A provider registers every metric of `specs` in its registry when created (reusing those
 * already there, see {@link registeredMetric}); method `m(name)` returns the series of
 * `specs.m` whose `name` label is `name`.
 */
export function perNameMetricsProvider<P>(
  specs: PerNameMetricSpecs<P>,
): PrometheusProviderClass<P> {
  const entries = Object.entries<PerNameMetricSpec>(specs);
  return class PerNamePrometheusMetricsProvider {
    constructor(options: PrometheusProviderOptions = {}) {
      const registry = options.registry ?? register;
      for (const [method, { type, buckets, ...described }] of entries) {
        const metric = registeredMetric(registry, kinds[type], {
          ...described,
          labelNames: nameLabel,
          ...(buckets && { buckets: [...buckets] }),
        });
        Object.defineProperty(this, method, {
          value: (name: string) => metric.labels({ name }),
          enumerable: true,
        });
      }
    }
  } as unknown as PrometheusProviderClass<P>;
}
