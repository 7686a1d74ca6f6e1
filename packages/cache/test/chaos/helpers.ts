// Helpers of the chaos suite (`pnpm test:chaos`, test/chaos/*.chaos.test.ts) and of
// informer-chaos.e2e.test.ts: a seeded PRNG, eventual convergence, a handler that records
// the final state it saw per key, the convergence check every scenario ends with, a writer
// that retries through outages, and heap and unhandled-rejection probes. Not exported from
// the package.

import type { ListQueryOptions, WatchQueryOptions } from '@kubets/apimachinery';
import { isStatusError, type KubeObject, type ObjectList } from '@kubets/apimachinery';
import { PatchType, type RESTClient, type Request } from '@kubets/rest';
import { eventually, seededRandom } from '@kubets/test-utils';
import { expect } from 'vitest';
import type { ResourceEventHandler } from '../../src/handler.js';
import {
  type DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
  isDeletedFinalStateUnknown,
} from '../../src/keys.js';
import type { ListerWatcher } from '../../src/listwatch.js';
import {
  type ListOptionsTweak,
  newFilteredListWatchFromClient,
} from '../../src/listwatch-client.js';
import {
  newSharedIndexInformer,
  type ResourceEventHandlerRegistration,
  type SharedIndexInformer,
} from '../../src/shared-informer.js';
import type { SharedIndexInformerOptions } from '../../src/shared-informer-options.js';
import { waitForCacheSync } from '../../src/wait.js';

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** An error that says the server is (still) unreachable or unhappy, rather than "no". */
export function isTransient(err: unknown): boolean {
  if (!isStatusError(err)) return true; // connection refused/reset, TLS, timeouts
  const code = err.status.code ?? 0;
  return code === 429 || code >= 500;
}

/** Any object with metadata; the chaos writers put their counter in an annotation. */
export type Obj = KubeObject & {
  metadata: KubeObject['metadata'] & { annotations?: Record<string, string> };
};

/** The annotation the chaos writers set to the number of the operation that wrote it. */
export const versionAnnotation = 'chaos.kubets.io/v';

/** The final state of an object as a handler (or the server) sees it. */
export interface State {
  rv: string;
  v: string | undefined;
}

/** What of an object, besides its resourceVersion, a handler must have seen last. */
export type Fingerprint<T> = (obj: T) => string | undefined;

const byAnnotation: Fingerprint<Obj> = (o) => o.metadata.annotations?.[versionAnnotation];

/** The state of `obj`: resourceVersion and fingerprint. */
export function stateOf<T extends Obj>(obj: T, fingerprint: Fingerprint<T> = byAnnotation): State {
  return { rv: obj.metadata.resourceVersion ?? '', v: fingerprint(obj) };
}

/** Options of {@link RecordingHandler}. */
export interface RecordingHandlerOptions<T> {
  /** What else to record; default the {@link versionAnnotation}. */
  fingerprint?: Fingerprint<T>;
  /** Be asynchronous: yield for 1 ms on every n-th event. */
  yieldEvery?: number;
  /** Take this long for every event (a slow handler). */
  delayMs?: number;
}

/**
 * Records the last state a handler saw per key, and the keys whose last event was a delete.
 * Keys are `namespace/name` (or `name`), also of tombstones.
 */
export class RecordingHandler<T extends Obj> implements ResourceEventHandler<T> {
  readonly live = new Map<string, State>();
  readonly deleted = new Set<string>();
  /** Every key this handler ever heard of. */
  readonly seen = new Set<string>();
  events = 0;
  /** Deletions that arrived as DeletedFinalStateUnknown (found out by a relist). */
  tombstones = 0;
  readonly #fingerprint: Fingerprint<T>;
  readonly #yieldEvery: number;
  readonly #delayMs: number;

  constructor(options: RecordingHandlerOptions<T> = {}) {
    this.#fingerprint = options.fingerprint ?? (byAnnotation as Fingerprint<T>);
    this.#yieldEvery = options.yieldEvery ?? 0;
    this.#delayMs = options.delayMs ?? 0;
  }

