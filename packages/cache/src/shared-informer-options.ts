import type { Clock, Logger } from '@kubets/apimachinery';
import type { HandlerEvent } from './handler.js';
import type { InformerNameAndResource } from './identity.js';
import type { InformerMetricsProvider } from './informer-metrics.js';
import type { KeyFunc } from './keys.js';
import type { Indexers } from './thread-safe-store.js';
import type { ReflectorTuning } from './tuning.js';

/** Reported to {@link SharedIndexInformerOptions.onHandlerError}. */
export interface HandlerErrorInfo {
  /** The informer's name. */
  informer: string;
  /** The notification being delivered. */
  event: HandlerEvent;
}

/** Settings of a {@link SharedIndexInformer}. */
export interface SharedIndexInformerOptions<T> extends ReflectorTuning {
  /**
   * Default resync period of handlers, in milliseconds: every object is re-delivered to
   * them as an update this often. `0` (the default) for never.
   */
  resyncPeriodMs?: number | undefined;
  /** Indexes of the cache. */
  indexers?: Indexers<T> | undefined;
  /** Keys objects. Default {@link deletionHandlingMetaNamespaceKeyFunc}. */
  keyFunc?: KeyFunc | undefined;
  /** Name for logs. Default: derived from the example type. */
  name?: string | undefined;
  /** Time source; inject a `FakeClock` from `@kubets/apimachinery/testing` in tests. */
  clock?: Clock | undefined;
  /** Where the informer reports what it does. Default silent. */
  logger?: Logger | undefined;
  /** Called when a handler throws or rejects; the informer goes on either way. */
  onHandlerError?: ((error: unknown, info: HandlerErrorInfo) => void) | undefined;
  /**
   * Share identical `metadata.managedFields[].fieldsV1` trees between cached objects (see
   * {@link FieldsV1Pool}), after the transform. Default true: the trees are more than half
   * of a typical object's memory and equal across the replicas of a workload. Shared trees
   * are frozen; cached objects are read-only either way.
   */
  shareManagedFields?: boolean | undefined;
  /**
   * Deep-freeze every object before it is cached (client-go's `KUBE_CACHE_MUTATION_DETECTOR`),
   * so that code mutating a cached object (one from the lister, the store or a handler's
   * arguments) throws a `TypeError` at the line that does it, instead of corrupting the cache
   * unseen. Default: as {@link isCacheMutationDetectorEnabled} says when the informer is
   * created (the environment variable `KUBE_CACHE_MUTATION_DETECTOR=true`, or on by default
   * in test environments). Copy an object (`structuredClone`) before changing it.
   */
  detectMutations?: boolean | undefined;
  /**
   * This informer's identity for metrics (client-go `Identifier`), from
   * `newInformerName(...).withResource(gvr)`; without it, no informer metrics are recorded.
   */
  identifier?: InformerNameAndResource | undefined;
  /** Where informer metrics go. Default: the provider set by `setInformerMetricsProvider`. */
  informerMetricsProvider?: InformerMetricsProvider | undefined;
}
