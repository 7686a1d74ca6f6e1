import type { ReflectorOptions } from './reflector-options.js';

/** The names of the reflector settings an informer passes through to its reflector. */
const tuningKeys = [
  'useStreamingList',
  'pageSize',
  'minWatchTimeoutSeconds',
  'maxInternalErrorRetryDurationMs',
  'watchDeadlineGraceSeconds',
  'listTimeoutSeconds',
  'backoff',
  'random',
  'metricsProvider',
] as const satisfies readonly (keyof ReflectorOptions)[];

/** Reflector settings an informer passes through (see {@link ReflectorOptions}). */
export type ReflectorTuning = Pick<ReflectorOptions, (typeof tuningKeys)[number]>;

/** The reflector settings among `options`, without undefined values (internal). */
export function pickTuning(options: ReflectorTuning): ReflectorTuning {
  const out: Record<string, unknown> = {};
  for (const key of tuningKeys) {
    if (options[key] !== undefined) out[key] = options[key];
  }
  return out as ReflectorTuning;
}
