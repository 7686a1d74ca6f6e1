import {
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  metricsProviderSetting,
} from '@kubets/apimachinery';

/**
 * Where a {@link WebhookServer} records its requests: controller-runtime's webhook metrics
 * (`controller_runtime_webhook_requests_total`, `..._latency_seconds`,
 * `..._requests_in_flight`), each series per webhook path. The prom-client adapter is
 * `PrometheusWebhookMetricsProvider` of `@kubets/webhook/prometheus`.
 */
export interface WebhookMetricsProvider {
  /** Requests served on `webhook` (a path) answered with HTTP `code`. */
  newRequestsMetric(webhook: string, code: string): CounterMetric;
  /** Seconds taken to answer a request on `webhook`. */
  newLatencyMetric(webhook: string): HistogramMetric;
  /** Requests on `webhook` being served now. */
  newInFlightMetric(webhook: string): GaugeMetric;
}

const setting = metricsProviderSetting<WebhookMetricsProvider>();

/**
 * Sets the metrics provider of webhook servers created afterwards without one of their own
 * (as `setMetricsProvider` of `@kubets/workqueue`).
 */
export function setWebhookMetricsProvider(provider: WebhookMetricsProvider): void {
  setting.set(provider);
}

/** @internal The provider a server records to (`undefined`: record nothing). */
export function activeWebhookMetricsProvider(
  chosen?: WebhookMetricsProvider,
): WebhookMetricsProvider | undefined {
  return setting.active(chosen);
}

/** @internal The metrics of one path, made once when it is registered. */
export class PathMetrics {
  readonly #provider: WebhookMetricsProvider;
  readonly #path: string;
  readonly #byCode = new Map<string, CounterMetric>();
  readonly inFlight: GaugeMetric;
  readonly latency: HistogramMetric;

  constructor(provider: WebhookMetricsProvider, path: string) {
    this.#provider = provider;
    this.#path = path;
    this.inFlight = provider.newInFlightMetric(path);
    this.latency = provider.newLatencyMetric(path);
    // As controller-runtime: the 200 and 500 series exist before the first request.
    this.#counter('200');
    this.#counter('500');
  }

  #counter(code: string): CounterMetric {
    let counter = this.#byCode.get(code);
    if (counter === undefined) {
      counter = this.#provider.newRequestsMetric(this.#path, code);
      this.#byCode.set(code, counter);
    }
    return counter;
  }

  /** A request ended with HTTP `code` after `seconds`. */
  served(code: number, seconds: number): void {
    this.#counter(String(code)).inc();
    this.latency.observe(seconds);
  }
}
