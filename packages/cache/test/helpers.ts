// Helpers shared by the tests of this package (not exported from the package).

import type {
  KubeObject,
  ListQueryOptions,
  ObjectList,
  ObjectMeta,
  Status,
  WatchEvent,
  WatchQueryOptions,
} from '@kubets/apimachinery';
import { StatusError } from '@kubets/apimachinery';
import { FakeClock } from '@kubets/apimachinery/testing';
import { eventually } from '@kubets/test-utils';
import { onTestFinished } from 'vitest';
import { metaNamespaceKeyFunc } from '../src/keys.js';
import type { ListerWatcher, ListHints } from '../src/listwatch.js';
import type { Store } from '../src/store.js';
import { setMinWatchTimeoutFloorSeconds } from '../src/testing.js';

/** A ConfigMap as the tests create it on a server. */
export interface TestConfigMap {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  data?: Record<string, string>;
}

/** A Pod-like object. */
export interface TestPod extends KubeObject {
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    managedFields?: { manager?: string }[];
  };
  spec?: { nodeName?: string; value?: number };
}

/** A test object `ns/name` at resourceVersion `rv`. */
export function pod(name: string, rv = '1', namespace = 'default', nodeName?: string): TestPod {
  const p: TestPod = { metadata: { name, namespace, resourceVersion: rv } };
  if (nodeName !== undefined) p.spec = { nodeName };
  return p;
}

/** A list response. */
export function listOf<T>(items: T[], resourceVersion: string, cont?: string): ObjectList<T> {
  const metadata: { resourceVersion: string; continue?: string } = { resourceVersion };
  if (cont !== undefined) metadata.continue = cont;
  return { metadata, items };
}

/** A 410 Expired StatusError, as the API server sends for a too old resourceVersion. */
export function expiredError(message = 'too old resource version'): StatusError {
  return new StatusError(expiredStatus(message));
}

/** The Status of a 410 Expired. */
export function expiredStatus(message = 'too old resource version'): Status {
  return { kind: 'Status', status: 'Failure', reason: 'Expired', code: 410, message };
}

/** A StatusError with the given code and reason. */
export function statusError(code: number, reason: string, message = reason): StatusError {
  return new StatusError({ kind: 'Status', status: 'Failure', reason, code, message });
}

/** An ADDED watch event of `object`. */
export function added<T>(object: T): WatchEvent<T> {
  return { type: 'ADDED', object };
}

/** A MODIFIED watch event of `object`. */
export function modified<T>(object: T): WatchEvent<T> {
  return { type: 'MODIFIED', object };
}

/** A DELETED watch event of `object`. */
export function deleted<T>(object: T): WatchEvent<T> {
  return { type: 'DELETED', object };
}

/** One watch stream of a {@link FakeListerWatcher}: push events, close it, or fail it. */
export class FakeWatch<T> implements AsyncIterable<WatchEvent<T>> {
  readonly options: WatchQueryOptions;
  readonly #signal: AbortSignal;
  #buffer: WatchEvent<T>[] = [];
  #ended = false;
  #error: unknown;
  #wake: (() => void) | undefined;
  /** True once the consumer left the stream (return() called) or the signal aborted. */
  stopped = false;

