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

export * from './apply.js';
export * from './builder.js';
export * from './cache.js';
export type { ByObject, CacheOptions } from './cache-options.js';
export { cacheByObject } from './cache-options.js';
export {
  type CacheSyncSource,
  CacheSyncTimeoutError,
  defaultCacheSyncTimeoutMs,
} from './cache-sync.js';
export * from './channel-source.js';
export * from './conditions.js';
export * from './controller.js';
export * from './controller-metrics.js';
export * from './create-or-update.js';
export * from './event-handler.js';
export * from './finalizer-machine.js';
export * from './finalizers.js';
export * from './get-config.js';
export type { HealthChecker } from './health-checks.js';
export * from './manager.js';
export { onlyMetadata } from './metadata-only.js';
export * from './object.js';
export * from './owner-references.js';
export * from './predicates.js';
export * from './priority.js';
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
export * from './read-your-writes.js';
export * from './reconciler.js';
export * from './request.js';
export * from './retry.js';
export * from './runnable.js';
export type { BindAddress } from './serve-endpoint.js';
export {
  DRAIN_ACKNOWLEDGED,
  DRAIN_REQUESTED,
  drainLabel,
  RING_LABEL,
  ringKeyOf,
  type ShardKey,
  shardLabel,
} from './sharding/labels.js';
export type { ShardLeaseDurations } from './sharding/membership.js';
export type { ShardStats } from './sharding/metrics.js';
export {
  DEFAULT_VIRTUAL_NODES,
  HashRing,
  type HashRingOptions,
  ringHash,
} from './sharding/ring.js';
export { type ShardedResource, ShardRing, type ShardRingOptions } from './sharding/shard-ring.js';
export * from './signal-handler.js';
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
