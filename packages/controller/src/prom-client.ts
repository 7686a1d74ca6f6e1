import { createRequire } from 'node:module';
import type { InformerMetricsProvider, ReflectorMetricsProvider } from '@kubets/cache';
import type { MetricsProvider } from '@kubets/workqueue';
import type * as PromClient from 'prom-client';

/** prom-client and the workqueue's and cache's adapters for it, once loaded. */
export interface PromModules {
  readonly prom: typeof PromClient;
  readonly newWorkqueueProvider: (registry: PromClient.Registry) => MetricsProvider;
  readonly newInformerProvider: (registry: PromClient.Registry) => InformerMetricsProvider;
  readonly newReflectorProvider: (registry: PromClient.Registry) => ReflectorMetricsProvider;
}

type ProviderClass<P> = new (options: { registry: PromClient.Registry }) => P;

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
    PrometheusMetricsProvider: ProviderClass<MetricsProvider>;
  };
  const { PrometheusInformerMetricsProvider, PrometheusReflectorMetricsProvider } =
    require('@kubets/cache/prometheus') as {
      PrometheusInformerMetricsProvider: ProviderClass<InformerMetricsProvider>;
      PrometheusReflectorMetricsProvider: ProviderClass<ReflectorMetricsProvider>;
    };
  return {
    prom,
    newWorkqueueProvider: (registry) => new PrometheusMetricsProvider({ registry }),
    newInformerProvider: (registry) => new PrometheusInformerMetricsProvider({ registry }),
    newReflectorProvider: (registry) => new PrometheusReflectorMetricsProvider({ registry }),
  };
}
