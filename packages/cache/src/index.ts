// The logger interface lives in @kubets/apimachinery, shared by every package; re-exported
// here so `import { type Logger, silentLogger } from '@kubets/cache'` keeps working.
export { type LogFields, type Logger, silentLogger } from '@kubets/apimachinery';
export * from './clock.js';
export * from './controller.js';
export * from './data-consistency-detector.js';
export type { Delta, DeltaType } from './delta.js';
export * from './factory.js';
export { FIFOClosedError, isFIFOClosedError } from './fifo-lifecycle.js';
export * from './handler.js';
export {
  anonymousInformerIdentity,
  InformerName,
  InformerNameAndResource,
  newInformerName,
} from './identity.js';
export {
  type FIFOMetrics,
  getInformerMetricsProvider,
  type InformerMetricsProvider,
  newFIFOMetrics,
  newStoreResourceVersionMetric,
  noopInformerMetricsProvider,
  setInformerMetricsProvider,
} from './informer-metrics.js';
export * from './keys.js';
export * from './listwatch.js';
export * from './listwatch-client.js';
export * from './managed-fields.js';
export {
  cacheMutationDetectorEnv,
  isCacheMutationDetectorEnabled,
} from './mutation-detector.js';
export * from './pager.js';
export * from './reflector.js';
export {
  type CounterMetric,
  type GaugeMetric,
  getReflectorMetricsProvider,
  type HistogramMetric,
  noopReflectorMetricsProvider,
  type ReflectorMetricsProvider,
  type SummaryMetric,
  setReflectorMetricsProvider,
} from './reflector-metrics.js';
export type {
  BackoffManager,
  ReflectorInfo,
  ReflectorOptions,
  ReflectorStore,
  WatchErrorHandler,
} from './reflector-options.js';
export {
  nextReflectorAction,
  type ReflectorAction,
  type ReflectorOutcome,
  type ReflectorReport,
} from './reflector-policy.js';
export * from './shared-informer.js';
export * from './store.js';
export * from './the-real-fifo.js';
export * from './thread-safe-store.js';
export type { ReflectorTuning } from './tuning.js';
export * from './wait.js';
