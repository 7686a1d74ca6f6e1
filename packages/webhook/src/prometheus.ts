/**
 * The prom-client adapter of webhook metrics: `@kubets/webhook/prometheus`. Requires the
 * optional peer dependency `prom-client` (15.x).
 *
 * ```ts
 * import { setWebhookMetricsProvider } from '@kubets/webhook';
 * import { PrometheusWebhookMetricsProvider } from '@kubets/webhook/prometheus';
 * setWebhookMetricsProvider(new PrometheusWebhookMetricsProvider()); // prom-client's default registry
 * ```
 * @packageDocumentation
 */
import type { CounterMetric, GaugeMetric, HistogramMetric } from '@kubets/apimachinery';
import { type PrometheusProviderOptions, registeredMetric } from '@kubets/apimachinery/prometheus';
import { Counter, Gauge, Histogram, register } from 'prom-client';
import type { WebhookMetricsProvider } from './metrics.js';

/** controller-runtime's webhook metric names. */
export const WEBHOOK_METRIC_NAMES = {
  requests: 'controller_runtime_webhook_requests_total',
  latency: 'controller_runtime_webhook_latency_seconds',
  inFlight: 'controller_runtime_webhook_requests_in_flight',
} as const;

/** controller-runtime's latency buckets: 10 ns to 1000 s, ×10 each (12 buckets). */
export const WEBHOOK_LATENCY_BUCKETS: readonly number[] = Array.from(
  { length: 12 },
  (_, i) => 1e-8 * 10 ** i,
);

/** {@link WebhookMetricsProvider} backed by prom-client, with controller-runtime's names, help and labels. */
export class PrometheusWebhookMetricsProvider implements WebhookMetricsProvider {
  readonly #requests: Counter<'webhook' | 'code'>;
  readonly #latency: Histogram<'webhook'>;
  readonly #inFlight: Gauge<'webhook'>;

  constructor(options: PrometheusProviderOptions = {}) {
    const registry = options.registry ?? register;
    this.#requests = registeredMetric(registry, Counter<'webhook' | 'code'>, {
      name: WEBHOOK_METRIC_NAMES.requests,
      help: 'Total number of admission requests by HTTP status code.',
      labelNames: ['webhook', 'code'] as ('webhook' | 'code')[],
    });
    this.#latency = registeredMetric(registry, Histogram<'webhook'>, {
      name: WEBHOOK_METRIC_NAMES.latency,
      help: 'Histogram of the latency of processing admission requests',
      labelNames: ['webhook'] as 'webhook'[],
      buckets: [...WEBHOOK_LATENCY_BUCKETS],
    });
    this.#inFlight = registeredMetric(registry, Gauge<'webhook'>, {
      name: WEBHOOK_METRIC_NAMES.inFlight,
      help: 'Current number of admission requests being served.',
      labelNames: ['webhook'] as 'webhook'[],
    });
  }

  /** The counter of requests on `webhook` answered with `code` (its series exists at once). */
  newRequestsMetric(webhook: string, code: string): CounterMetric {
    this.#requests.inc({ webhook, code }, 0);
    return this.#requests.labels({ webhook, code });
  }

  /** The latency histogram of `webhook`. */
  newLatencyMetric(webhook: string): HistogramMetric {
    return this.#latency.labels({ webhook });
  }

  /** The in-flight gauge of `webhook` (its series exists at once, at 0). */
  newInFlightMetric(webhook: string): GaugeMetric {
    this.#inFlight.inc({ webhook }, 0);
    return this.#inFlight.labels({ webhook });
  }
}
