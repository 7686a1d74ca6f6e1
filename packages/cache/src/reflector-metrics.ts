import type { Clock } from '@kubets/apimachinery';

/** A value that is set (client-go `cache.GaugeMetric`). */
export interface GaugeMetric {
  /** Sets the gauge to `value`. */
  set(value: number): void;
}

/** A count that only goes up (client-go `cache.CounterMetric`). */
export interface CounterMetric {
  /** Adds one. */
  inc(): void;
}

/** Observed values, summarised by quantiles (client-go `cache.SummaryMetric`). */
export interface SummaryMetric {
  /** Records one observation. */
  observe(value: number): void;
}

/** Observed values, counted into buckets (client-go `cache.HistogramMetric`). */
export interface HistogramMetric {
  /** Records one observation. */
  observe(value: number): void;
}

/**
 * Creates the metrics of one named reflector (client-go `cache.MetricsProvider`). Every
 * method is called once per reflector, with the reflector's name; a provider serving several
 * reflectors should label the series by that name. The Prometheus adapter in
 * `@kubets/cache/prometheus` uses the `reflector_*` names client-go's provider had.
 */
export interface ReflectorMetricsProvider {
  /** Lists made (a streaming list counts as one). */
  newListsMetric(name: string): CounterMetric;
  /** Seconds each list took, from its first request to the store holding its result. */
  newListDurationMetric(name: string): SummaryMetric;
  /** Objects each list returned. */
  newItemsInListMetric(name: string): SummaryMetric;
  /** Watches started. */
  newWatchesMetric(name: string): CounterMetric;
  /** Watches that ended within a second with no event (a `VeryShortWatchError`). */
  newShortWatchesMetric(name: string): CounterMetric;
  /** Seconds each watch lasted. */
  newWatchDurationMetric(name: string): SummaryMetric;
  /** Events each watch delivered. */
  newItemsInWatchMetric(name: string): SummaryMetric;
  /** The last resourceVersion the reflector saw, as a number (when it is one). */
  newLastResourceVersionMetric(name: string): GaugeMetric;
}

const noop = (): void => {};
const noopMetric: GaugeMetric & CounterMetric & SummaryMetric = {
  inc: noop,
  set: noop,
  observe: noop,
};

/** The provider whose metrics do nothing: the default. Reflectors given it keep no metric state. */
export const noopReflectorMetricsProvider: ReflectorMetricsProvider = {
  newListsMetric: () => noopMetric,
  newListDurationMetric: () => noopMetric,
  newItemsInListMetric: () => noopMetric,
  newWatchesMetric: () => noopMetric,
  newShortWatchesMetric: () => noopMetric,
  newWatchDurationMetric: () => noopMetric,
  newItemsInWatchMetric: () => noopMetric,
  newLastResourceVersionMetric: () => noopMetric,
};

let globalReflectorProvider: ReflectorMetricsProvider = noopReflectorMetricsProvider;

/**
 * Sets the provider used by reflectors created afterwards without a `metricsProvider` option
 * (client-go `cache.SetReflectorMetricsProvider`). Pass {@link noopReflectorMetricsProvider}
 * to switch metrics off again.
 */
export function setReflectorMetricsProvider(provider: ReflectorMetricsProvider): void {
  globalReflectorProvider = provider;
}

/** The provider set by {@link setReflectorMetricsProvider} (the no-op one until then). */
export function getReflectorMetricsProvider(): ReflectorMetricsProvider {
  return globalReflectorProvider;
}

/**
 * The metrics of one reflector. Internal: a reflector creates it only when a provider other
 * than the no-op one is set, so that reflectors without metrics pay nothing.
 * @internal
 */
export class ReflectorMetrics {
  readonly #clock: Clock;
  readonly #lists: CounterMetric;
  readonly #listDuration: SummaryMetric;
  readonly #itemsInList: SummaryMetric;
  readonly #watches: CounterMetric;
  readonly #shortWatches: CounterMetric;
  readonly #watchDuration: SummaryMetric;
  readonly #itemsInWatch: SummaryMetric;
  readonly #lastResourceVersion: GaugeMetric;

  constructor(name: string, provider: ReflectorMetricsProvider, clock: Clock) {
    this.#clock = clock;
    this.#lists = provider.newListsMetric(name);
    this.#listDuration = provider.newListDurationMetric(name);
    this.#itemsInList = provider.newItemsInListMetric(name);
    this.#watches = provider.newWatchesMetric(name);
    this.#shortWatches = provider.newShortWatchesMetric(name);
    this.#watchDuration = provider.newWatchDurationMetric(name);
    this.#itemsInWatch = provider.newItemsInWatchMetric(name);
    this.#lastResourceVersion = provider.newLastResourceVersionMetric(name);
  }

  /** A list that started at `startedMs` (clock time) stored `items` objects. */
  listed(startedMs: number, items: number): void {
    this.#lists.inc();
    this.#listDuration.observe((this.#clock.now() - startedMs) / 1000);
    this.#itemsInList.observe(items);
  }

  /** A watch request is being made. */
  watchStarted(): void {
    this.#watches.inc();
  }

  /** A watch that started at `startedMs` ended after `events` events. */
  watchEnded(startedMs: number, events: number, short: boolean): void {
    if (short) this.#shortWatches.inc();
    this.#watchDuration.observe((this.#clock.now() - startedMs) / 1000);
    this.#itemsInWatch.observe(events);
  }

  /** The reflector's last resourceVersion is now `rv` (ignored unless it is a number). */
  resourceVersion(rv: string): void {
    const value = resourceVersionMetricValue(rv);
    if (value !== undefined) this.#lastResourceVersion.set(value);
  }
}

/**
 * A resourceVersion as a metric value: its last 15 digits (so that it stays exact as a
 * double, as client-go's store metric does), or `undefined` when it is not a decimal number.
 * @internal
 */
export function resourceVersionMetricValue(rv: string): number | undefined {
  if (rv === '') return 0;
  const digits = rv.length > 15 ? rv.slice(-15) : rv;
  if (!/^[+-]?\d+$/.test(digits)) return undefined;
  return Number(digits);
}

/** The metrics of a reflector named `name`, or `undefined` when no provider is set. @internal */
export function newReflectorMetrics(
  name: string,
  provider: ReflectorMetricsProvider | undefined,
  clock: Clock,
): ReflectorMetrics | undefined {
  const chosen = provider ?? globalReflectorProvider;
  if (chosen === noopReflectorMetricsProvider) return undefined;
  return new ReflectorMetrics(name, chosen, clock);
}
