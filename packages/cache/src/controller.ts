import type { Clock } from '@kubets/apimachinery';
import { type Logger, silentLogger } from '@kubets/apimachinery';
import { AwaitingHandler, AwaitingQueue } from './awaiting-handler.js';
import { isFIFOClosedError } from './fifo-lifecycle.js';
import type { HandlerEvent, ResourceEventHandler } from './handler.js';
import { informerFIFO } from './informer-fifo.js';
import { deletionHandlingMetaNamespaceKeyFunc } from './keys.js';
import { type ListerWatcher, reusingCachedItems } from './listwatch.js';
import { isCacheMutationDetectorEnabled } from './mutation-detector.js';
import { processDeltaBatch, processDeltas } from './process-deltas.js';
import { Reflector } from './reflector.js';
import type { ReflectorStore, WatchErrorHandler } from './reflector-options.js';
import type { SharedIndexInformerOptions } from './shared-informer-options.js';
import { CacheIndexer, type Indexer, type Store } from './store.js';
import type { FIFODelta, ProcessBatchFunc, RealFIFO } from './the-real-fifo.js';
import type { Indexers } from './thread-safe-store.js';
import { pickTuning, type ReflectorTuning } from './tuning.js';

/**
 * Handles what a controller pops: one key's deltas from a `DeltaFIFO`, or one delta
 * (possibly a whole relist or resync) from a {@link RealFIFO}, with the key it was queued
 * under. Synchronous: the controller pops the next delta once it returns.
 */
export type ProcessFunc<T> = (
  deltas: readonly FIFODelta<T>[],
  isInInitialList: boolean,
  key: string,
) => void;

/**
 * The queue a {@link InformerController} runs a reflector into and pops: the informers' atomic
 * {@link RealFIFO}, or a queue of the same shape (the `DeltaFIFO` of `@kubets/cache/compat`).
 */
export interface InformerControllerQueue<T> extends ReflectorStore<T> {
  /**
   * Pops and processes what is queued, if anything; `undefined` when empty. A promise it
   * returns is waited for before the next pop.
   */
  tryPop(process: ProcessFunc<T>): unknown;
  /**
   * Pops and processes a batch of deltas of distinct keys, as {@link RealFIFO.tryPopBatch};
   * the controller uses it when given a `processBatch`.
   */
  tryPopBatch?(processBatch: ProcessBatchFunc<T>, process: ProcessFunc<T>): unknown;
  /** Resolves once something is queued; rejects with `FIFOClosedError` once closed. */
  whenItems(): Promise<void>;
  /** Closes the queue: waits end, pops of an empty queue fail. */
  close(): void;
  /** True once every object of the first list has been popped and processed. */
  hasSynced(): boolean;
}

/** Settings of a {@link InformerController}. */
export interface InformerControllerConfig<T> extends ReflectorTuning {
  /** The queue the reflector fills and the controller pops. */
  queue: InformerControllerQueue<T>;
  /** Lists and watches the objects that feed the queue. */
  listerWatcher: ListerWatcher<T>;
  /**
   * Handles what is popped. Errors are logged; with a `DeltaFIFO`, throw its `RequeueError`
   * to retry.
   */
  process: ProcessFunc<T>;
  /**
   * Handles a batch of deltas of distinct keys (client-go `ProcessBatch`). Used with a queue
   * that pops batches (a {@link RealFIFO}) only; without it every delta goes to `process`
   * alone.
   */
  processBatch?: ProcessBatchFunc<T> | undefined;
  /** Resync period of the reflector in milliseconds; 0 for none. */
  fullResyncPeriodMs?: number;
  /** Asked before each periodic resync. */
  shouldResync?: () => boolean;
  /** Called when a list or watch fails, before the reflector backs off and retries. */
  watchErrorHandler?: WatchErrorHandler;
  /** Name of the reflector, for logs. */
  name?: string;
  /** What is listed and watched, for logs (e.g. `"*v1.Pod"`). */
  typeDescription?: string;
  /** Time source for resyncs and backoff; a fake clock in tests. */
  clock?: Clock;
  /** Where the controller and its reflector log; silent by default. */
  logger?: Logger;
}

