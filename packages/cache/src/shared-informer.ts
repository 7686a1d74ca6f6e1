import {
  type Clock,
  type Logger,
  RingBuffer,
  realClock,
  silentLogger,
  type TypeMeta,
} from '@kubets/apimachinery';
import type { RewriteWatchEventText } from '@kubets/rest';
import { InformerController } from './controller.js';
import { type HandlerEvent, isPromiseLike, type ResourceEventHandler } from './handler.js';
import { informerFIFO } from './informer-fifo.js';
import { type DeletedFinalStateUnknown, deletionHandlingMetaNamespaceKeyFunc } from './keys.js';
import { type ListerWatcher, reusingCachedItems } from './listwatch.js';
import { defaultFieldsV1Pool, shareManagedFields } from './managed-fields.js';
import { isCacheMutationDetectorEnabled } from './mutation-detector.js';
import { type DeltaHandler, processDeltaBatch, processDeltas } from './process-deltas.js';
import type { WatchErrorHandler } from './reflector-options.js';
import type { SharedIndexInformerOptions } from './shared-informer-options.js';
import { CacheIndexer, type Indexer, type Store } from './store.js';
import type { Indexers } from './thread-safe-store.js';
import { pickTuning } from './tuning.js';

/** Handler resync periods below this are raised to it (client-go `minimumResyncPeriod`). */
export const minimumResyncPeriodMs = 1000;

/** Options of {@link SharedIndexInformer.addEventHandler}. */
export interface AddEventHandlerOptions {
  /**
   * This handler's resync period in milliseconds (default: the informer's). Periods under
   * 1 s are raised to 1 s; periods shorter than the informer's resync check period are
   * raised to it once the informer runs. `0` for never.
   */
  resyncPeriodMs?: number | undefined;
}

/** What {@link SharedIndexInformer.addEventHandler} returns. */
export interface ResourceEventHandlerRegistration {
  /**
   * True once the informer has synced and this handler has processed every object of the
   * initial list (or, for a handler added later, of the replayed store).
   */
  hasSynced(): boolean;
}

/**
 * An informer shared by any number of handlers (client-go `cache.SharedIndexInformer`): one
 * list+watch, one indexed cache, and a fan-out of notifications to every handler.
 */
export interface SharedIndexInformer<T> {
  /** Registers a handler; after start it first receives the current cache as adds. */
  addEventHandler(
    handler: ResourceEventHandler<T>,
    options?: AddEventHandlerOptions,
  ): ResourceEventHandlerRegistration;
  /** Unregisters a handler; notifications not yet delivered to it are dropped. */
  removeEventHandler(registration: ResourceEventHandlerRegistration): void;
  /** Lists, watches and notifies until `signal` aborts; resolves once stopped. */
  run(signal: AbortSignal): Promise<void>;
  /** True once every object of the first list is in the cache and was handed to the handlers. */
  hasSynced(): boolean;
  /** The cache. */
  getStore(): Store<T>;
  /** The cache, with its indexes. */
  getIndexer(): Indexer<T>;
  /** Adds indexes to the cache (also to a filled one). */
  addIndexers(indexers: Indexers<T>): void;
  /** The resourceVersion last seen; `''` before the first list. */
  lastSyncResourceVersion(): string;
  /** True once `run` has returned. */
  isStopped(): boolean;
  /** Transforms objects before they are cached (e.g. drop `managedFields`). Before `run` only. */
  setTransform(transform: (obj: T) => T): void;
  /** Called for every failed list or watch. Before `run` only. */
  setWatchErrorHandler(handler: WatchErrorHandler): void;
}

type Notification<T> =
  | { readonly kind: 'add'; readonly obj: T; readonly isInInitialList: boolean }
  | { readonly kind: 'update'; readonly oldObj: T; readonly newObj: T }
  | { readonly kind: 'delete'; readonly obj: T | DeletedFinalStateUnknown<T> };

/** A handler needs at most this many notifications in a row before yielding to others. */
const dispatchBatch = 64;

/**
 * Delivers notifications to one handler (client-go `processorListener`): an unbounded ring
 * buffer filled synchronously by the informer and drained in microtasks of the listener's
 * own, so a slow handler only delays itself. Draining is scheduled with `queueMicrotask`
 * when the buffer stops being empty: no promise or closure per notification; a handler that
 * returns a promise is awaited before the next notification.
 */
