import type { ReflectorOptions } from './reflector-options.js';

/** Reflector settings an informer passes through (see {@link ReflectorOptions}). */
export type ReflectorTuning = Pick<
  ReflectorOptions,
  | 'useStreamingList'
  | 'pageSize'
  | 'minWatchTimeoutSeconds'
  | 'maxInternalErrorRetryDurationMs'
  | 'watchDeadlineGraceSeconds'
  | 'listTimeoutSeconds'
  | 'backoff'
  | 'random'
  | 'metricsProvider'
>;

// Every key of ReflectorTuning, checked both ways: a name that is no key does not compile,
// nor does a key left out (`complete`).
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
] as const satisfies readonly (keyof ReflectorTuning)[];
const complete: Exclude<keyof ReflectorTuning, (typeof tuningKeys)[number]> extends never
  ? true
  : never = true;
void complete;

/** The reflector settings among `options`, without undefined values (internal). */
export function pickTuning(options: ReflectorTuning): ReflectorTuning {
  const out: Record<string, unknown> = {};
  for (const key of tuningKeys) {
    if (options[key] !== undefined) out[key] = options[key];
  }
  return out as ReflectorTuning;
}