/** Keys a process loop handles in one go before letting other queued work run. */
const yieldEveryKeys = 64;

/**
 * Runs a reflector into a queue ({@link RealFIFO} for informers, or a `DeltaFIFO`) and
 * pops it into a process function (client-go `cache.Controller`); the engine of every
 * informer.
 */

export class InformerController<T> {
  readonly #config: InformerControllerConfig<T>;
  readonly #logger: Logger;
  #reflector: Reflector<T> | undefined;
  #watchErrorHandler: WatchErrorHandler | undefined;
  #running = false;

  constructor(config: InformerControllerConfig<T>) {
    this.#config = config;
    this.#logger = config.logger ?? silentLogger;
    this.#watchErrorHandler = config.watchErrorHandler;
  }

  /**
   * Lists, watches and processes until `signal` aborts, then closes the queue and resolves
   * once the reflector and the process loop have stopped.
   *
   * @throws {Error} when already running.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error('controller is already running');
    this.#running = true;
    const c = this.#config;
    const reflector = new Reflector<T>(c.listerWatcher, c.queue, {
      ...pickTuning(c),
      name: c.name,
      typeDescription: c.typeDescription,
      resyncPeriodMs: c.fullResyncPeriodMs ?? 0,
      shouldResync: c.shouldResync,
      clock: c.clock,
      logger: this.#logger,
      watchErrorHandler: this.#watchErrorHandler,
    });
    this.#reflector = reflector;
    const onAbort = (): void => c.queue.close();
    signal.addEventListener('abort', onAbort, { once: true });
    const reflectorDone = signal.aborted ? Promise.resolve() : reflector.run(signal);
    try {
      const tryPop = popping(c);
      let poppedInARow = 0;
      while (!signal.aborted) {
        try {
          // Drain what is queued without a promise per key; wait only when it is empty.
          const popped = tryPop();
          if (popped === undefined) {
            poppedInARow = 0;
            // No signal: aborting closes the queue (onAbort), which ends this wait with a
            // FIFOClosedError, so no abort listener is added and removed for every wait.
            // The wait only pops nothing: the loop pops with tryPop, one promise per wake.
            await c.queue.whenItems();
          } else if (popped instanceof Promise) {
            await popped;
          } else if (++poppedInARow % yieldEveryKeys === 0) {
            // Let handlers and the reflector's pending work run between long bursts.
            await null;
          }
        } catch (err) {
          if (signal.aborted || isFIFOClosedError(err)) break;
          this.#logger.error('Processing deltas failed', {
            name: c.name ?? 'controller',
            error: String(err),
          });
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      c.queue.close();
      await reflectorDone;
    }
  }

  /** True once the queue has delivered every object of the first list. */
  hasSynced(): boolean {
    return this.#config.queue.hasSynced();
  }

  /** The resourceVersion the reflector last saw; `''` before the first list. */
  lastSyncResourceVersion(): string {
    return this.#reflector?.lastSyncResourceVersion() ?? '';
  }

  /** Sets the watch error handler; takes effect immediately, also while running. */
  setWatchErrorHandler(handler: WatchErrorHandler | undefined): void {
    this.#watchErrorHandler = handler;
    this.#reflector?.setWatchErrorHandler(handler);
  }
}

/** How the process loop pops `config.queue`: in batches when it can (client-go `processLoop`). */
function popping<T>(config: InformerControllerConfig<T>): () => unknown {
  const { queue, process, processBatch } = config;
  if (queue.tryPopBatch !== undefined && processBatch !== undefined) {
    return () => queue.tryPopBatch!(processBatch, process);
  }
  return () => queue.tryPop(process);
}

