import { createRequire } from 'node:module';
import type { MetricsProvider } from '@kubets/workqueue';
import type * as PromClient from 'prom-client';

/** prom-client and workqueue's adapter for it, once loaded. */
export interface PromModules {
  readonly prom: typeof PromClient;
  readonly newWorkqueueProvider: (registry: PromClient.Registry) => MetricsProvider;
}

// prom-client is an optional peer dependency: loaded only by a manager that serves metrics,
// synchronously because the controllers' queues take their metrics provider when built.
export function loadPromClient(): PromModules {
  const require = createRequire(import.meta.url);
  let prom: typeof PromClient;
  try {
    prom = require('prom-client') as typeof PromClient;
  } catch (err) {
    throw new Error(
      'metricsBindAddress needs the optional peer dependency prom-client (15.x): npm install prom-client',
      { cause: err },
    );
  }
  const { PrometheusMetricsProvider } = require('@kubets/workqueue/prometheus') as {
    PrometheusMetricsProvider: new (options: { registry: PromClient.Registry }) => MetricsProvider;
  };
  return {
    prom,
    newWorkqueueProvider: (registry) => new PrometheusMetricsProvider({ registry }),
  };
}
