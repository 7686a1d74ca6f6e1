import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { PrometheusWebhookMetricsProvider } from './prometheus.js';

describe('PrometheusWebhookMetricsProvider', () => {
  it("records with controller-runtime's names, labels and help", async () => {
    const registry = new Registry();
    const provider = new PrometheusWebhookMetricsProvider({ registry });
    provider.newRequestsMetric('/validate', '200').inc();
    provider.newRequestsMetric('/validate', '500');
    provider.newLatencyMetric('/validate').observe(0.002);
    const inFlight = provider.newInFlightMetric('/validate');
    inFlight.inc();
    const text = await registry.metrics();
    expect(text).toContain(
      '# HELP controller_runtime_webhook_requests_total Total number of admission requests by HTTP status code.',
    );
    expect(text).toContain(
      'controller_runtime_webhook_requests_total{webhook="/validate",code="200"} 1',
    );
    expect(text).toContain(
      'controller_runtime_webhook_requests_total{webhook="/validate",code="500"} 0',
    );
    expect(text).toContain(
      'controller_runtime_webhook_latency_seconds_count{webhook="/validate"} 1',
    );
    expect(text).toContain(
      'controller_runtime_webhook_latency_seconds_bucket{le="1e-8",webhook="/validate"} 0',
    );
    expect(text).toContain('controller_runtime_webhook_requests_in_flight{webhook="/validate"} 1');
    // A second provider on the same registry shares the metrics.
    new PrometheusWebhookMetricsProvider({ registry }).newRequestsMetric('/validate', '200').inc();
    expect(await registry.metrics()).toContain(
      'controller_runtime_webhook_requests_total{webhook="/validate",code="200"} 2',
    );
  });
});