class ProcessorListener<T> {
  readonly handler: ResourceEventHandler<T>;
  readonly requestedResyncPeriodMs: number;
  resyncPeriodMs: number;
  nextResync: number;
  readonly #buffer = new RingBuffer<Notification<T>>(64);
  readonly #upstreamHasSynced: () => boolean;
  readonly #report: (err: unknown, event: HandlerEvent) => void;
  readonly #drain = (): void => this.#drainNow();
  #pendingInitial = 0;
  #stopped = false;
  #started = false;
  // A drain is queued, running, or waiting for a handler's promise.
  #draining = false;
  #ended = false;
  #endedPromise: Promise<void> | undefined;
  #onEnded: (() => void) | undefined;

  constructor(
    handler: ResourceEventHandler<T>,
    requestedResyncPeriodMs: number,
    resyncPeriodMs: number,
    now: number,
    upstreamHasSynced: () => boolean,
    report: (err: unknown, event: HandlerEvent) => void,
  ) {
    this.handler = handler;
    this.requestedResyncPeriodMs = requestedResyncPeriodMs;
    this.resyncPeriodMs = resyncPeriodMs;
    this.nextResync = now + resyncPeriodMs;
    this.#upstreamHasSynced = upstreamHasSynced;
    this.#report = report;
  }

  add(n: Notification<T>): void {
    if (this.#stopped) return;
    if (n.kind === 'add' && n.isInInitialList) this.#pendingInitial++;
    this.#buffer.push(n);
    if (this.#started && !this.#draining) {
      this.#draining = true;
      queueMicrotask(this.#drain);
    }
  }

  hasSynced(): boolean {
    return this.#upstreamHasSynced() && this.#pendingInitial === 0;
  }

  shouldResync(now: number): boolean {
    return this.resyncPeriodMs > 0 && now >= this.nextResync;
  }

  determineNextResync(now: number): void {
    this.nextResync = now + this.resyncPeriodMs;
  }

  /** Starts delivery; what is buffered already is handed over at once, in this call. */
  run(): void {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    this.#draining = true;
    this.#drainNow();
  }

  /**
   * Stops delivery: queued notifications are dropped. A handler call in flight is not
   * waited for (it may never end); delivery ends once it does (see {@link finished}).
   */
  stop(): void {
    this.#stopped = true;
    this.#buffer.clear();
    if (this.#started && !this.#draining) this.#end();
  }

  /** Resolves once delivery has ended; at once when it never started. */
  finished(): Promise<void> {
    if (!this.#started || this.#ended) return Promise.resolve();
    this.#endedPromise ??= new Promise<void>((resolve) => {
      this.#onEnded = resolve;
    });
    return this.#endedPromise;
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#draining = false;
    this.#onEnded?.();
  }

  /** Hands buffered notifications over until empty, a handler's promise, or a batch's end. */
  #drainNow(): void {
    let inARow = 0;
    while (!this.#stopped) {
      const n = this.#buffer.shift();
      if (n === undefined) {
        this.#draining = false;
        return;
      }
      let r: unknown;
      try {
        r = this.#dispatch(n);
      } catch (err) {
        this.#report(err, n.kind);
        this.#delivered(n);
        continue;
      }
      if (isPromiseLike(r)) {
        Promise.resolve(r).then(
          () => this.#afterAsync(n),
          (err: unknown) => {
            this.#report(err, n.kind);
            this.#afterAsync(n);
          },
        );
        return;
      }
      this.#delivered(n);
      if (++inARow >= dispatchBatch) {
        // Let other listeners and the informer run between batches of sync handlers.
        queueMicrotask(this.#drain);
        return;
      }
    }
    this.#end();
  }

  #afterAsync(n: Notification<T>): void {
    this.#delivered(n);
    this.#drainNow();
  }

  #delivered(n: Notification<T>): void {
    if (n.kind === 'add' && n.isInInitialList) this.#pendingInitial--;
  }

  #dispatch(n: Notification<T>): unknown {
    const h = this.handler;
    switch (n.kind) {
      case 'add':
        return h.onAdd?.(n.obj, n.isInInitialList);
      case 'update':
        return h.onUpdate?.(n.oldObj, n.newObj);
      case 'delete':
        return h.onDelete?.(n.obj);
    }
  }
}

/**
 * Fans notifications out to listeners (client-go `sharedProcessor`); remembers which
 * listeners are due for a resync, since only those get `Sync` updates.
 */
class SharedProcessor<T> {
  /** listener → whether it is due for resync right now. */
  readonly listeners = new Map<ProcessorListener<T>, boolean>();
  /**
   * How many listeners are due for a resync: asked once per unchanged object of a relist,
   * so it is counted rather than found by iterating (an iterator's results are garbage).
   */
  #resyncing = 0;
  #started = false;