/** Extra settings of {@link newInformer} and {@link newIndexerInformer}. */
export interface InformerOptions<T>
  extends ReflectorTuning,
    Pick<SharedIndexInformerOptions<T>, 'keyFunc' | 'detectMutations' | 'clock' | 'logger'> {
  /** Applied to every object before it is stored (see {@link RealFIFOOptions.transformer}). */
  transform?: ((obj: T) => T) | undefined;
  /** Called when a handler throws or rejects; the informer goes on either way. */
  onHandlerError?: ((error: unknown, event: HandlerEvent) => void) | undefined;
  /** Called when a list or watch fails, before the reflector backs off and retries. */
  watchErrorHandler?: WatchErrorHandler | undefined;
  /** Name of the reflector, for logs. */
  name?: string | undefined;
}

/** What {@link newIndexerInformer} returns. */
export interface IndexerInformer<T> {
  /** The cache, kept up to date while the controller runs. */
  indexer: Indexer<T>;
  /** Run it to start listing and watching. */
  controller: InformerController<T>;
}

/** What {@link newInformer} returns. */
export interface StoreInformer<T> {
  /** The cache, kept up to date while the controller runs. */
  store: Store<T>;
  /** Run it to start listing and watching. */
  controller: InformerController<T>;
}

/**
 * A cache plus a controller that fills it and calls `handler` for every change (client-go
 * `cache.NewIndexerInformer`), as in client-go's workqueue example. Handlers run in the
 * controller's process loop, one at a time, after the cache has been updated; a promise
 * returned by a handler is awaited. `resyncPeriodMs` re-delivers every object as an
 * update that often (0 for never).
 */
export function newIndexerInformer<T>(
  lw: ListerWatcher<T>,
  handler: ResourceEventHandler<T>,
  resyncPeriodMs: number,
  indexers: Indexers<T>,
  options: InformerOptions<T> = {},
): IndexerInformer<T> {
  const indexer = new CacheIndexer<T>(
    options.keyFunc ?? deletionHandlingMetaNamespaceKeyFunc,
    indexers,
  );
  return {
    indexer,
    controller: newInformerController(lw, indexer, handler, resyncPeriodMs, options),
  };
}

/** Like {@link newIndexerInformer}, with a plain store (client-go `cache.NewInformer`). */
export function newInformer<T>(
  lw: ListerWatcher<T>,
  handler: ResourceEventHandler<T>,
  resyncPeriodMs: number,
  options: InformerOptions<T> = {},
): StoreInformer<T> {
  const store = new CacheIndexer<T>(options.keyFunc ?? deletionHandlingMetaNamespaceKeyFunc);
  return { store, controller: newInformerController(lw, store, handler, resyncPeriodMs, options) };
}

function newInformerController<T>(
  lw: ListerWatcher<T>,
  store: CacheIndexer<T>,
  handler: ResourceEventHandler<T>,
  resyncPeriodMs: number,
  options: InformerOptions<T>,
): InformerController<T> {
  const logger = options.logger ?? silentLogger;
  const fifo = informerFIFO(
    store,
    options.transform,
    options.detectMutations ?? isCacheMutationDetectorEnabled(),
  );
  const reporting = new AwaitingHandler(handler, (error, event: HandlerEvent) => {
    logger.error('Event handler failed', { event, error: String(error) });
    try {
      options.onHandlerError?.(error, event);
    } catch {
      // A failing error hook must not stop the informer either.
    }
  });
  return new InformerController<T>({
    queue: new AwaitingQueue(fifo, reporting),
    listerWatcher: reusingCachedItems(lw, store),
    // The FIFO files deltas under the store's key function, so `key` is every delta's key.
    process: (deltas, isInInitialList, key) =>
      processDeltas(reporting, store, deltas, isInInitialList, key),
    processBatch: (deltas, isInInitialList, keys) =>
      processDeltaBatch(reporting, store, deltas, isInInitialList, keys),
    fullResyncPeriodMs: resyncPeriodMs,
    watchErrorHandler: options.watchErrorHandler,
    name: options.name,
    clock: options.clock,
    logger,
    ...pickTuning(options),
  });
}
