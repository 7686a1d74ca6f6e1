// A real SharedIndexInformer over listWatchFromClient + RESTClient, against the in-memory API
// server of @kubets/apiserver with faults injected: dropped watches, compaction (410), expired
// continue tokens, bookmarks, streaming lists offered and refused, throwing handlers,
// malformed watch lines and a 429 storm. Every test ends with the informer's store (and the
// handlers' view of it) equal to the server's list, keys and resourceVersions.

import type { ListQueryOptions, WatchQueryOptions } from '@kubets/apimachinery';
import {
  isResourceExpired,
  isStatusError,
  isTooManyRequests,
  type ObjectList,
} from '@kubets/apimachinery';
import {
  type ApiServerOptions,
  type FaultRequest,
  type InMemoryApiServer,
  startApiServer,
} from '@kubets/apiserver';
import { type Config, loadConfig, PatchType, RESTClient } from '@kubets/rest';
import { eventually, runUntilCleanup } from '@kubets/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestConfigMap } from '../test/helpers.js';
import {
  type DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
  type HandlerErrorInfo,
  isDeletedFinalStateUnknown,
  type ListerWatcher,
  listWatchFromClient,
  metaNamespaceKeyFunc,
  newFilteredListWatchFromClient,
  newSharedIndexInformer,
  type ResourceEventHandlerRegistration,
  type SharedIndexInformer,
  type SharedIndexInformerOptions,
  waitForCacheSync,
} from './index.js';

type ConfigMap = TestConfigMap;

const ns = 'default';
/** Generous deadline for syncs and convergence; never a timing assertion. */
const convergeMs = 20_000;

let server: InMemoryApiServer | undefined;
/** The test's own client: the "second client" that changes things behind the informer. */
let writer: RESTClient;
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await server?.stop();
  server = undefined;
});

async function setup(options: ApiServerOptions = {}): Promise<InMemoryApiServer> {
  server = await startApiServer(options);
  writer = new RESTClient(restConfig(), { groupVersion: 'v1' });
  return server;
}

function theServer(): InMemoryApiServer {
  if (server === undefined) throw new Error('setup() first');
  return server;
}

/** A rest config from the server's kubeconfig, without client-side throttling. */
function restConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({ kubeconfig: theServer().kubeconfigPath }), qps: -1, ...overrides };
}

function create(name: string, v = '0'): Promise<ConfigMap> {
  return writer
    .post()
    .namespace(ns)
    .resource('configmaps')
    .body({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v } })
    .do<ConfigMap>();
}

function update(name: string, v: string): Promise<ConfigMap> {
  return writer
    .patch(PatchType.MergePatch)
    .namespace(ns)
    .resource('configmaps')
    .name(name)
    .body({ data: { v } })
    .do<ConfigMap>();
}

function remove(name: string): Promise<unknown> {
  return writer.delete().namespace(ns).resource('configmaps').name(name).do();
}

/** key → resourceVersion of the server's configmaps in `ns`. */
async function serverState(): Promise<Map<string, string>> {
  const list = await writer.get().namespace(ns).resource('configmaps').do<ObjectList<ConfigMap>>();
  return new Map(list.items.map((cm) => [metaNamespaceKeyFunc(cm), cm.metadata.resourceVersion!]));
}

function storeState(informer: SharedIndexInformer<ConfigMap>): Map<string, string> {
  return new Map(
    informer
      .getStore()
      .list()
      .map((cm) => [metaNamespaceKeyFunc(cm), cm.metadata.resourceVersion ?? '']),
  );
}

function same(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, rv] of a) if (b.get(key) !== rv) return false;
  return true;
}

type Seen =
  | { type: 'add'; name: string; rv: string; initial: boolean }
  | { type: 'update'; name: string; oldRv: string; rv: string }
  | { type: 'delete'; name: string; tombstone: boolean };