  async #pause(): Promise<void> {
    if (this.#delayMs > 0) await sleep(this.#delayMs);
    else if (this.#yieldEvery > 0 && this.events % this.#yieldEvery === 0) await sleep(1);
  }

  async onAdd(obj: T): Promise<void> {
    this.events++;
    await this.#pause();
    const key = deletionHandlingMetaNamespaceKeyFunc(obj);
    this.seen.add(key);
    this.live.set(key, stateOf(obj, this.#fingerprint));
    this.deleted.delete(key);
  }

  async onUpdate(_old: T, obj: T): Promise<void> {
    this.events++;
    await this.#pause();
    const key = deletionHandlingMetaNamespaceKeyFunc(obj);
    this.live.set(key, stateOf(obj, this.#fingerprint));
    this.deleted.delete(key);
  }

  async onDelete(obj: T | DeletedFinalStateUnknown<T>): Promise<void> {
    this.events++;
    if (isDeletedFinalStateUnknown(obj)) this.tombstones++;
    await this.#pause();
    const key = deletionHandlingMetaNamespaceKeyFunc(obj);
    this.seen.add(key);
    this.live.delete(key);
    this.deleted.add(key);
  }

  /** True when this handler's view equals `server`. */
  matches(server: ReadonlyMap<string, State>): boolean {
    if (this.live.size !== server.size) return false;
    for (const [key, s] of server) {
      const seen = this.live.get(key);
      if (seen?.rv !== s.rv || seen.v !== s.v) return false;
    }
    return true;
  }
}

/** key → resourceVersion of everything in an informer's store. */
export function storeState<T extends Obj>(informer: SharedIndexInformer<T>): Map<string, string> {
  return new Map(
    informer
      .getStore()
      .list()
      .map((o) => [deletionHandlingMetaNamespaceKeyFunc(o), o.metadata.resourceVersion ?? '']),
  );
}

/** key → state of a list the server answered. */
export function serverMap<T extends Obj>(
  items: readonly T[],
  fingerprint?: Fingerprint<T>,
): Map<string, State> {
  return new Map(
    items.map((o) => [deletionHandlingMetaNamespaceKeyFunc(o), stateOf(o, fingerprint)]),
  );
}

/** Lists `resource` (in `namespace`, or everywhere for `''`) through `client`. */
export async function listFromServer<T>(
  client: RESTClient,
  resource: string,
  namespace: string,
): Promise<T[]> {
  return (await inNamespace(client.get(), namespace).resource(resource).do<ObjectList<T>>()).items;
}

/** `req` in `namespace`; cluster-wide (or cluster-scoped) for `''`. */
function inNamespace<R extends Request>(req: R, namespace: string): R {
  return namespace === '' ? req : req.namespace(namespace);
}

/** What {@link expectConverged} compares with the server. */
export interface ConvergenceTarget<T extends Obj> {
  informer: SharedIndexInformer<T>;
  /** Handlers that must have seen every final state, including every deletion. */
  handlers: readonly RecordingHandler<T>[];
  /** The server's truth: a fresh list. */
  list: () => Promise<T[]>;
  fingerprint?: Fingerprint<T>;
}

/**
 * The closing check of every chaos scenario: waits until the informer's store holds exactly
 * the server's objects at the same resourceVersions and every handler saw each one's final
 * state; then asserts it (showing the difference), and that every key a handler heard of
 * that is gone now, it last heard of as deleted. Resolves with the server's state.
 */
export async function expectConverged<T extends Obj>(
  target: ConvergenceTarget<T>,
  timeoutMs: number,
): Promise<Map<string, State>> {
  let server = new Map<string, State>();
  const converged = (): boolean => {
    const store = storeState(target.informer);
    if (store.size !== server.size) return false;
    for (const [key, s] of server) if (store.get(key) !== s.rv) return false;
    return target.handlers.every((h) => h.matches(server));
  };
  try {
    await eventually(
      async () => {
        server = serverMap(await target.list(), target.fingerprint);
        return converged();
      },
      {
        what: 'the informer and its handlers to converge with the server',
        timeoutMs: timeoutMs,
        intervalMs: 100,
      },
    );
  } catch (err) {
    // Show the difference rather than only "timed out".
    const rvs = Object.fromEntries([...server].map(([key, s]) => [key, s.rv]));
    expect(Object.fromEntries(storeState(target.informer))).toEqual(rvs);
    for (const h of target.handlers)
      expect(Object.fromEntries(h.live)).toEqual(Object.fromEntries(server));
    throw err;
  }
  expect(storeState(target.informer)).toEqual(new Map([...server].map(([k, s]) => [k, s.rv])));
  for (const h of target.handlers) {
    expect(h.live).toEqual(server);
    const gone = [...h.seen].filter((key) => !server.has(key)).sort();
    expect([...h.deleted].sort()).toEqual(gone);
  }
  return server;
}

/** A kind the {@link Writer} can create: its path segment, Kind and a minimal valid body. */
export interface WritableResource {
  resource: string;
  kind: string;
  /** Extra top-level fields a new object needs (e.g. a pod template's `template`). */
  body?: Record<string, unknown>;
}

export const configMaps: WritableResource = { resource: 'configmaps', kind: 'ConfigMap' };

/** Counts of what a {@link Writer} did. */
export interface WriterStats {
  ok: number;
  ignored: number;
  retries: number;
  create: number;
  update: number;
  delete: number;
}

/**
 * Creates, updates (merge patch of the {@link versionAnnotation}) and deletes objects
 * through a "second client", retrying transient failures (the server restarting, storms)
 * until `opDeadlineMs`, and treating "already exists", "not found" and conflicts as done.
 */
export class Writer {
  readonly stats: WriterStats = { ok: 0, ignored: 0, retries: 0, create: 0, update: 0, delete: 0 };
  readonly transientErrors = new Set<string>();
  readonly #client: RESTClient;
  readonly #opDeadlineMs: number;

  constructor(client: RESTClient, opDeadlineMs = 120_000) {
    this.#client = client;
    this.#opDeadlineMs = opDeadlineMs;
  }

  create(
    r: WritableResource,
    ns: string,
    name: string,
    v: string,
    extra: Record<string, unknown> = {},
  ): Promise<boolean> {
    this.stats.create++;
    return this.#retry(() =>
      inNamespace(this.#client.post(), ns)
        .resource(r.resource)
        .body({
          apiVersion: 'v1',
          kind: r.kind,
          metadata: { name, annotations: { [versionAnnotation]: v } },
          ...r.body,
          ...extra,
        })
        .do(),
    );
  }

  update(r: WritableResource, ns: string, name: string, v: string): Promise<boolean> {
    this.stats.update++;
    return this.#retry(() =>
      inNamespace(this.#client.patch(PatchType.MergePatch), ns)
        .resource(r.resource)
        .name(name)
        .body({ metadata: { annotations: { [versionAnnotation]: v } } })
        .do(),
    );
  }

  delete(r: WritableResource, ns: string, name: string): Promise<boolean> {
    this.stats.delete++;
    return this.#retry(() =>
      inNamespace(this.#client.delete(), ns).resource(r.resource).name(name).do(),
    );
  }

  /** Resolves true when the write happened, false when the server said it need not. */
  async #retry(send: () => Promise<unknown>): Promise<boolean> {
    const deadline = Date.now() + this.#opDeadlineMs;
    for (;;) {
      try {
        await send();
        this.stats.ok++;
        return true;
      } catch (err) {
        if (isStatusError(err) && [404, 409].includes(err.status.code ?? 0)) {
          this.stats.ignored++;
          return false;
        }
        if (!isTransient(err) || Date.now() > deadline) throw err;
        this.stats.retries++;
        if (this.transientErrors.size < 4) this.transientErrors.add(String(err).slice(0, 160));
        await sleep(100);
      }
    }
  }
}

/**
 * `ops` random creates, updates and deletes (seeded) over `keyspace` names per target,
 * `concurrency` at a time; `at(i)` runs before operation `i` is sent (e.g. to inject a
 * fault). Objects are named `<prefix>-NN`.
 */
export async function churn(options: {
  writer: Writer;
  targets: readonly { r: WritableResource; ns: string }[];
  seed: number;
  ops: number;
  keyspace: number;
  concurrency?: number;
  prefix?: string;
  at?: (i: number) => void | Promise<void>;
}): Promise<void> {
  const random = seededRandom(options.seed);
  const known = new Set<string>();
  let next = 0;
  const prefix = options.prefix ?? 'obj';
  const perform = async (i: number): Promise<void> => {
    // Drawn synchronously at dispatch, in operation order.
    const target = options.targets[Math.floor(random() * options.targets.length)]!;
    const name = `${prefix}-${String(Math.floor(random() * options.keyspace)).padStart(2, '0')}`;
    const id = `${target.r.resource}/${target.ns}/${name}`;
    const r = random();
    const w = options.writer;
    if (!known.has(id)) {
      known.add(id);
      await w.create(target.r, target.ns, name, `${i}`);
    } else if (r < 0.7) {
      await w.update(target.r, target.ns, name, `${i}`);
    } else {
      known.delete(id);
      await w.delete(target.r, target.ns, name);
    }
  };
  const worker = async (): Promise<void> => {
    while (next < options.ops) {
      const i = next++;
      await options.at?.(i);
      await perform(i);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
}

/** Collects unhandled promise rejections from `start()` until `stop()`. */
export class UnhandledRejections {
  readonly reasons: unknown[] = [];
  readonly #listener = (reason: unknown): void => void this.reasons.push(reason);

  start(): void {
    process.on('unhandledRejection', this.#listener);
  }

  stop(): void {
    process.off('unhandledRejection', this.#listener);
  }
}

/** `process.memoryUsage().heapUsed` after full garbage collections (needs `--expose-gc`). */
export async function heapAfterGc(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc (vitest.chaos.config.ts does)');
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

/** Generous: what a scenario may keep on the heap beyond its baseline (GC noise, JIT). */
export const heapSlackBytes = 48 * 1024 * 1024;

/** An informer under test, with what it asked the server and what went wrong. */
export interface InformerHarness<T extends Obj> {
  informer: SharedIndexInformer<T>;
  /** Options of every list and watch call, in order. */
  lists: ListQueryOptions[];
  watches: WatchQueryOptions[];
  /** Errors of list calls (each page counts). */
  listFailures: unknown[];
  /** Everything the watch error handler got. */
  watchErrors: unknown[];
  handlers: RecordingHandler<T>[];
  registrations: ResourceEventHandlerRegistration[];
  /** Waits until every handler has synced; fails after `timeoutMs`. */
  synced(timeoutMs: number): Promise<void>;
  /** Stops the informer and waits for it. */
  stop(): Promise<void>;
}

/** Options of {@link startInformer}. */
export interface InformerSetup<T extends Obj> {
  client: RESTClient;
  resource: string;
  /** `''` for all namespaces. */
  namespace: string;
  /** Edits the options of every list and watch call before it is sent. */
  tweak?: ListOptionsTweak;
  /** Wraps the REST list-watch, below the recording wrapper. */
  wrap?: (lw: ListerWatcher<T>) => ListerWatcher<T>;
  options?: SharedIndexInformerOptions<T>;
  /** Default: one synchronous recorder and one that yields now and then. */
  handlers?: RecordingHandler<T>[];
  /** Called before `run`, e.g. to add more handlers. */
  beforeRun?: (informer: SharedIndexInformer<T>) => void;
}

/** Starts an informer over `client`, recording its calls, with recording handlers. */
export function startInformer<T extends Obj>(setup: InformerSetup<T>): InformerHarness<T> {
  const base = newFilteredListWatchFromClient<T>(
    setup.client,
    setup.resource,
    setup.namespace,
    setup.tweak ?? (() => undefined),
  );
  const inner = setup.wrap?.(base) ?? base;
  const lists: ListQueryOptions[] = [];
  const watches: WatchQueryOptions[] = [];
  const listFailures: unknown[] = [];
  const recording: ListerWatcher<T> = {
    list: async (options, signal) => {
      lists.push({ ...options });
      try {
        return await inner.list(options, signal);
      } catch (err) {
        listFailures.push(err);
        throw err;
      }
    },
    watch: (options, signal) => {
      watches.push({ ...options });
      return inner.watch(options, signal);
    },
  };
  const informer = newSharedIndexInformer<T>(recording, setup.resource, setup.options);
  const watchErrors: unknown[] = [];
  informer.setWatchErrorHandler((err) => void watchErrors.push(err));
  const handlers = setup.handlers ?? [
    new RecordingHandler<T>(),
    new RecordingHandler<T>({ yieldEvery: 7 }),
  ];
  const registrations = handlers.map((h) => informer.addEventHandler(h));
  setup.beforeRun?.(informer);
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  return {
    informer,
    lists,
    watches,
    listFailures,
    watchErrors,
    handlers,
    registrations,
    synced: async (timeoutMs) => {
      const signal = AbortSignal.any([ac.signal, AbortSignal.timeout(timeoutMs)]);
      const fns = registrations.map((r) => () => r.hasSynced());
      expect(await waitForCacheSync(signal, ...fns)).toBe(true);
    },
    stop: async () => {
      ac.abort();
      await running;
    },
  };
}

/** True for the error a reflector reports when it gave up on a watch at its deadline. */
export function isWatchDeadline(err: unknown): boolean {
  return err instanceof Error && err.name === 'WatchDeadlineExceededError';
}

/** Runs `fn(0..n-1)`, `concurrency` at a time. */
export async function parallel(
  n: number,
  fn: (i: number) => Promise<unknown>,
  concurrency = 8,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
