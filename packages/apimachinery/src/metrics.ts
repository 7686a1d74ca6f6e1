/** A count that only goes up (requests made, items added, retries). */
export interface CounterMetric {
  /** Adds one. */
  inc(): void;
}

/** A gauge that goes up and down by one (client-go workqueue's `GaugeMetric`: a queue's depth). */
export interface GaugeMetric {
  /** Adds one. */
  inc(): void;
  /** Subtracts one. */
  dec(): void;
}

/** A gauge that is set to a value (client-go's `SettableGaugeMetric`, and `cache.GaugeMetric`). */
export interface SettableGaugeMetric {
  /** Sets the gauge to `value`. */
  set(value: number): void;
}

/** Observed values, counted into buckets (client-go's `HistogramMetric`). */
export interface HistogramMetric {
  /** Records one observation. */
  observe(value: number): void;
}

/** Observed values, summarised by quantiles (client-go `cache.SummaryMetric`). */
export interface SummaryMetric {
  /** Records one observation. */
  observe(value: number): void;
}

/** A metric of every kind above whose methods do nothing. */
export type NoopMetric = CounterMetric &
  GaugeMetric &
  SettableGaugeMetric &
  HistogramMetric &
  SummaryMetric;

class NothingRecorded implements NoopMetric {
  inc(): void {}
  dec(): void {}
  set(_value: number): void {}
  observe(_value: number): void {}
}

/** The metric that records nothing, whatever its kind: what no-op providers hand out. */
export const noopMetric: NoopMetric = Object.freeze(new NothingRecorded());

const returnNoopMetric = (): NoopMetric => noopMetric;

/**
 * A metrics provider of type `P` whose every `new…` method returns {@link noopMetric}: the
 * default provider of queues, reflectors and informers, which record nothing.
 *
 * `P` is an interface of `new…Metric` factory methods, as client-go's providers are; other
 * properties are those of an empty frozen object (so `then` is `undefined`, and the
 * provider is never taken for a promise).
 */
export function noopMetricsProvider<P extends object>(): P {
  // A proxy answers every factory method, so that the provider interface is the one list of
  // its metrics and adding a metric to it needs no change here.
  return new Proxy(Object.freeze({}) as P, {
    get: (target, property) =>
      typeof property === 'string' && property.startsWith('new')
        ? returnNoopMetric
        : Reflect.get(target, property),
  });
}

/**
 * The process-wide provider of one family of metrics (client-go's `SetProvider` functions),
 * with the no-op provider it starts from.
 */
export interface MetricsProviderSetting<P> {
  /** The provider that records nothing; the setting holds it until {@link set} is called. */
  readonly noop: P;
  /** Replaces the provider used by what is created afterwards without its own provider. */
  readonly set: (provider: P) => void;
  /** The provider last {@link set} ({@link noop} until then). */
  readonly get: () => P;
  /**
   * The provider to record to: `chosen` when given, else the one {@link set}; `undefined`
   * when that is {@link noop}, so that callers allocate and record nothing.
   */
  readonly active: (chosen?: P | undefined) => P | undefined;
}

/**
 * A {@link MetricsProviderSetting} for providers of interface `P`, starting from (and
 * resettable to) `noopMetricsProvider<P>()`.
 */
export function metricsProviderSetting<P extends object>(): MetricsProviderSetting<P> {
  const noop = noopMetricsProvider<P>();
  let current = noop;
  return {
    noop,
    set: (provider) => {
      current = provider;
    },
    get: () => current,
    active: (chosen) => {
      const provider = chosen ?? current;
      return provider === noop ? undefined : provider;
    },
  };
}