interface Harness {
  informer: SharedIndexInformer<ConfigMap>;
  /** Options of every list and watch call, as the reflector made them. */
  lists: ListQueryOptions[];
  watches: WatchQueryOptions[];
  /** What the recording handler last saw, per key (key → resourceVersion). */
  view: Map<string, string>;
  /** Every notification the recording handler got, in order. */
  log: Seen[];
  registration: ResourceEventHandlerRegistration;
  watchErrors: unknown[];
}

interface InformerSetup {
  informer?: SharedIndexInformerOptions<ConfigMap>;
  /** Rest config overrides of the informer's own client. */
  config?: Partial<Config>;
  /** Edits the options of every call before it is sent (newFilteredListWatchFromClient). */
  tweak?: (options: WatchQueryOptions) => void;
  /** Wraps the REST list-watch, below the counting wrapper. */
  wrap?: (lw: ListerWatcher<ConfigMap>) => ListerWatcher<ConfigMap>;
  /** Called before `run`, e.g. to add more handlers. */
  beforeRun?: (informer: SharedIndexInformer<ConfigMap>) => void;
}

/** Starts an informer over its own RESTClient, counting its list and watch calls. */
function startInformer(setupOptions: InformerSetup = {}): Harness {
  const client = new RESTClient(restConfig({ ...setupOptions.config }), { groupVersion: 'v1' });
  const base =
    setupOptions.tweak === undefined
      ? listWatchFromClient<ConfigMap>(client, 'configmaps', ns)
      : newFilteredListWatchFromClient<ConfigMap>(client, 'configmaps', ns, setupOptions.tweak);
  const inner = setupOptions.wrap?.(base) ?? base;
  const lists: ListQueryOptions[] = [];
  const watches: WatchQueryOptions[] = [];
  const counting: ListerWatcher<ConfigMap> = {
    list: (options, signal, hints) => {
      lists.push({ ...options });
      return inner.list(options, signal, hints);
    },
    watch: (options, signal) => {
      watches.push({ ...options });
      return inner.watch(options, signal);
    },
  };
  // Paged lists unless a test asks for streaming ones (as client-go's tests set the gate).
  const informer = newSharedIndexInformer<ConfigMap>(counting, 'configmaps', {
    useStreamingList: false,
    ...setupOptions.informer,
  });
  const watchErrors: unknown[] = [];
  informer.setWatchErrorHandler((err) => void watchErrors.push(err));
  const view = new Map<string, string>();
  const log: Seen[] = [];
  /** Puts `cm` in the view; its name and resourceVersion, for the log. */
  const seen = (cm: ConfigMap) => {
    const rv = cm.metadata.resourceVersion ?? '';
    view.set(metaNamespaceKeyFunc(cm), rv);
    return { name: cm.metadata.name ?? '', rv };
  };
  const registration = informer.addEventHandler({
    onAdd: (cm, initial) => void log.push({ type: 'add', ...seen(cm), initial }),
    onUpdate: (old, cm) =>
      void log.push({ type: 'update', ...seen(cm), oldRv: old.metadata.resourceVersion ?? '' }),
    onDelete: (cm: ConfigMap | DeletedFinalStateUnknown<ConfigMap>) => {
      const key = deletionHandlingMetaNamespaceKeyFunc(cm);
      view.delete(key);
      log.push({
        type: 'delete',
        name: key.slice(key.indexOf('/') + 1),
        tombstone: isDeletedFinalStateUnknown(cm),
      });
    },
  });
  setupOptions.beforeRun?.(informer);
  void runUntilCleanup(cleanups, (signal) => informer.run(signal));
  return { informer, lists, watches, view, log, registration, watchErrors };
}

async function synced(...fns: (() => boolean)[]): Promise<void> {
  expect(await waitForCacheSync(AbortSignal.timeout(convergeMs), ...fns)).toBe(true);
}

