import type { Clock, Logger } from '@kubets/apimachinery';
import type { SharedIndexInformer } from '@kubets/cache';
import type { ObjectWithMeta, ResourceDescriptor } from '@kubets/clientset';
import type { GenericLister } from '@kubets/listers';
import type { EventRecorder } from '@kubets/record';
import type { MetricsProvider, RateLimiter } from '@kubets/workqueue';
import { Controller } from './controller.js';
import type { ControllerMetricsRecorder } from './controller-metrics.js';
import {
  enqueueingHandler,
  type MapFunc,
  mapToControllerOwner,
  mapToSelf,
} from './event-handler.js';
import type { MetaObject } from './object.js';
import { checkPredicate, type Predicate } from './predicates.js';
import type { Reconciler } from './reconciler.js';
import type { Request } from './request.js';
import type { Runnable } from './runnable.js';

/**
 * Where a builder gets shared informers: a `SharedInformerFactory` of `@kubets/informers`
 * (or a {@link Manager}'s `informers`).
 */
export interface InformerProvider {
  /** The shared informer and lister of a resource. */
  forResource<T extends ObjectWithMeta>(
    descriptor: ResourceDescriptor<T, unknown>,
  ): {
    /** The resource's shared informer. */
    informer(): SharedIndexInformer<T>;
    /** A lister over its cache. */
    lister(): GenericLister<T>;
  };
}

/**
 * What {@link controller} builds on: a {@link Manager}, or the parts alone (then run the
 * controller and start the informer factory yourself).
 */
export interface ControllerDeps {
  /** The informers the controller's watches register on. */
  readonly informers: InformerProvider;
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
}

/** Options of a watch: which events of it reach the queue. */
export interface WatchOptions<O> {
  /** Every predicate must pass for an event to be enqueued. */
  predicates?: readonly Predicate<O>[];
}

/** Settings of the built controller. */
export interface BuilderOptions {
  /** How many objects are reconciled at once. Default 1. */
  maxConcurrentReconciles?: number;
  /** Paces retries; default the workqueue's `defaultControllerRateLimiter`. */
  rateLimiter?: RateLimiter<string>;
  /** Overrides the logger of the deps. */
  logger?: Logger;
}

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

/** A controller builder before its primary resource is known. */
export class ControllerBuilder {
  readonly #deps: ControllerDeps;
  #name: string | undefined;

  /** @internal Use {@link controller}. */
  constructor(deps: ControllerDeps) {
    this.#deps = deps;
  }

  /** Names the controller (default: the primary kind in lower case). Must be unique per manager. */
  named(name: string): this {
    this.#name = name;
    return this;
  }

  /**
   * The primary resource: each of its objects is one request, and `T` is what the
   * reconciler's `ctx.cached()` and `ctx.lister` hold.
   */
  for<T extends ObjectWithMeta>(
    descriptor: ResourceDescriptor<T, unknown>,
    options: WatchOptions<T> = {},
  ): TypedControllerBuilder<T> {
    checkDescriptor(descriptor, 'for');
    return new TypedControllerBuilder<T>(this.#deps, descriptor, options, this.#name);
  }
}

interface Watch {
  readonly descriptor: ResourceDescriptor<ObjectWithMeta, unknown>;
  readonly map: MapFunc<ObjectWithMeta>;
  readonly predicates: readonly Predicate<ObjectWithMeta>[];
}

/** A controller builder whose primary resource holds `T` objects. */
export class TypedControllerBuilder<T extends ObjectWithMeta> {
  readonly #deps: ControllerDeps;
  readonly #primary: ResourceDescriptor<T, unknown>;
  readonly #watches: Watch[] = [];
  #name: string;
  #options: BuilderOptions = {};
  #completed = false;

  /** @internal Use {@link controller}. */
  constructor(
    deps: ControllerDeps,
    primary: ResourceDescriptor<T, unknown>,
    options: WatchOptions<T>,
    name: string | undefined,
  ) {
    this.#deps = deps;
    this.#primary = primary;
    this.#name = name ?? primary.kind.toLowerCase();
    this.#add(primary, mapToSelf, options, 'for');
  }

  /** Names the controller (default: the primary kind in lower case). */
  named(name: string): this {
    this.#name = name;
    return this;
  }