  addListener(listener: ProcessorListener<T>): void {
    this.#setResyncing(listener, false);
    if (this.#started) listener.run();
  }

  removeListener(listener: ProcessorListener<T>): void {
    if (this.listeners.get(listener) === true) this.#resyncing--;
    if (!this.listeners.delete(listener)) return;
    listener.stop();
  }

  #setResyncing(listener: ProcessorListener<T>, due: boolean): void {
    const was = this.listeners.get(listener) === true;
    this.listeners.set(listener, due);
    this.#resyncing += (due ? 1 : 0) - (was ? 1 : 0);
  }

  /** True when some handler is due for a resync, i.e. wants sync notifications now. */
  hasResyncingListeners(): boolean {
    return this.#resyncing > 0;
  }

  distribute(n: Notification<T>, sync: boolean): void {
    for (const [listener, syncing] of this.listeners) {
      if (!sync || syncing) listener.add(n);
    }
  }

  run(): void {
    this.#started = true;
    for (const listener of this.listeners.keys()) listener.run();
  }

  stop(): void {
    for (const listener of this.listeners.keys()) listener.stop();
  }

  shouldResync(now: number): boolean {
    let needed = false;
    for (const listener of this.listeners.keys()) {
      const due = listener.shouldResync(now);
      this.#setResyncing(listener, due);
      if (due) {
        needed = true;
        listener.determineNextResync(now);
      }
    }
    return needed;
  }

  resyncCheckPeriodChanged(checkPeriodMs: number): void {
    for (const listener of this.listeners.keys()) {
      listener.resyncPeriodMs = determineResyncPeriod(
        listener.requestedResyncPeriodMs,
        checkPeriodMs,
      );
    }
  }
}

function determineResyncPeriod(desiredMs: number, checkMs: number): number {
  if (desiredMs === 0) return 0;
  if (checkMs === 0) return 0; // the informer never checks: no resync
  return Math.max(desiredMs, checkMs);
}

/**
 * The handler {@link processDeltas} notifies on behalf of every listener of a shared
 * informer (client-go `sharedIndexInformer.OnAdd`/`OnUpdate`/`OnDelete`).
 */
function distributorFor<T>(processor: SharedProcessor<T>): DeltaHandler<T> {
  return {
    onAdd: (obj, isInInitialList) => {
      processor.distribute({ kind: 'add', obj, isInInitialList }, false);
    },
    onUpdate: (oldObj, newObj, deltaType) => {
      // A resync, or a relist that found the object unchanged, goes only to the handlers
      // due for resync.
      const isSync =
        deltaType === 'Sync' ||
        (deltaType === 'Replaced' && resourceVersionOf(oldObj) === resourceVersionOf(newObj));
      if (isSync && !processor.hasResyncingListeners()) return;
      processor.distribute({ kind: 'update', oldObj, newObj }, isSync);
    },
    onDelete: (obj) => {
      processor.distribute({ kind: 'delete', obj }, false);
    },
  };
}

const registrationListener = new WeakMap<ResourceEventHandlerRegistration, unknown>();

class SharedIndexInformerImpl<T> implements SharedIndexInformer<T> {
  readonly #lw: ListerWatcher<T>;
  readonly #indexer: CacheIndexer<T>;
  readonly #processor = new SharedProcessor<T>();
  /** Turns applied deltas into notifications (client-go's `OnAdd`/`OnUpdate`/`OnDelete`). */
  readonly #distributor = distributorFor(this.#processor);
  readonly #name: string;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #options: SharedIndexInformerOptions<T>;
  readonly #defaultEventHandlerResyncPeriodMs: number;
  #resyncCheckPeriodMs: number;
  #transform: ((obj: T) => T) | undefined;
  readonly #detectMutations: boolean;
  #watchErrorHandler: WatchErrorHandler | undefined;
  #controller: InformerController<T> | undefined;
  #started = false;
  #stopped = false;