/**
 * Waits until the informer's store and every given handler view hold exactly the server's
 * configmaps at the same resourceVersions; on timeout, shows the difference.
 */
async function expectConverged(
  h: Harness,
  views: readonly ReadonlyMap<string, string>[] = [h.view],
  expected: (server: Map<string, string>) => Map<string, string> = (s) => s,
): Promise<void> {
  let truth = new Map<string, string>();
  try {
    await eventually(
      async () => {
        const state = await serverState();
        truth = state;
        const want = expected(state);
        return same(storeState(h.informer), state) && views.every((v) => same(v, want));
      },
      { what: 'the informer to converge with the server', timeoutMs: convergeMs, intervalMs: 10 },
    );
  } catch (err) {
    expect(Object.fromEntries(storeState(h.informer))).toEqual(Object.fromEntries(truth));
    for (const v of views) {
      expect(Object.fromEntries(v)).toEqual(Object.fromEntries(expected(truth)));
    }
    throw err;
  }
}

function names(seen: readonly Seen[], type: Seen['type']): string[] {
  return seen.filter((s) => s.type === type).map((s) => s.name);
}

function newAdds(seen: readonly Seen[]): string[] {
  return seen.filter((s) => s.type === 'add' && !s.initial).map((s) => s.name);
}

const isListOf =
  (resource: string) =>
  (r: FaultRequest): boolean =>
    !r.watch && r.method === 'GET' && r.path.endsWith(`/${resource}`);

