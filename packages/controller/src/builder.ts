import type { Clock, GroupVersionResource, HasObjectMeta, Logger } from '@kubets/apimachinery';
import type { ObjectWithMeta, ResourceDescriptor } from '@kubets/clientset';
import type { Unstructured } from '@kubets/dynamic';
import type { GenericLister } from '@kubets/listers';
import type { EventRecorder } from '@kubets/record';
import type { MetricsProvider } from '@kubets/workqueue';
import { type CacheSyncSource, cacheSyncSource } from './cache-sync.js';
import type { EventSource } from './channel-source.js';
import { Controller, type ControllerOptions } from './controller.js';
import type { ControllerMetricsRecorder } from './controller-metrics.js';
import {
  type EventHandler,
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  informerEventHandler,
  isEventHandler,
  type MapFunc,
  mapToCachedControllerOwner,
  type RequestQueue,
} from './event-handler.js';
import { checkPredicate, type Predicate } from './predicates.js';
import { withLowPriorityWhenUnchanged } from './priority.js';
import { checkPermission, type RbacPermission, recordControllerRbac } from './rbac.js';
import { type Reconciler, reconcilerSources } from './reconciler.js';
import type { Runnable } from './runnable.js';
import {
  type DynamicInformerProvider,
  type InformerProvider,
  type ResolvedResource,
  resolveResource,
  type WatchedResource,
} from './watched-resource.js';

/**
 * What {@link controller} builds on: a {@link Manager}, or the parts alone (then run the
 * controller and start the informer factory yourself).
 */
export interface ControllerDeps {
  /** The informers the controller's watches of typed resources register on. */
  readonly informers: InformerProvider;
  /**
   * The informers of resources known only by group/version/resource (a manager's
   * `dynamicInformers`); needed only to watch those.
   */
  readonly dynamicInformers?: DynamicInformerProvider | undefined;
  /** The default logger of the controllers. */
  readonly logger?: Logger | undefined;
  /** The clock of the controllers' work queues. */
  readonly clock?: Clock | undefined;
  /** Records the controllers' reconcile metrics (a manager serving metrics sets it). */
  readonly controllerMetrics?: ControllerMetricsRecorder | undefined;
  /** Records the controllers' work queue metrics (a manager serving metrics sets it). */
  readonly workqueueMetrics?: MetricsProvider | undefined;
  /** Registers the built controller to be run (a manager's `add`). */
  add?(runnable: Runnable): void;
  /** The event recorder of a controller, by its name (a manager's `eventRecorderFor`). */
  eventRecorderFor?(name: string): EventRecorder;
  /** The controllers' default `cacheSyncTimeoutMs` (a manager's). */
  readonly cacheSyncTimeoutMs?: number | undefined;
}

/** Options of a watch: which events of it reach the queue. */
export interface BuilderWatchOptions<O> {
  /** Every predicate must pass for an event to be enqueued. */
  predicates?: readonly Predicate<O>[];
}

/** Options of an `owns` watch. */
export interface OwnsOptions<O> extends BuilderWatchOptions<O> {
  /**
   * Reconcile every owner of the primary kind, not only the controller owner
   * (controller-runtime's `builder.MatchEveryOwner`). Applies to typed primary resources.
   */
  matchEveryOwner?: boolean;
}

/**
 * Settings of the built controller: the {@link ControllerOptions} a builder passes through.
 * Unset, `logger` is the deps' logger and `cacheSyncTimeoutMs` the manager's (or 2 minutes).
 */
export type BuilderOptions = Pick<
  ControllerOptions<unknown>,
  | 'maxConcurrentReconciles'
  | 'rateLimiter'
  | 'usePriorityQueue'
  | 'logger'
  | 'cacheSyncTimeoutMs'
  | 'reconcileTimeoutMs'
>;

/**
 * Starts building a controller (controller-runtime's `builder.ControllerManagedBy`):
 *
 * ```ts
 * controller(mgr)
 *   .for(appsV1Resources.deployments, { predicates: [generationChanged] })
 *   .owns(appsV1Resources.replicaSets)
 *   .complete(async (request, ctx) => { ... });
 * ```
 */
export function controller(deps: ControllerDeps): ControllerBuilder {
  if (typeof deps?.informers?.forResource !== 'function') {
    throw new TypeError(
      'controller(deps): deps.informers must be an informer factory (a Manager, or { informers: newSharedInformerFactory(...) })',
    );
  }
  return new ControllerBuilder(deps);
}

/** What both builders share: the name of the controller being built. */
abstract class NamedBuilder {
  /** @internal The name given with {@link named}. */
  protected givenName: string | undefined;

