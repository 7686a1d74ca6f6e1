// The one place a handler's promise holds up an informer's queue: `newInformer` and
// `newIndexerInformer` run their handler in the controller's loop, as client-go does, and a
// handler of theirs may return a promise that the next delta waits for. The FIFO,
// `processDeltas` and the shared informers' fan-out stay synchronous; this adapter sits
// between them and the controller's loop.
import { type HandlerEvent, isPromiseLike, type ResourceEventHandler } from './handler.js';
import type { DeletedFinalStateUnknown } from './keys.js';
import type { DeltaHandler } from './process-deltas.js';
import type { ProcessBatchFunc, RealFIFO, RealFIFOProcessFunc } from './the-real-fifo.js';

/**
 * `handler` as a synchronous {@link DeltaHandler}: every failure (a throw or a rejection) is
 * reported instead of propagated, so one bad notification never stops the informer; once a
 * call returns a promise, later notifications wait for it, in order ({@link pending}).
 */
export class AwaitingHandler<T> implements DeltaHandler<T> {
  readonly #handler: ResourceEventHandler<T>;
  readonly #report: (error: unknown, event: HandlerEvent) => void;
  #pending: Promise<void> | undefined;

  constructor(
    handler: ResourceEventHandler<T>,
    report: (error: unknown, event: HandlerEvent) => void,
  ) {
    this.#handler = handler;
    this.#report = report;
  }

  /** Settles once every notification so far has been handled; `undefined` when they have. */
  get pending(): Promise<void> | undefined {
    return this.#pending;
  }

  onAdd(obj: T, isInInitialList: boolean): void {
    this.#deliver('add', obj, isInInitialList);
  }

  onUpdate(oldObj: T, newObj: T): void {
    this.#deliver('update', oldObj, newObj);
  }

  onDelete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.#deliver('delete', obj, undefined);
  }

  #deliver(event: HandlerEvent, a: unknown, b: unknown): void {
    const pending = this.#pending;
    if (pending === undefined) {
      this.#waitFor(this.#call(event, a, b));
    } else {
      this.#waitFor(pending.then(() => this.#call(event, a, b)));
    }
  }

  #waitFor(result: unknown): void {
    if (!isPromiseLike(result)) return;
    const settled: Promise<void> = Promise.resolve(result).then(() => {
      if (this.#pending === settled) this.#pending = undefined;
    });
    this.#pending = settled;
  }

  /** Calls the handler; a promise it returns comes back with its rejection reported. */
  #call(event: HandlerEvent, a: unknown, b: unknown): unknown {
    const h = this.#handler;
    let result: unknown;
    try {
      if (event === 'add') result = h.onAdd?.(a as T, b as boolean);
      else if (event === 'update') result = h.onUpdate?.(a as T, b as T);
      else result = h.onDelete?.(a as T | DeletedFinalStateUnknown<T>);
    } catch (err) {
      this.#report(err, event);
      return undefined;
    }
    if (!isPromiseLike(result)) return undefined;
    return Promise.resolve(result).then(undefined, (err: unknown) => this.#report(err, event));
  }
}

/**
 * The informer's FIFO as the controller's queue, popping only once `handler` has handled
 * what the previous pop delivered: a pop returns a promise while a handler's promise is
 * outstanding, which the controller's loop waits for. `hasSynced` turns true once the
 * handler has also finished with every object of the first list.
 */
export class AwaitingQueue<T> {
  readonly #fifo: RealFIFO<T>;
  readonly #handler: AwaitingHandler<T>;
  #synced = false;

  constructor(fifo: RealFIFO<T>, handler: AwaitingHandler<T>) {
    this.#fifo = fifo;
    this.#handler = handler;
  }

  add(obj: T): void {
    this.#fifo.add(obj);
  }

  update(obj: T): void {
    this.#fifo.update(obj);
  }

  delete(obj: T): void {
    this.#fifo.delete(obj);
  }

  replace(list: T[], resourceVersion: string): void {
    this.#fifo.replace(list, resourceVersion);
  }

  resync(): void {
    this.#fifo.resync();
  }

  bookmark(resourceVersion: string): void {
    this.#fifo.bookmark(resourceVersion);
  }

  close(): void {
    this.#fifo.close();
  }

  whenItems(): Promise<void> {
    return this.#fifo.whenItems();
  }

  tryPop(process: RealFIFOProcessFunc<T>): unknown {
    return this.#handled(this.#fifo.tryPop(process));
  }

  tryPopBatch(processBatch: ProcessBatchFunc<T>, process: RealFIFOProcessFunc<T>): unknown {
    return this.#handled(this.#fifo.tryPopBatch(processBatch, process));
  }

  hasSynced(): boolean {
    return this.#synced || (this.#handler.pending === undefined && this.#fifo.hasSynced());
  }

  // Nothing is popped while a handler is busy, so when the handler is idle after a pop, what
  // the FIFO counts as processed has been handled too.
  #handled(popped: unknown): unknown {
    if (popped === undefined) return undefined;
    const pending = this.#handler.pending;
    if (pending === undefined) {
      this.#noteSynced();
      return popped;
    }
    return pending.then(() => this.#noteSynced());
  }

  #noteSynced(): void {
    if (!this.#synced && this.#fifo.hasSynced()) this.#synced = true;
  }
}