  constructor(lw: ListerWatcher<T>, name: string, options: SharedIndexInformerOptions<T>) {
    this.#lw = lw;
    this.#name = name;
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? silentLogger;
    this.#detectMutations = options.detectMutations ?? isCacheMutationDetectorEnabled();
    this.#indexer = new CacheIndexer<T>(
      options.keyFunc ?? deletionHandlingMetaNamespaceKeyFunc,
      options.indexers ?? {},
      { identifier: options.identifier, informerMetricsProvider: options.informerMetricsProvider },
    );
    this.#defaultEventHandlerResyncPeriodMs = options.resyncPeriodMs ?? 0;
    this.#resyncCheckPeriodMs = this.#defaultEventHandlerResyncPeriodMs;
  }

  addEventHandler(
    handler: ResourceEventHandler<T>,
    options: AddEventHandlerOptions = {},
  ): ResourceEventHandlerRegistration {
    if (this.#stopped) {
      throw new Error(
        `handler of informer ${this.#name} was not added to shared informer because it has stopped already`,
      );
    }
    let resyncPeriodMs = options.resyncPeriodMs ?? this.#defaultEventHandlerResyncPeriodMs;
    if (resyncPeriodMs > 0) {
      if (resyncPeriodMs < minimumResyncPeriodMs) {
        this.#logger.warn('Resync period too small; raised to the minimum', {
          informer: this.#name,
          requestedMs: resyncPeriodMs,
          minimumMs: minimumResyncPeriodMs,
        });
        resyncPeriodMs = minimumResyncPeriodMs;
      }
      if (resyncPeriodMs < this.#resyncCheckPeriodMs) {
        if (this.#started) {
          this.#logger.warn('Resync period is shorter than the running informer checks; raised', {
            informer: this.#name,
            requestedMs: resyncPeriodMs,
            checkPeriodMs: this.#resyncCheckPeriodMs,
          });
          resyncPeriodMs = this.#resyncCheckPeriodMs;
        } else {
          this.#resyncCheckPeriodMs = resyncPeriodMs;
          this.#processor.resyncCheckPeriodChanged(resyncPeriodMs);
        }
      }
    }
    const listener = new ProcessorListener<T>(
      handler,
      resyncPeriodMs,
      determineResyncPeriod(resyncPeriodMs, this.#resyncCheckPeriodMs),
      this.#clock.now(),
      () => this.hasSynced(),
      (err, event) => this.#reportHandlerError(err, event),
    );
    this.#processor.addListener(listener);
    if (this.#started) {
      // Replay the cache. Synchronous, so no delta can slip in between.
      for (const obj of this.#indexer.list()) {
        listener.add({ kind: 'add', obj, isInInitialList: true });
      }
    }
    const registration: ResourceEventHandlerRegistration = {
      hasSynced: () => listener.hasSynced(),
    };
    registrationListener.set(registration, listener);
    return registration;
  }

  removeEventHandler(registration: ResourceEventHandlerRegistration): void {
    const listener = registrationListener.get(registration);
    if (listener instanceof ProcessorListener) {
      this.#processor.removeListener(listener as ProcessorListener<T>);
    }
  }

  async run(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new Error(`informer ${this.#name} has already been started`);
    this.#started = true;
    if (signal.aborted) {
      this.#stopped = true;
      return;
    }
    const controller = new InformerController<T>({
      ...pickTuning(this.#options),
      queue: informerFIFO(this.#indexer, this.#cacheTransform(), this.#detectMutations, {
        identifier: this.#options.identifier,
        metricsProvider: this.#options.informerMetricsProvider,
      }),
      listerWatcher: reusingCachedItems(
        this.#lw,
        this.#indexer,
        this.#listedItemPreparation(),
        this.#watchedTextRewrite(),
      ),
      // The FIFO files deltas under the indexer's key function, so `key` is every delta's key.
      process: (deltas, isInInitialList, key) =>
        processDeltas(this.#distributor, this.#indexer, deltas, isInInitialList, key),
      processBatch: (deltas, isInInitialList, keys) =>
        processDeltaBatch(this.#distributor, this.#indexer, deltas, isInInitialList, keys),
      fullResyncPeriodMs: this.#resyncCheckPeriodMs,
      shouldResync: () => this.#processor.shouldResync(this.#clock.now()),
      watchErrorHandler: this.#watchErrorHandler,
      name: this.#name,
      typeDescription: this.#name,
      clock: this.#clock,
      logger: this.#logger,
    });
    this.#controller = controller;
    this.#processor.run();
    try {
      await controller.run(signal);
    } finally {
      this.#processor.stop();
      this.#stopped = true;
    }
  }

  hasSynced(): boolean {
    return this.#controller?.hasSynced() ?? false;
  }

  getStore(): Store<T> {
    return this.#indexer;
  }

  getIndexer(): Indexer<T> {
    return this.#indexer;
  }

  addIndexers(indexers: Indexers<T>): void {
    this.#indexer.addIndexers(indexers);
  }

  lastSyncResourceVersion(): string {
    return this.#controller?.lastSyncResourceVersion() ?? '';
  }

  isStopped(): boolean {
    return this.#stopped;
  }

  setTransform(transform: (obj: T) => T): void {
    if (this.#started) throw new Error(`informer ${this.#name} has already started`);
    this.#transform = transform;
  }

  // The user's transform first: one that drops managedFields leaves nothing to share.
  #cacheTransform(): ((obj: T) => T) | undefined {
    const transform = this.#transform;
    if (this.#options.shareManagedFields === false) return transform;
    if (transform === undefined) return shareManagedFields;
    return (obj) => shareManagedFields(transform(obj));
  }

  // Sharing as items are decoded lets a listed object's own trees die young; the FIFO's
  // share of the same object then finds its trees pooled at once. A user transform comes
  // before sharing and may need the trees unshared (unfrozen), so then nothing is done early.
  #listedItemPreparation(): ((obj: T) => void) | undefined {
    if (this.#options.shareManagedFields === false || this.#transform !== undefined) {
      return undefined;
    }
    return shareManagedFields;
  }

  // The same for watched objects, from the text of their events: a tree whose text is the
  // text of a recently used pooled tree is cut out before parsing, and the pooled tree put in.
  #watchedTextRewrite(): RewriteWatchEventText<T> | undefined {
    if (this.#options.shareManagedFields === false || this.#transform !== undefined) {
      return undefined;
    }
    return (eventText) => defaultFieldsV1Pool.rewriteEventText<T>(eventText);
  }

  setWatchErrorHandler(handler: WatchErrorHandler): void {
    if (this.#started) throw new Error(`informer ${this.#name} has already started`);
    this.#watchErrorHandler = handler;
  }

  #reportHandlerError(err: unknown, event: HandlerEvent): void {
    this.#logger.error('Event handler failed', {
      informer: this.#name,
      event,
      error: String(err),
    });
    const hook = this.#options.onHandlerError;
    if (hook === undefined) return;
    try {
      hook(err, { informer: this.#name, event });
    } catch {
      // A failing error hook must not stop the informer either.
    }
  }
}

