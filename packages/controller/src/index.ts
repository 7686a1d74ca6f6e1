/**
 * Kubernetes controllers for TypeScript, after controller-runtime: the reconcile loop on a
 * rate-limited workqueue, a typed builder (`for` / `owns` / `watches`, predicates), a
 * manager over shared informers, and the controllerutil helpers (owner references,
 * finalizers, create-or-update, retry on conflict, status conditions).
 *
 * Test support for reconcilers is in the `@kubets/controller/testing` subpath, the pino
 * adapter of the logger in `@kubets/controller/pino`.
 * @packageDocumentation
 */

export {
  type ApplyClient,
  type ApplyStatusClient,
  type ServerSideApplyOptions,
  serverSideApply,
  serverSideApplyStatus,
} from './apply.js';
export {
  type BuilderOptions,
  type BuilderWatchOptions,
  ControllerBuilder,
  type ControllerDeps,
  controller,
  type OwnsOptions,
  TypedControllerBuilder,
} from './builder.js';
export {
  type CacheGetOptions,
  type CacheListOptions,
  CacheNotStartedError,
  fieldIndexName,
  type IndexerFunc,
  InformerCache,
  type InformerCacheSources,
  keyToNamespacedKey,
  type ObjectKey,
  type StartableInformers,
} from './cache.js';
export type { ByObject, CacheOptions } from './cache-options.js';
export { cacheByObject } from './cache-options.js';
export {
  type CacheSyncSource,
  CacheSyncTimeoutError,
  defaultCacheSyncTimeoutMs,
} from './cache-sync.js';
export { ChannelSource, type EventSource } from './channel-source.js';
export {
  type Condition,
  type ConditionInput,
  type ConditionStatus,
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
} from './conditions.js';
export {
  Controller,
  type ControllerOptions,
  type ControllerStats,
  type ReconcileCounts,
  ReconcileTimeoutError,
} from './controller.js';
export type { ControllerMetricsRecorder, ReconcileResultLabel } from './controller-metrics.js';
export {
  createOrPatch,
  createOrUpdate,
  type GetCreatePatchClient,
  type GetCreateUpdateClient,
  type OperationResult,
} from './create-or-update.js';
export {
  type EnqueueRequestForOwnerOptions,
  type EventHandler,
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  handlerFuncs,
  informerEventHandler,
  isEventHandler,
  type MapFunc,
  mapToCachedControllerOwner,
  type OwnerType,
  type RequestQueue,
} from './event-handler.js';
export { type FinalizerClient, type FinalizerHandlers, finalizer } from './finalizer-machine.js';
export { addFinalizer, containsFinalizer, removeFinalizer } from './finalizers.js';
export { getConfig, operatorBurst, operatorQps, withOperatorRateLimits } from './get-config.js';
export type { HealthChecker } from './health-checks.js';
export {
  Manager,
  type ManagerLeaderElection,
  type ManagerOptions,
  type MetricsRegistry,
} from './manager.js';
export { onlyMetadata } from './metadata-only.js';
export {
  AlreadyOwnedError,
  hasControllerReference,
  hasOwnerReference,
  isAlreadyOwnedError,
  type OwnerObject,
  type OwnerReferenceOptions,
  removeControllerReference,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from './owner-references.js';
export {
  and,
  annotationsChanged,
  type CreateEvent,
  checkPredicate,
  type DeleteEvent,
  type GenericEvent,
  generationChanged,
  labelSelectorPredicate,
  labelsChanged,
  not,
  objectPredicate,
  or,
  type Predicate,
  predicateFuncs,
  resourceVersionChanged,
  type UpdateEvent,
} from './predicates.js';
export { LOW_PRIORITY, withLowPriorityWhenUnchanged } from './priority.js';
export {
  createOrPatchPermissions,
  createOrUpdatePermission,
  finalizerPermission,
  type RbacManifestsOptions,
  type RbacObject,
  type RbacPermission,
  type RbacResource,
  type RbacRules,
  type RbacRulesOptions,
  type RbacVerb,
  rbacManifests,
  rbacRules,
  serverSideApplyPermission,
  statusPermission,
} from './rbac.js';
export {
  type CacheWaitOptions,
  type ObservableCache,
  waitForCacheDeletion,
  waitForCacheWrite,
} from './read-your-writes.js';
export {
  isTerminalError,
  type ReconcileContext,
  type ReconcileFunc,
  type Reconciler,
  type Result,
  TerminalError,
} from './reconciler.js';
export { type ReconcileRequest, requestFor, requestFromKey, requestKey } from './request.js';
export {
  defaultBackoff,
  defaultRetry,
  type RetryOptions,
  retryOnConflict,
  retryOnError,
} from './retry.js';
export type { Runnable } from './runnable.js';
export type { BindAddress } from './serve-endpoint.js';
export {
  DRAIN_ACKNOWLEDGED,
  DRAIN_REQUESTED,
  drainLabel,
  MAX_TAKEOVER_RING_POINTS,
  RING_LABEL,
  ringKeyOf,
  type ShardKey,
  type ShardTakeoverRecord,
  shardLabel,
  takeoverAnnotation,
  takeoverDoneAnnotation,
  takeoverRing,
  tenureAnnotation,
} from './sharding/labels.js';
export type { ShardLeaseDurations } from './sharding/membership.js';
export type { ShardStats } from './sharding/metrics.js';
export {
  DEFAULT_VIRTUAL_NODES,
  HashRing,
  type HashRingOptions,
  ringHash,
} from './sharding/ring.js';
export {
  type ShardedResource,
  ShardRing,
  type ShardRingOptions,
  type ShardTakeover,
} from './sharding/shard-ring.js';
export { type SignalHandlerOptions, type SignalSource, signalHandler } from './signal-handler.js';
export type {
  DynamicInformerProvider,
  InformerProvider,
  WatchedResource,
} from './watched-resource.js';
export {
  ManagerWebhooks,
  registerConversion,
  WebhookBuilder,
  type WebhookForOptions,
  type WebhookHost,
  webhookFor,
} from './webhooks.js';
