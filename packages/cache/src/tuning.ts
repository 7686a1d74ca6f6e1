import type { RandomSource } from '@kubets/apimachinery';
import type { ReflectorMetricsProvider } from './reflector-metrics.js';
import type { BackoffManager } from './reflector-options.js';

/** Reflector settings an informer passes through. */
export interface ReflectorTuning {
  /** See {@link ReflectorOptions.useStreamingList}. */
  useStreamingList?: boolean;
  /** See {@link ReflectorOptions.pageSize}. */
  pageSize?: number;
  /** See {@link ReflectorOptions.minWatchTimeoutSeconds}. */
  minWatchTimeoutSeconds?: number;
  /**
   * See {@link ReflectorOptions.minWatchTimeoutFloorSeconds}.
   * @internal
   */
  minWatchTimeoutFloorSeconds?: number;
  /** See {@link ReflectorOptions.maxInternalErrorRetryDurationMs}. */
  maxInternalErrorRetryDurationMs?: number;
  /** See {@link ReflectorOptions.watchDeadlineGraceSeconds}. */
  watchDeadlineGraceSeconds?: number;
  /** See {@link ReflectorOptions.listTimeoutSeconds}. */
  listTimeoutSeconds?: number;
  /** See {@link ReflectorOptions.backoff}. */
  backoff?: BackoffManager;
  /** See {@link ReflectorOptions.random}. */
  random?: RandomSource;
  /** See {@link ReflectorOptions.metricsProvider}. */
  metricsProvider?: ReflectorMetricsProvider;
}

/** The reflector settings among `options`, without undefined values (internal). */
export function pickTuning(options: ReflectorTuning): ReflectorTuning {
  const out: ReflectorTuning = {};
  if (options.useStreamingList !== undefined) out.useStreamingList = options.useStreamingList;
  if (options.pageSize !== undefined) out.pageSize = options.pageSize;
  if (options.minWatchTimeoutSeconds !== undefined) {
    out.minWatchTimeoutSeconds = options.minWatchTimeoutSeconds;
  }
  if (options.minWatchTimeoutFloorSeconds !== undefined) {
    out.minWatchTimeoutFloorSeconds = options.minWatchTimeoutFloorSeconds;
  }
  if (options.maxInternalErrorRetryDurationMs !== undefined) {
    out.maxInternalErrorRetryDurationMs = options.maxInternalErrorRetryDurationMs;
  }
  if (options.watchDeadlineGraceSeconds !== undefined) {
    out.watchDeadlineGraceSeconds = options.watchDeadlineGraceSeconds;
  }
  if (options.listTimeoutSeconds !== undefined) {
    out.listTimeoutSeconds = options.listTimeoutSeconds;
  }
  if (options.backoff !== undefined) out.backoff = options.backoff;
  if (options.random !== undefined) out.random = options.random;
  if (options.metricsProvider !== undefined) out.metricsProvider = options.metricsProvider;
  return out;
}