function resourceVersionOf(obj: unknown): string | undefined {
  return (obj as { metadata?: { resourceVersion?: string } } | undefined)?.metadata
    ?.resourceVersion;
}

/**
 * Removes a handler and resolves once it has stopped processing (client-go
 * `ShutDownEventHandler`): notifications not yet delivered are dropped, and a handler call in
 * flight (a promise it returned) is awaited. Once it resolves, nothing the handler uses is
 * touched by the informer again. Removing twice, or from an informer the handler is not
 * registered with, is no error. Never await it inside the handler's own callbacks: the
 * handler would wait for itself.
 *
 * @throws {TypeError} when `registration` was not returned by `addEventHandler` of a kubets
 *   informer.
 */
export async function shutDownEventHandler<T>(
  informer: SharedIndexInformer<T>,
  registration: ResourceEventHandlerRegistration,
): Promise<void> {
  const listener = registrationListener.get(registration);
  if (!(listener instanceof ProcessorListener)) {
    throw new TypeError(
      'shutDownEventHandler: the registration was not returned by addEventHandler of a kubets informer',
    );
  }
  informer.removeEventHandler(registration);
  await listener.finished();
}

/**
 * Creates a {@link SharedIndexInformer} over `lw` (client-go `NewSharedIndexInformer`).
 * `exampleType` only names the informer in logs: a string such as `"pods"`, or an object
 * whose `kind` is used.
 *
 * ```ts
 * const informer = newSharedIndexInformer(lw, 'pods', {
 *   resyncPeriodMs: 60_000,
 *   indexers: { [namespaceIndex]: metaNamespaceIndexFunc },
 * });
 * informer.addEventHandler({ onAdd: (pod) => queue.add(metaNamespaceKeyFunc(pod)) });
 * void informer.run(signal);
 * await waitForCacheSync(signal, () => informer.hasSynced());
 * ```
 */
export function newSharedIndexInformer<T>(
  lw: ListerWatcher<T>,
  exampleType?: string | TypeMeta,
  options: SharedIndexInformerOptions<T> = {},
): SharedIndexInformer<T> {
  const typeName =
    typeof exampleType === 'string'
      ? exampleType
      : exampleType?.kind
        ? exampleType.apiVersion
          ? `${exampleType.apiVersion}, Kind=${exampleType.kind}`
          : exampleType.kind
        : 'object';
  return new SharedIndexInformerImpl(lw, options.name ?? typeName, options);
}

/** Like {@link newSharedIndexInformer}, without indexes (client-go `NewSharedInformer`). */
export function newSharedInformer<T>(
  lw: ListerWatcher<T>,
  exampleType?: string | TypeMeta,
  options: Omit<SharedIndexInformerOptions<T>, 'indexers'> = {},
): SharedIndexInformer<T> {
  return newSharedIndexInformer(lw, exampleType, options);
}
