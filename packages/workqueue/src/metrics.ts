import {
  type Clock,
  type ClockTimer,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  metricsProviderSetting,
  type SettableGaugeMetric,
} from '@kubets/apimachinery';

/**
 * Creates the metrics of one named queue, as client-go's `MetricsProvider`. Every method is
 * called once per queue, with the queue's name; a provider serving several queues should
 * label the series by that name. The Prometheus adapter in `@kubets/workqueue/prometheus`
 * uses client-go's metric names.
 *
 * Values observed or set are seconds.
 */
export interface MetricsProvider {
  /** Items waiting in the queue (added and not yet handed out by `get`). */
  newDepthMetric(name: string): GaugeMetric;
  /** Adds the queue accepted (duplicates of a waiting item are not counted). */
  newAddsMetric(name: string): CounterMetric;
  /** Seconds from an item's first add to `get` handing it out. */
  newLatencyMetric(name: string): HistogramMetric;
  /** Seconds from `get` handing an item out to `done`. */
  newWorkDurationMetric(name: string): HistogramMetric;
  /** Sum of the seconds every item in processing has been processed so far (updated periodically). */
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric;
  /** Seconds the longest-running item in processing has been processed so far (updated periodically). */
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric;
  /** Calls to `addAfter` (and so `addRateLimited`) the delaying queue accepted. */
  newRetriesMetric(name: string): CounterMetric;
  /**
   * Optional: the depth of a priority queue by priority (controller-runtime's
   * `MetricsProviderWithPriority`). The priority queue uses it when the provider has it,
   * {@link MetricsProvider.newDepthMetric} (every priority in one gauge) otherwise; the other
   * queues never call it.
   */
  newDepthMetricWithPriority?(name: string): DepthMetricWithPriority;
}

/** A queue's depth told apart by priority (controller-runtime's `DepthMetricWithPriority`). */
export interface DepthMetricWithPriority {
  /** One more item waiting at `priority`. */
  inc(priority: number): void;
  /** One item fewer waiting at `priority`. */
  dec(priority: number): void;
}

const queueMetricsSetting = metricsProviderSetting<MetricsProvider>();

/** The provider whose metrics do nothing: the default. Queues given it keep no metric state. */
export const noopQueueMetricsProvider = queueMetricsSetting.noop;

/**
 * Sets the provider used by queues created afterwards without a `metricsProvider` option
 * (client-go's `workqueue.SetProvider`). Queues without a name never record metrics.
 * Pass {@link noopQueueMetricsProvider} to switch metrics off again.
 */
export const setMetricsProvider = queueMetricsSetting.set;

/** The provider set by {@link setMetricsProvider} ({@link noopQueueMetricsProvider} until then). */
export const getMetricsProvider = queueMetricsSetting.get;

/** How often unfinished-work and longest-running gauges are refreshed, as in client-go. */
export const UNFINISHED_WORK_UPDATE_PERIOD_MS = 500;

/** A plain depth gauge as a depth by priority that adds every priority up. */
function priorityBlind(depth: GaugeMetric): DepthMetricWithPriority {
  // Never pass the priority on: prom-client's `inc(n)` would take it for an amount.
  return { inc: () => depth.inc(), dec: () => depth.dec() };
}

/**
 * The per-queue bookkeeping behind the metrics. Internal: queues create it only when they
 * have a name and a provider other than the no-op one.
 * @internal
 */
export class QueueMetrics<T> {
  readonly #clock: Clock;
  readonly #depth: DepthMetricWithPriority;
  readonly #adds: CounterMetric;
  readonly #latency: HistogramMetric;
  readonly #workDuration: HistogramMetric;
  readonly #unfinished: SettableGaugeMetric;
  readonly #longestRunning: SettableGaugeMetric;
  readonly #addTimes = new Map<T, number>();
  readonly #processingStartTimes = new Map<T, number>();
  #timer: ClockTimer | undefined;

  /** @param byPriority - whether depth is reported by priority when the provider can. */
  constructor(name: string, provider: MetricsProvider, clock: Clock, byPriority = false) {
    this.#clock = clock;
    this.#depth =
      (byPriority ? provider.newDepthMetricWithPriority?.(name) : undefined) ??
      priorityBlind(provider.newDepthMetric(name));
    this.#adds = provider.newAddsMetric(name);
    this.#latency = provider.newLatencyMetric(name);
    this.#workDuration = provider.newWorkDurationMetric(name);
    this.#unfinished = provider.newUnfinishedWorkSecondsMetric(name);
    this.#longestRunning = provider.newLongestRunningProcessorSecondsMetric(name);
  }

  /** `item` is waiting now (at `priority` in a priority queue). */
  add(item: T, priority = 0): void {
    this.#adds.inc();
    this.#depth.inc(priority);
    if (!this.#addTimes.has(item)) this.#addTimes.set(item, this.#clock.now());
  }

  /** `get` handed `item` (waiting at `priority`) out. */
  get(item: T, priority = 0): void {
    const now = this.#clock.now();
    this.#depth.dec(priority);
    const addedAt = this.#addTimes.get(item);
    if (addedAt !== undefined) {
      this.#latency.observe((now - addedAt) / 1000);
      this.#addTimes.delete(item);
    }
    this.#processingStartTimes.set(item, now);
  }

  /** A waiting item moved from one priority to another. */
  changePriority(from: number, to: number): void {
    this.#depth.dec(from);
    this.#depth.inc(to);
  }

  done(item: T): void {
    const startedAt = this.#processingStartTimes.get(item);
    if (startedAt !== undefined) {
      this.#workDuration.observe((this.#clock.now() - startedAt) / 1000);
      this.#processingStartTimes.delete(item);
    }
  }

  updateUnfinishedWork(): void {
    const now = this.#clock.now();
    let total = 0;
    let oldest = 0;
    for (const startedAt of this.#processingStartTimes.values()) {
      const ms = now - startedAt;
      total += ms;
      if (ms > oldest) oldest = ms;
    }
    this.#unfinished.set(total / 1000);
    this.#longestRunning.set(oldest / 1000);
  }

  /** Starts refreshing the unfinished-work gauges every 500 ms until {@link stop}. */
  start(): void {
    const tick = (): void => {
      this.updateUnfinishedWork();
      this.#arm(tick);
    };
    this.#arm(tick);
  }

  #arm(tick: () => void): void {
    this.#timer = this.#clock.setTimeout(tick, UNFINISHED_WORK_UPDATE_PERIOD_MS);
    // A forgotten queue must not keep the process alive for its metrics.
    this.#timer.unref?.();
  }

  stop(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }
}

/** Options common to every queue constructor and factory. */
export interface QueueOptions {
  /**
   * The queue's name, used as the `name` label of its metrics. Metrics are recorded only for
   * named queues.
   */
  name?: string | undefined;
  /**
   * Time source and timers; `realClock` by default, a `FakeClock` from
   * `@kubets/apimachinery/testing` in tests.
   */
  clock?: Clock | undefined;
  /** Where metrics go; the provider set by {@link setMetricsProvider} by default (no-op). */
  metricsProvider?: MetricsProvider | undefined;
}

/**
 * @internal The provider a queue with these options records to, or `undefined` when it
 * records nothing (no name, or the no-op provider).
 */
export function activeProvider(options: QueueOptions): MetricsProvider | undefined {
  return options.name ? queueMetricsSetting.active(options.metricsProvider) : undefined;
}