  /**
   * Watches objects the primary objects create and control: an event of an owned object
   * reconciles its controller owner (the owner reference with `controller: true` whose
   * group and kind are the primary resource's). Set it with `setControllerReference`.
   */
  owns<O extends ObjectWithMeta>(
    descriptor: ResourceDescriptor<O, unknown>,
    options: WatchOptions<O> = {},
  ): this {
    checkDescriptor(descriptor, 'owns');
    this.#add(descriptor, mapToControllerOwner(this.#primary), options, 'owns');
    return this;
  }

  /**
   * Watches any resource and maps each of its objects to the requests to reconcile (for
   * an update, the old and the new object are both mapped).
   */
  watches<O extends ObjectWithMeta>(
    descriptor: ResourceDescriptor<O, unknown>,
    mapToRequests: (object: O) => readonly Request[],
    options: WatchOptions<O> = {},
  ): this {
    checkDescriptor(descriptor, 'watches');
    if (typeof mapToRequests !== 'function') {
      throw new TypeError(`watches(${descriptor.resource}): mapToRequests must be a function`);
    }
    this.#add(descriptor, mapToRequests, options, 'watches');
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
    if (this.#completed) throw new TypeError(`controller ${this.#name} was already completed`);
    const primary = this.#deps.informers.forResource(this.#primary);
    const logger = this.#options.logger ?? this.#deps.logger;
    // Filled once the controller exists and the manager took it: a bad option or a taken
    // name must leave no handler behind on the shared informers.
    const cacheSyncs: (() => boolean)[] = [];
    const ctl = new Controller<T>({
      name: this.#name,
      reconciler,
      lister: primary.lister(),
      ...(this.#options.maxConcurrentReconciles !== undefined
        ? { maxConcurrentReconciles: this.#options.maxConcurrentReconciles }
        : {}),
      ...(this.#options.rateLimiter ? { rateLimiter: this.#options.rateLimiter } : {}),
      ...(logger ? { logger } : {}),
      ...(this.#deps.clock ? { clock: this.#deps.clock } : {}),
      ...(this.#deps.controllerMetrics ? { metrics: this.#deps.controllerMetrics } : {}),
      ...(this.#deps.workqueueMetrics ? { workqueueMetrics: this.#deps.workqueueMetrics } : {}),
      ...(this.#deps.eventRecorderFor ? { recorder: this.#deps.eventRecorderFor(this.#name) } : {}),
      cacheSyncs,
    });
    this.#deps.add?.(ctl);
    this.#completed = true;
    for (const w of this.#watches) {
      const informer = this.#deps.informers.forResource(w.descriptor).informer();
      const registration = informer.addEventHandler(
        enqueueingHandler((request) => ctl.enqueue(request), w.map, w.predicates),
      );
      cacheSyncs.push(() => registration.hasSynced());
    }
    return ctl;
  }

  #add<O extends ObjectWithMeta>(
    descriptor: ResourceDescriptor<O, unknown>,
    map: MapFunc<O> | MapFunc<MetaObject>,
    options: WatchOptions<O>,
    what: string,
  ): void {
    const predicates = options.predicates ?? [];
    for (const [i, p] of predicates.entries()) {
      checkPredicate(p, `${what}(${descriptor.resource}): predicates[${i}]`);
    }
    this.#watches.push({
      descriptor: descriptor as ResourceDescriptor<ObjectWithMeta, unknown>,
      map: map as MapFunc<ObjectWithMeta>,
      predicates: predicates as readonly Predicate<ObjectWithMeta>[],
    });
  }
}

function checkDescriptor(descriptor: unknown, what: string): void {
  const d = descriptor as Partial<ResourceDescriptor> | undefined;
  if (
    typeof d?.resource !== 'string' ||
    typeof d.kind !== 'string' ||
    typeof d.version !== 'string' ||
    typeof d.group !== 'string' ||
    typeof d.namespaced !== 'boolean'
  ) {
    throw new TypeError(
      `${what}(...) needs a resource descriptor (e.g. coreV1Resources.configMaps, or one made with defineResource), got ${JSON.stringify(descriptor)}`,
    );
  }
}