  constructor(options: WatchQueryOptions, signal: AbortSignal) {
    this.options = options;
    this.#signal = signal;
    signal.addEventListener('abort', () => this.#notify(), { once: true });
  }

  /** Events pushed and not yet taken by the consumer. */
  get pending(): number {
    return this.#buffer.length;
  }

  /** Queues events for the consumer, in order. */
  push(...events: WatchEvent<T>[]): void {
    this.#buffer.push(...events);
    this.#notify();
  }

  /** Ends the stream cleanly (like a server-side timeout). */
  close(): void {
    this.#ended = true;
    this.#notify();
  }

  /** Ends the stream with an error (like a broken connection). */
  fail(error: unknown): void {
    this.#error = error;
    this.#ended = true;
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    return {
      next: async (): Promise<IteratorResult<WatchEvent<T>>> => {
        for (;;) {
          if (this.#signal.aborted) {
            this.stopped = true;
            throw this.#signal.reason;
          }
          const event = this.#buffer.shift();
          if (event !== undefined) return { done: false, value: event };
          if (this.#ended) {
            this.stopped = true;
            if (this.#error !== undefined) throw this.#error;
            return { done: true, value: undefined };
          }
          await new Promise<void>((resolve) => {
            this.#wake = resolve;
          });
        }
      },
      return: async (): Promise<IteratorResult<WatchEvent<T>>> => {
        this.stopped = true;
        this.#ended = true;
        return { done: true, value: undefined };
      },
    };
  }
}

/**
 * An in-process ListerWatcher: `listFn` answers lists (default: an empty list at RV 1),
 * `watchErrors` makes the next watch calls reject, and every opened watch is a
 * {@link FakeWatch} the test pushes events into.
 */
export class FakeListerWatcher<T> implements ListerWatcher<T> {
  listFn: (options: ListQueryOptions) => ObjectList<T> | Promise<ObjectList<T>> = () =>
    listOf([], '1');
  /** Errors the next watch calls reject with, in order. */
  watchErrors: unknown[] = [];
  readonly listCalls: ListQueryOptions[] = [];
  readonly watchCalls: WatchQueryOptions[] = [];
  readonly watches: FakeWatch<T>[] = [];
  /** Optional hook on every watch call, e.g. to push initial events; may throw. */
  onWatch: ((w: FakeWatch<T>) => void) | undefined;

  /** The hints of the last list call. */
  lastListHints: ListHints<T> | undefined;
  /**
   * Whether the fake declares that it cannot serve streaming lists, as client-go's fakes do:
   * true by default, so reflectors list with plain lists; tests of streaming lists set false.
   */
  watchListSemanticsUnsupported = true;

  isWatchListSemanticsUnsupported(): boolean {
    return this.watchListSemanticsUnsupported;
  }

  /** Lists with `listFn`, passing each item through the `reuseItem` hint as a real list-watch does. */
  async list(
    options: ListQueryOptions,
    signal: AbortSignal,
    hints?: ListHints<T>,
  ): Promise<ObjectList<T>> {
    signal.throwIfAborted();
    this.listCalls.push({ ...options });
    this.lastListHints = hints;
    const list = await this.listFn(options);
    const reuse = hints?.reuseItem;
    if (reuse === undefined) return list;
    const held = (item: T): T => {
      const meta = (
        item as { metadata?: { name?: string; namespace?: string; resourceVersion?: string } }
      ).metadata;
      if (!meta?.name || !meta.resourceVersion) return item;
      const identity = {
        name: meta.name,
        namespace: meta.namespace || undefined,
        resourceVersion: meta.resourceVersion,
      };
      return reuse(identity) ?? item;
    };
    return { ...list, items: list.items.map(held) };
  }

  async watch(
    options: WatchQueryOptions,
    signal: AbortSignal,
  ): Promise<AsyncIterable<WatchEvent<T>>> {
    signal.throwIfAborted();
    this.watchCalls.push({ ...options });
    const err = this.watchErrors.shift();
    if (err !== undefined) throw err;
    const w = new FakeWatch<T>(options, signal);
    this.watches.push(w);
    this.onWatch?.(w);
    return w;
  }

  /** Waits until `n` watches have been opened and returns the n-th (1-based). */
  async watchNumber(n: number, timeoutMs = 2000): Promise<FakeWatch<T>> {
    await eventually(() => this.watches.length >= n, { timeoutMs: timeoutMs, what: `watch #${n}` });
    return this.watches[n - 1]!;
  }
}

/** An AbortController aborted when the running test ends: what the test started stops with it. */
export function abortedAfterTest(): AbortController {
  const ac = new AbortController();
  onTestFinished(() => ac.abort());
  return ac;
}

/**
 * What a reflector or informer under test runs on: a fake ListerWatcher of pods, a fake
 * clock and jitter fixed at the middle (`timing`, to spread into its options), a list for the
 * errors it reports, and an AbortController aborted when the test ends.
 */
export function runFakes() {
  const lw = new FakeListerWatcher<TestPod>();
  const clock = new FakeClock();
  const errors: unknown[] = [];
  return { lw, clock, errors, ac: abortedAfterTest(), timing: { clock, random: () => 0.5 } };
}

/** key → resourceVersion of a store's objects (only namespace `ns` unless it is '', the default). */
export function storeVersions<T extends { metadata?: ObjectMeta | undefined }>(
  store: Store<T>,
  ns = '',
): Map<string, string> {
  const out = new Map<string, string>();
  for (const obj of store.list()) {
    if (ns !== '' && obj.metadata?.namespace !== ns) continue;
    out.set(metaNamespaceKeyFunc(obj), obj.metadata?.resourceVersion ?? '');
  }
  return out;
}

/** Moves the fake clock through every sleep until `promise` settles; returns its result. */
export async function stepThrough<R>(clock: FakeClock, promise: Promise<R>): Promise<R> {
  let settled = false;
  const done = promise.finally(() => {
    settled = true;
  });
  // Handled here so that a rejection is not reported as unhandled while the clock steps;
  // it still reaches the caller through the returned promise.
  done.catch(() => {});
  await eventually(() => {
    if (!settled && clock.pending > 0) clock.stepToNext();
    return settled;
  });
  return done;
}

/** Lowers the reflectors' watch timeout floor for the current test; restored after it. */
export function lowerWatchTimeoutFloor(seconds: number): void {
  const previous = setMinWatchTimeoutFloorSeconds(seconds);
  onTestFinished(() => {
    setMinWatchTimeoutFloorSeconds(previous);
  });
}