describe('informer against the in-memory server with faults', () => {
  it('a dropped watch: re-watch from the last resourceVersion, no relist, no event lost', async () => {
    const s = await setup();
    for (const n of ['a', 'b', 'c']) await create(n);
    const h = startInformer();
    await synced(() => h.registration.hasSynced());
    expect(h.lists).toHaveLength(1);

    for (let round = 0; round < 3; round++) {
      await create(`r${round}-x`);
      await update('a', `r${round}`);
      s.faults.closeWatches();
      // Changes made while the informer is disconnected: the next watch must replay them.
      await create(`r${round}-y`);
      await update('b', `r${round}`);
      if (round === 1) await remove('c');
      // Seeing r*-y proves a new watch is open (and registered) before the next drop.
      await eventually(() => h.view.has(`${ns}/r${round}-y`), {
        what: `r${round}-y`,
        timeoutMs: convergeMs,
        intervalMs: 10,
      });
    }

    await expectConverged(h);
    expect(h.lists).toHaveLength(1);
    expect(h.watches.length).toBeGreaterThanOrEqual(4);
    for (const w of h.watches) {
      expect(w.allowWatchBookmarks).toBe(true);
      expect(w.resourceVersion).toMatch(/^[1-9]\d*$/);
    }
    // Every change was delivered exactly once: in order, no duplicates, no tombstones.
    expect(newAdds(h.log)).toEqual(['r0-x', 'r0-y', 'r1-x', 'r1-y', 'r2-x', 'r2-y']);
    const updates = h.log.filter((x) => x.type === 'update');
    expect(updates.map((u) => u.name)).toEqual(['a', 'b', 'a', 'b', 'a', 'b']);
    expect(h.log.filter((x) => x.type === 'delete')).toEqual([
      { type: 'delete', name: 'c', tombstone: false },
    ]);
    expect(h.watchErrors).toEqual([]);
  });

  it('410 Expired on the re-watch: relists, and deletions missed meanwhile arrive as tombstones', async () => {
    const s = await setup();
    for (const n of ['a', 'b', 'c']) await create(n);
    // Holds the informer's next watch until the changes below are made, so they happen while
    // it has no watch (as when its connection is down), however fast it watches again.
    let release = (): void => {};
    let gate: Promise<void> | undefined;
    const h = startInformer({
      wrap: (lw) => ({
        list: (options, signal, hints) => lw.list(options, signal, hints),
        watch: async (options, signal) => {
          await gate;
          return lw.watch(options, signal);
        },
      }),
    });
    await synced(() => h.registration.hasSynced());
    const a1 = await update('a', '1');
    await eventually(() => h.view.get(`${ns}/a`) === a1.metadata.resourceVersion, {
      what: 'the update of a',
      timeoutMs: convergeMs,
      intervalMs: 10,
    });
    const rvBefore = h.informer.lastSyncResourceVersion();

    gate = new Promise((resolve) => {
      release = resolve;
    });
    s.faults.compact();
    s.faults.closeWatches();
    // Nothing of this reaches the informer by its (closed) watch; only a relist can tell.
    await create('d');
    await update('b', '1');
    await remove('c');
    release();

    await expectConverged(h);
    expect(h.lists).toHaveLength(2);
    // The relist asks for the state at (or after) the last known resourceVersion.
    expect(h.lists[1]?.resourceVersion).toBe(rvBefore);
    expect(h.watches[1]?.resourceVersion).toBe(rvBefore);
    expect(h.watchErrors.some(isResourceExpired)).toBe(true);
    expect(h.log.filter((x) => x.type === 'delete')).toEqual([
      { type: 'delete', name: 'c', tombstone: true },
    ]);
    expect(newAdds(h.log)).toEqual(['d']);
  });

  it('an expired continue token during a paged list: exactly one full relist', async () => {
    const s = await setup();
    const all = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    for (const n of all) await create(n);
    let compacted = false;
    const h = startInformer({
      informer: { pageSize: 2 },
      // The server serves resourceVersion=0 from its "watch cache", unpaged; a quorum list
      // is paged (as from etcd).
      tweak: (o) => {
        if (o.resourceVersion === '0') o.resourceVersion = '';
      },
      // Compacts the server right after the first page: its continue token expires.
      wrap: (lw) => ({
        list: async (options, signal) => {
          const page = await lw.list(options, signal);
          if (!compacted && page.metadata?.continue) {
            compacted = true;
            s.faults.compact();
          }
          return page;
        },
        watch: (options, signal) => lw.watch(options, signal),
      }),
    });
    await synced(() => h.registration.hasSynced());

    expect(compacted).toBe(true);
    expect(h.lists).toEqual([
      { resourceVersion: '0', limit: 2 },
      { limit: 2, continue: expect.any(String) },
      // One full list at the resourceVersion first asked for (client-go's pager): no limit,
      // no token.
      { resourceVersion: '0' },
    ]);
    expect(h.informer.getStore().listKeys().sort()).toEqual(all.map((n) => `${ns}/${n}`));
    expect(h.watchErrors).toEqual([]);
    expect(h.watches).toHaveLength(1);

    await update('a', '1');
    await remove('b');
    await create('h');
    await expectConverged(h);
    expect(h.lists).toHaveLength(3);
  });

  it('bookmarks advance the resourceVersion without object changes', async () => {
    const s = await setup({ bookmarkIntervalMs: 50 });
    for (const n of ['a', 'b']) await create(n);
    const h = startInformer();
    await synced(() => h.registration.hasSynced());
    const lastObjectRv = Math.max(...[...storeState(h.informer).values()].map(Number));
    const storeBefore = storeState(h.informer);
    const logBefore = h.log.length;

    // Writes to another resource move the server's resourceVersion; no configmap changes,
    // so only a BOOKMARK can carry the new resourceVersion to this informer.
    for (const n of ['s1', 's2', 's3']) {
      await writer
        .post()
        .namespace(ns)
        .resource('secrets')
        .body({ apiVersion: 'v1', kind: 'Secret', metadata: { name: n } })
        .do();
    }
    const target = Number(s.resourceVersion());
    expect(target).toBeGreaterThan(lastObjectRv);
    await eventually(() => Number(h.informer.lastSyncResourceVersion()) >= target, {
      what: 'a bookmark',
      timeoutMs: convergeMs,
      intervalMs: 10,
    });
    expect(Number(h.informer.lastSyncResourceVersion())).toBeGreaterThan(lastObjectRv);
    expect(h.log).toHaveLength(logBefore);
    expect(storeState(h.informer)).toEqual(storeBefore);
    expect(h.watches).toHaveLength(1);
    expect(h.watches[0]?.allowWatchBookmarks).toBe(true);

    // The next watch resumes from the bookmark's resourceVersion.
    s.faults.closeWatches();
    await eventually(() => h.watches.length >= 2, {
      what: 'a re-watch',
      timeoutMs: convergeMs,
      intervalMs: 10,
    });
    expect(Number(h.watches[1]?.resourceVersion)).toBeGreaterThanOrEqual(target);
    await update('a', '1');
    await expectConverged(h);
    expect(h.lists).toHaveLength(1);
  });

  it('a streaming list is used when the server offers it: no list call', async () => {
    await setup();
    for (const n of ['a', 'b', 'c']) await create(n);
    const h = startInformer({ informer: { useStreamingList: true } });
    await synced(() => h.registration.hasSynced());
    expect(h.lists).toEqual([]);
    expect(h.watches[0]).toMatchObject({
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
      allowWatchBookmarks: true,
    });
    expect(h.log).toEqual(
      ['a', 'b', 'c'].map((name) => expect.objectContaining({ type: 'add', name, initial: true })),
    );

    await create('d');
    await update('a', '1');
    await remove('b');
    await expectConverged(h);
    // The same stream went on as the watch.
    expect(h.watches).toHaveLength(1);
    expect(h.lists).toEqual([]);
  });

  it.each([422, 400])(
    'a streaming list refused with %i: falls back to a paged list, and the relist tries streaming first',
    async (code) => {
      const s = await setup();
      for (const n of ['a', 'b']) await create(n);
      s.faults.respondWith(code, {
        match: (r) => r.watch && r.query.get('sendInitialEvents') === 'true',
        times: Number.POSITIVE_INFINITY,
        message:
          'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch',
      });
      const h = startInformer({ informer: { useStreamingList: true } });
      await synced(() => h.registration.hasSynced());
      expect(h.watches[0]?.sendInitialEvents).toBe(true);
      expect(h.lists).toEqual([{ resourceVersion: '0', limit: 500 }]);
      await eventually(() => h.watches.length >= 2, {
        what: 'the watch after the list',
        timeoutMs: convergeMs,
        intervalMs: 10,
      });
      expect(h.watches[1]?.sendInitialEvents).toBeUndefined();

      // Force a relist (410): as in client-go, it tries streaming first, then lists.
      s.faults.compact();
      s.faults.closeWatches();
      await create('c');
      await eventually(() => h.lists.length >= 2, {
        what: 'the relist',
        timeoutMs: convergeMs,
        intervalMs: 10,
      });
      await expectConverged(h);
      const streamingAttempts = h.watches.filter((w) => w.sendInitialEvents === true);
      expect(streamingAttempts.length).toBe(h.lists.length);
      expect(streamingAttempts[1]).toMatchObject({ resourceVersionMatch: 'NotOlderThan' });
    },
  );

  it('a throwing handler is reported and the informer, and every handler, keep going', async () => {
    await setup();
    await create('boom-0');
    await create('ok-0');
    const errors: { message: string; info: HandlerErrorInfo }[] = [];
    const throwerView = new Map<string, string>();
    let thrower: ResourceEventHandlerRegistration | undefined;
    const boom = (cm: ConfigMap | DeletedFinalStateUnknown<ConfigMap>): boolean =>
      deletionHandlingMetaNamespaceKeyFunc(cm).startsWith(`${ns}/boom-`);
    const h = startInformer({
      informer: {
        onHandlerError: (error, info) =>
          void errors.push({ message: error instanceof Error ? error.message : '?', info }),
      },
      beforeRun: (informer) => {
        thrower = informer.addEventHandler({
          onAdd: (cm) => {
            if (boom(cm)) throw new Error(`add ${cm.metadata.name}`);
            throwerView.set(metaNamespaceKeyFunc(cm), cm.metadata.resourceVersion ?? '');
          },
          onUpdate: async (_old, cm) => {
            await Promise.resolve();
            if (boom(cm)) throw new Error(`update ${cm.metadata.name}`); // a rejection
            throwerView.set(metaNamespaceKeyFunc(cm), cm.metadata.resourceVersion ?? '');
          },
          onDelete: (cm) => {
            if (boom(cm)) throw new Error(`delete ${deletionHandlingMetaNamespaceKeyFunc(cm)}`);
            throwerView.delete(deletionHandlingMetaNamespaceKeyFunc(cm));
          },
        });
      },
    });
    // Throwing on an initial add does not keep the handler from syncing.
    await synced(
      () => h.registration.hasSynced(),
      () => thrower?.hasSynced() === true,
    );

    await create('boom-1');
    await create('ok-1');
    await update('boom-0', '1');
    await update('ok-0', '1');
    await remove('boom-1');
    await create('ok-2');

    // The thrower's view lacks only what it threw on.
    const withoutBoom = (state: Map<string, string>): Map<string, string> =>
      new Map([...state].filter(([key]) => !key.startsWith(`${ns}/boom-`)));
    await expectConverged(h);
    await expectConverged(h, [throwerView], withoutBoom);
    expect(errors).toEqual([
      { message: 'add boom-0', info: { informer: 'configmaps', event: 'add' } },
      { message: 'add boom-1', info: { informer: 'configmaps', event: 'add' } },
      { message: 'update boom-0', info: { informer: 'configmaps', event: 'update' } },
      { message: `delete ${ns}/boom-1`, info: { informer: 'configmaps', event: 'delete' } },
    ]);
    expect(h.informer.isStopped()).toBe(false);
    expect(h.watchErrors).toEqual([]);
  });

  it('a malformed watch line: reported as an InternalError, relisted, nothing lost', async () => {
    const s = await setup();
    await create('a');
    const h = startInformer();
    await synced(() => h.registration.hasSynced());
    s.faults.nextWatchLine('malformed'); // b's ADDED line is replaced by garbage
    await create('b');
    await create('c');
    await expectConverged(h);

    expect(h.watchErrors.length).toBeGreaterThanOrEqual(1);
    const first = h.watchErrors[0];
    expect(isStatusError(first)).toBe(true);
    expect(String(first)).toMatch(/unable to decode an event from the watch stream/);
    // As in client-go, the undecodable event is an InternalError that ends the watch: the
    // cache may have missed it, so the reflector lists again.
    expect(h.lists).toHaveLength(2);
    expect(h.watches.length).toBeGreaterThanOrEqual(2);
    expect(newAdds(h.log)).toEqual(['b', 'c']);
  });

  it('a 429 storm with Retry-After on the list: retried (client, then reflector) until synced', async () => {
    const s = await setup();
    for (const n of ['a', 'b']) await create(n);
    // Three 429s for the informer's list; its client retries once itself (Retry-After),
    // then gives up, and the reflector backs off and lists again.
    s.faults.respondWith(429, {
      retryAfterSeconds: 1,
      times: 3,
      match: (r) => isListOf('configmaps')(r) && r.query.get('resourceVersion') === '0',
    });
    const h = startInformer({ config: { maxRetries: 1 } });
    await synced(() => h.registration.hasSynced());

    expect(h.lists).toHaveLength(2);
    expect(h.watchErrors).toHaveLength(1);
    expect(isTooManyRequests(h.watchErrors[0])).toBe(true);
    expect(names(h.log, 'add')).toEqual(['a', 'b']);
    await create('c');
    await expectConverged(h);
  });
});
