import {
  type Clock,
  type CounterMetric as Counter,
  metricsProviderSetting,
  type SettableGaugeMetric,
  type SummaryMetric as Summary,
} from '@kubets/apimachinery';

/**
 * Creates the metrics of one named reflector (client-go `cache.MetricsProvider`). Every
 * method is called once per reflector, with the reflector's name; a provider serving several
 * reflectors should label the series by that name. The Prometheus adapter in
 * `@kubets/cache/prometheus` uses the `reflector_*` names client-go's provider had.
 */
export interface ReflectorMetricsProvider {
  /** Lists made (a streaming list counts as one). */
  newListsMetric(name: string): Counter;
  /** Seconds each list took, from its first request to the store holding its result. */
  newListDurationMetric(name: string): Summary;
  /** Objects each list returned. */
  newItemsInListMetric(name: string): Summary;
  /** Watches started. */
  newWatchesMetric(name: string): Counter;
  /** Watches that ended within a second with no event (a `VeryShortWatchError`). */
  newShortWatchesMetric(name: string): Counter;
  /** Seconds each watch lasted. */
  newWatchDurationMetric(name: string): Summary;
  /** Events each watch delivered. */
  newItemsInWatchMetric(name: string): Summary;
  /** The last resourceVersion the reflector saw, as a number (when it is one). */
  newLastResourceVersionMetric(name: string): SettableGaugeMetric;
}

/**
 * The metrics of one reflector. Internal: a reflector creates it only when a provider other
 * than the no-op one is set, so that reflectors without metrics pay nothing.
 * @internal
 */
export class ReflectorMetrics {
  readonly #clock: Clock;
  readonly #metrics: ReturnType<typeof createReflectorMetrics>;

  constructor(name: string, provider: ReflectorMetricsProvider, clock: Clock) {
    this.#clock = clock;
    this.#metrics = createReflectorMetrics(name, provider);
  }

  /** A list that started at `startedMs` (clock time) stored `items` objects. */
  listed(startedMs: number, items: number): void {
    this.#metrics.lists.inc();
    this.#metrics.listDuration.observe((this.#clock.now() - startedMs) / 1000);
    this.#metrics.itemsInList.observe(items);
  }

  /** A watch request is being made. */
  watchStarted(): void {
    this.#metrics.watches.inc();
  }

  /** A watch that started at `startedMs` ended after `events` events. */
  watchEnded(startedMs: number, events: number, short: boolean): void {
    if (short) this.#metrics.shortWatches.inc();
    this.#metrics.watchDuration.observe((this.#clock.now() - startedMs) / 1000);
    this.#metrics.itemsInWatch.observe(events);
  }

  /** The reflector's last resourceVersion is now `rv` (ignored unless it is a number). */
  resourceVersion(rv: string): void {
    const value = resourceVersionMetricValue(rv);
    if (value !== undefined) this.#metrics.lastResourceVersion.set(value);
  }
}

/** Every metric of the reflector named `name`, created once when the reflector is. */
function createReflectorMetrics(name: string, provider: ReflectorMetricsProvider) {
  return {
    lists: provider.newListsMetric(name),
    listDuration: provider.newListDurationMetric(name),
    itemsInList: provider.newItemsInListMetric(name),
    watches: provider.newWatchesMetric(name),
    shortWatches: provider.newShortWatchesMetric(name),
    watchDuration: provider.newWatchDurationMetric(name),
    itemsInWatch: provider.newItemsInWatchMetric(name),
    lastResourceVersion: provider.newLastResourceVersionMetric(name),
  };
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
  const chosen = reflectorMetricsSetting.active(provider);
  return chosen && new ReflectorMetrics(name, chosen, clock);
}

const reflectorMetricsSetting = metricsProviderSetting<ReflectorMetricsProvider>();

/** The provider whose metrics do nothing: the default. Reflectors given it keep no metric state. */
export const noopReflectorMetricsProvider = reflectorMetricsSetting.noop;

/**
 * Sets the provider used by reflectors created afterwards without a `metricsProvider` option
 * (client-go `cache.SetReflectorMetricsProvider`). Pass {@link noopReflectorMetricsProvider}
 * to switch metrics off again.
 */
export const setReflectorMetricsProvider = reflectorMetricsSetting.set;

/** The provider set by {@link setReflectorMetricsProvider} (the no-op one until then). */
export const getReflectorMetricsProvider = reflectorMetricsSetting.get;