  /**
   * Names the controller (default: the primary kind in lower case, or the resource of a
   * primary known only by group/version/resource). Must be unique per manager: it names the
   * controller's logs, metrics, work queue and event source.
   *
   * @throws {TypeError} for an empty name.
   */
  named(name: string): this {
    if (typeof name !== 'string' || name === '') {
      throw new TypeError(`named(...) needs a non-empty name, got ${JSON.stringify(name)}`);
    }
    this.givenName = name;
    return this;
  }
}

/** A controller builder before its primary resource is known. */
export class ControllerBuilder extends NamedBuilder {
  readonly #deps: ControllerDeps;

  /** @internal Use {@link controller}. */
  constructor(deps: ControllerDeps) {
    super();
    this.#deps = deps;
  }

  /**
   * The primary resource: each of its objects is one request, and `T` is what the
   * reconciler's `ctx.cached()` and `ctx.lister` hold. A resource known only by
   * group/version/resource is watched through the dynamic informers, and its objects are
   * `Unstructured` (name a more precise type that extends it as `T` if you have one).
   */
  for<T extends ObjectWithMeta>(
    descriptor: ResourceDescriptor<T, unknown>,
    options?: BuilderWatchOptions<T>,
  ): TypedControllerBuilder<T>;
  for<T extends Unstructured = Unstructured>(
    gvr: GroupVersionResource | string,
    options?: BuilderWatchOptions<T>,
  ): TypedControllerBuilder<T>;
  for<T extends ObjectWithMeta>(
    resource: WatchedResource<T>,
    options: BuilderWatchOptions<T> = {},
  ): TypedControllerBuilder<T> {
    const primary = resolveResource(resource, 'for', this.#deps);
    return new TypedControllerBuilder<T>(this.#deps, primary, options, this.givenName);
  }
}

interface Watch {
  readonly source: ResolvedResource | EventSource<ObjectWithMeta>;
  /** The event handler, given the primary resource's lister once it exists. */
  readonly handler: (primaryLister: GenericLister<HasObjectMeta>) => EventHandler<ObjectWithMeta>;
  readonly predicates: readonly Predicate<ObjectWithMeta>[];
}

/** A controller builder whose primary resource holds `T` objects. */
export class TypedControllerBuilder<T extends ObjectWithMeta> extends NamedBuilder {
  readonly #deps: ControllerDeps;
  readonly #primary: ResolvedResource;
  readonly #watches: Watch[] = [];
  readonly #eventFilters: Predicate<ObjectWithMeta>[] = [];
  readonly #permissions: RbacPermission[] = [];
  #options: BuilderOptions = {};
  #completed = false;

  /** @internal Use {@link controller}. */
  constructor(
    deps: ControllerDeps,
    primary: ResolvedResource,
    options: BuilderWatchOptions<T>,
    name: string | undefined,
  ) {
    super();
    this.#deps = deps;
    this.#primary = primary;
    this.givenName = name;
    this.#add(primary, () => enqueueRequestForObject, options, 'for');
  }

  /**
   * Watches objects the primary objects create and control: an event of an owned object
   * reconciles its controller owner (the owner reference with `controller: true` whose
   * group and kind are the primary resource's), or with `matchEveryOwner` each owner of
   * that group and kind. Set it with `setControllerReference`. An update reconciles the
   * owners of the old and the new object, each once. When the primary resource is known
   * only by group/version/resource, its kind is not known up front: the controller
   * reference is matched by group and uid against the primary's cache.
   *
   * @throws {TypeError} for `matchEveryOwner` with a primary known only by
   *   group/version/resource.
   */
  owns<O extends ObjectWithMeta>(
    descriptor: ResourceDescriptor<O, unknown>,
    options?: OwnsOptions<O>,
  ): this;
  owns<O extends Unstructured = Unstructured>(
    gvr: GroupVersionResource | string,
    options?: OwnsOptions<O>,
  ): this;
  owns<O extends ObjectWithMeta>(resource: WatchedResource<O>, options: OwnsOptions<O> = {}): this {
    const owned = resolveResource(resource, 'owns', this.#deps);
    const primary = this.#primary;
    const descriptor = primary.descriptor;
    if (options.matchEveryOwner === true && descriptor === undefined) {
      throw new TypeError(
        `owns(${owned.resource}): matchEveryOwner needs the primary's kind; give for() a resource descriptor`,
      );
    }
    this.#add(
      owned,
      (primaryLister) =>
        descriptor
          ? enqueueRequestForOwner(descriptor, { onlyControllerOwner: !options.matchEveryOwner })
          : enqueueRequestsFromMapFunc(mapToCachedControllerOwner(primary.group, primaryLister)),
      options,
      'owns',
    );
    return this;
  }

  /**
   * Watches any resource: `handler` turns its events into requests to reconcile. A map
   * function is wrapped in `enqueueRequestsFromMapFunc` (an update maps the old and the
   * new object and reconciles each request once); an {@link EventHandler} (e.g.
   * `enqueueRequestForOwner(...)`, `handlerFuncs({...})`) is used as is.
   *
   * @throws {TypeError} for a handler that is neither.
   */
  watches<O extends ObjectWithMeta>(
    descriptor: ResourceDescriptor<O, unknown>,
    handler: MapFunc<O> | EventHandler<O>,
    options?: BuilderWatchOptions<O>,
  ): this;
  watches<O extends Unstructured = Unstructured>(
    gvr: GroupVersionResource | string,
    handler: MapFunc<O> | EventHandler<O>,
    options?: BuilderWatchOptions<O>,
  ): this;
  watches<O extends ObjectWithMeta>(
    resource: WatchedResource<O>,
    handler: MapFunc<O> | EventHandler<O>,
    options: BuilderWatchOptions<O> = {},
  ): this {
    const watched = resolveResource(resource, 'watches', this.#deps);
    const eventHandler = eventHandlerOf(handler, `watches(${watched.resource})`);
    this.#add(watched, () => eventHandler, options, 'watches');
    return this;
  }

  /**
   * Watches events from outside the cluster (controller-runtime's `WatchesRawSource` with a
   * `source.Channel`): each event a {@link ChannelSource} emits goes through the generic
   * predicates and then `handler` (a map function or an {@link EventHandler}, as in
   * {@link watches}) to the queue.
   *
   * @throws {TypeError} for a source without `subscribe`, or a handler that is none.
   */
  watchesSource<O>(
    source: EventSource<O>,
    handler: MapFunc<O> | EventHandler<O>,
    options: BuilderWatchOptions<O> = {},
  ): this {
    if (typeof source?.subscribe !== 'function') {
      throw new TypeError(
        'watchesSource(source): source must be an event source (e.g. new ChannelSource())',
      );
    }
    const eventHandler = eventHandlerOf(handler, 'watchesSource(...)');
    this.#add(source, () => eventHandler, options, 'watchesSource');
    return this;
  }

  /**
   * Adds predicates every event of `for`, `owns` and `watches` must pass, before the
   * watch's own (controller-runtime's `WithEventFilter`); `watchesSource` events are not
   * filtered by them.
   *
   * @throws {TypeError} for a predicate that is not one.
   */
  withEventFilter(...predicates: Predicate<ObjectWithMeta>[]): this {
    for (const [i, p] of predicates.entries())
      checkPredicate(p, `withEventFilter: predicates[${i}]`);
    this.#eventFilters.push(...predicates);
    return this;
  }

  /**
   * Declares what the reconciler does that the library cannot see (kubebuilder's
   * `+kubebuilder:rbac` markers): its own writes, such as the objects it creates, the status
   * and finalizer patches, other reads. What `for`, `owns`, `watches`, the event recorder and
   * leader election need is derived; `rbacRules(mgr)` and `rbacManifests(mgr, ...)` give
   * both. Helpers name the verbs of the library's helpers: `createOrUpdatePermission(d)`,
   * `finalizerPermission(d)`, `statusPermission(d, ['patch'])`, ...
   *
   * @throws {TypeError} for a permission that is not one, naming what is wrong.
   */
  rbac(...permissions: (RbacPermission | readonly RbacPermission[])[]): this {
    for (const [i, p] of permissions.flat().entries()) {
      checkPermission(p, `rbac(...): permissions[${i}]`);
      this.#permissions.push(p);
    }
    return this;
  }

  /** Sets the controller's concurrency, rate limiter and logger. */
  withOptions(options: BuilderOptions): this {
    this.#options = { ...this.#options, ...options };
    return this;
  }

  /**
   * Builds the controller, registers its event handlers on the shared informers and, with
   * a manager, adds it there to be run by `start`. Without one, start the informer factory
   * and call `run(signal)` yourself.
   *
   * @throws {TypeError} for a reconciler that is not one, or a second `complete`.
   * @throws {RangeError} for a `maxConcurrentReconciles` that is not a positive integer.
   */
  complete(reconciler: Reconciler<T>): Controller<T> {
    const name = this.givenName ?? defaultName(this.#primary);
    if (this.#completed) throw new TypeError(`controller ${name} was already completed`);
    const primaryLister = this.#primary.informer().lister() as GenericLister<T>;
    const logger = this.#options.logger ?? this.#deps.logger;
    // Filled once the controller exists and the manager took it: a bad option or a taken
    // name must leave no handler behind on the shared informers.
    const cacheSyncs: CacheSyncSource[] = [];
    const cacheSyncTimeoutMs = this.#options.cacheSyncTimeoutMs ?? this.#deps.cacheSyncTimeoutMs;
    const { reconcileTimeoutMs } = this.#options;
    const ctl = new Controller<T>({
      name,
      reconciler,
      lister: primaryLister,
      ...(this.#options.maxConcurrentReconciles !== undefined
        ? { maxConcurrentReconciles: this.#options.maxConcurrentReconciles }
        : {}),
      ...(this.#options.rateLimiter ? { rateLimiter: this.#options.rateLimiter } : {}),
      ...(this.#options.usePriorityQueue === false ? { usePriorityQueue: false } : {}),
      ...(logger ? { logger } : {}),
      ...(this.#deps.clock ? { clock: this.#deps.clock } : {}),
      ...(this.#deps.controllerMetrics ? { metrics: this.#deps.controllerMetrics } : {}),
      ...(this.#deps.workqueueMetrics ? { workqueueMetrics: this.#deps.workqueueMetrics } : {}),
      ...(this.#deps.eventRecorderFor ? { recorder: this.#deps.eventRecorderFor(name) } : {}),
      cacheSyncs,
      ...(cacheSyncTimeoutMs !== undefined ? { cacheSyncTimeoutMs } : {}),
      ...(reconcileTimeoutMs !== undefined ? { reconcileTimeoutMs } : {}),
    });
    this.#deps.add?.(ctl);
    this.#completed = true;
    recordControllerRbac(this.#deps, {
      name,
      reads: this.#watches.flatMap((w) =>
        isResolvedResource(w.source)
          ? [w.source.descriptor ?? { group: w.source.group, resource: w.source.resource }]
          : [],
      ),
      declared: [...this.#permissions],
      recordsEvents: this.#deps.eventRecorderFor !== undefined,
    });
    const queue: RequestQueue = { add: (request) => ctl.enqueue(request) };
    const ownSources = (reconciler as { [reconcilerSources]?: EventSource<HasObjectMeta>[] })[
      reconcilerSources
    ];
    for (const source of ownSources ?? []) {
      this.#add(source, () => enqueueRequestForObject, {}, 'reconciler source');
    }
    for (const w of this.#watches) {
      const handler = w.handler(primaryLister as GenericLister<HasObjectMeta>);
      if (isResolvedResource(w.source)) {
        const predicates = [...this.#eventFilters, ...w.predicates];
        const registration = w.source
          .informer()
          .informer()
          .addEventHandler(
            withLowPriorityWhenUnchanged((priority) =>
              informerEventHandler(handler, predicates, {
                add: (request) => ctl.enqueue(request, priority),
              }),
            ),
          );
        cacheSyncs.push(cacheSyncSource(w.source, w.source.informer().informer(), registration));
      } else {
        w.source.subscribe((event) => {
          if (w.predicates.every((p) => p.generic(event))) handler.generic(event, queue);
        });
      }
    }
    return ctl;
  }

  #add<O>(
    source: ResolvedResource | EventSource<O>,
    handler: (
      primaryLister: GenericLister<HasObjectMeta>,
    ) => EventHandler<O> | EventHandler<HasObjectMeta>,
    options: BuilderWatchOptions<O>,
    what: string,
  ): void {
    const predicates = options.predicates ?? [];
    const named = isResolvedResource(source) ? `${what}(${source.resource})` : what;
    for (const [i, p] of predicates.entries()) {
      checkPredicate(p, `${named}: predicates[${i}]`);
    }
    this.#watches.push({
      source: source as Watch['source'],
      handler: handler as Watch['handler'],
      predicates: predicates as readonly Predicate<ObjectWithMeta>[],
    });
  }
}

function isResolvedResource(
  source: ResolvedResource | EventSource<unknown>,
): source is ResolvedResource {
  return typeof (source as Partial<ResolvedResource>).informer === 'function';
}

function eventHandlerOf<O>(handler: MapFunc<O> | EventHandler<O>, what: string): EventHandler<O> {
  if (typeof handler === 'function') return enqueueRequestsFromMapFunc(handler);
  if (isEventHandler(handler)) return handler;
  throw new TypeError(
    `${what}: the handler must be a map function (object => requests) or an event handler with create, update, delete and generic functions (handlerFuncs fills in the missing ones)`,
  );
}

function defaultName(primary: ResolvedResource): string {
  return primary.descriptor ? primary.descriptor.kind.toLowerCase() : primary.resource;
}
