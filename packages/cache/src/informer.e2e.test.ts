// End-to-end tests of the REST list-watch adapters and the informers built on them, against
// a real etcd + kube-apiserver started by @kubets/envtest (envtest).

import type { ListQueryOptions, WatchQueryOptions } from '@kubets/apimachinery';
import {
  everythingFieldSelector,
  isNotFound,
  type ObjectList,
  type ObjectMeta,
  type PartialObjectMetadata,
  type WatchEvent,
} from '@kubets/apimachinery';
import { loadConfig, PatchType, RESTClient } from '@kubets/rest';
import { createTestNamespace, eventually, useEnvtest } from '@kubets/test-utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { storeVersions, type TestConfigMap } from '../test/helpers.js';
import {
  type DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
  type Indexer,
  isDeletedFinalStateUnknown,
  type ListerWatcher,
  listWatchFromClient,
  metadataListWatchFromClient,
  metaNamespaceIndexFunc,
  metaNamespaceKeyFunc,
  namespaceIndex,
  newFilteredListWatchFromClient,
  newIndexerInformer,
  newSharedIndexInformer,
  type Store,
  waitForCacheSync,
} from './index.js';

type ConfigMap = TestConfigMap;

interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: { containers: { name: string; image: string }[] };
}

let core: RESTClient;

/** Generous deadline for the cache to converge; never a timing assertion. */
const convergeMs = 60_000;

function createNamespace(prefix: string): Promise<string> {
  const namespaces = { create: (ns: object) => core.post().resource('namespaces').body(ns).do() };
  return createTestNamespace(namespaces, prefix);
}

function configMap(name: string, data: Record<string, string> = { v: '0' }): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}

function createConfigMap(ns: string, cm: ConfigMap): Promise<ConfigMap> {
  return core.post().namespace(ns).resource('configmaps').body(cm).do<ConfigMap>();
}

function patchConfigMap(
  ns: string,
  name: string,
  data: Record<string, string>,
): Promise<ConfigMap> {
  return core
    .patch(PatchType.MergePatch)
    .namespace(ns)
    .resource('configmaps')
    .name(name)
    .body({ data })
    .do<ConfigMap>();
}

function deleteConfigMap(ns: string, name: string): Promise<unknown> {
  return core.delete().namespace(ns).resource('configmaps').name(name).do();
}

/** Runs `fn` over `items`, `concurrency` at a time. */
async function inParallel<I>(
  items: readonly I[],
  fn: (item: I) => Promise<unknown>,
  concurrency = 16,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

function names(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);
}

/** key → resourceVersion of the server's configmaps (one namespace, or all with ''). */
async function serverConfigMaps(ns: string): Promise<Map<string, string>> {
  const list = await core.get().namespace(ns).resource('configmaps').do<ObjectList<ConfigMap>>();
  return new Map(list.items.map((cm) => [metaNamespaceKeyFunc(cm), cm.metadata.resourceVersion!]));
}

function sameVersions(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, rv] of a) if (b.get(key) !== rv) return false;
  return true;
}

/** Waits until the store holds exactly the server's objects of `ns`, at the same versions. */
async function expectConverged<T extends { metadata?: ObjectMeta | undefined }>(
  store: Store<T>,
  ns: string,
): Promise<void> {
  let server = new Map<string, string>();
  await eventually(
    async () => {
      server = await serverConfigMaps(ns);
      return sameVersions(storeVersions(store, ns), server);
    },
    {
      what: `the cache to match the server's configmaps in "${ns || 'all'}"`,
      timeoutMs: convergeMs,
      intervalMs: 25,
    },
  ).catch((err: unknown) => {
    // Show the difference rather than only "timed out".
    expect(Object.fromEntries(storeVersions(store, ns))).toEqual(Object.fromEntries(server));
    throw err;
  });
}

/** A ListerWatcher that records every list call's options and counts watches. */
function recording<T>(lw: ListerWatcher<T>): {
  lw: ListerWatcher<T>;
  lists: ListQueryOptions[];
  watches: WatchQueryOptions[];
} {
  const lists: ListQueryOptions[] = [];
  const watches: WatchQueryOptions[] = [];
  return {
    lists,
    watches,
    lw: {
      list: (options, signal) => {
        lists.push({ ...options });
        return lw.list(options, signal);
      },
      watch: (options, signal) => {
        watches.push({ ...options });
        return lw.watch(options, signal);
      },
    },
  };
}

/**
 * Runs `informer` (or controller) until `whileSynced` has run, which starts once `synced`
 * holds (the informer's `hasSynced` unless given); then stops it and waits until it stopped.
 */
async function whileRunning(
  informer: { run(signal: AbortSignal): Promise<void>; hasSynced(): boolean },
  whileSynced: () => Promise<void>,
  synced: () => boolean = () => informer.hasSynced(),
): Promise<void> {
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  try {
    const deadline = AbortSignal.any([ac.signal, AbortSignal.timeout(convergeMs)]);
    expect(await waitForCacheSync(deadline, synced)).toBe(true);
    await whileSynced();
  } finally {
    ac.abort();
    await running;
  }
}

useEnvtest(async ({ kubeconfigPath: kubeconfig }) => {
  core = new RESTClient({ ...loadConfig({ kubeconfig }), qps: -1 }, { groupVersion: 'v1' });
  // The API server creates `default` shortly after it starts serving.
  await eventually(
    async () => {
      try {
        await core.get().resource('namespaces').name('default').do();
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    },
    { what: 'the default namespace', timeoutMs: convergeMs, intervalMs: 25 },
  );
});

describe('listWatchFromClient + newIndexerInformer (seed 000: the workqueue example)', () => {
  it('reports the pre-warmed mypod as deleted after sync, then adds, updates and deletes', async () => {
    type Seen =
      | { type: 'add'; key: string; initial: boolean }
      | { type: 'update'; key: string; oldRv: string; newRv: string }
      | { type: 'delete'; key: string; tombstone: boolean };
    const seen: Seen[] = [];
    const podSpec = { containers: [{ name: 'c', image: 'busybox' }] };
    const createPod = (name: string) =>
      core
        .post()
        .namespace('default')
        .resource('pods')
        .body({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: podSpec })
        .do<Pod>();
    await createPod('before-start');

    const podListWatcher = listWatchFromClient<Pod>(
      core,
      'pods',
      'default',
      everythingFieldSelector(),
    );
    const { indexer, controller } = newIndexerInformer<Pod>(
      podListWatcher,
      {
        onAdd: (pod, isInInitialList) =>
          void seen.push({ type: 'add', key: metaNamespaceKeyFunc(pod), initial: isInInitialList }),
        onUpdate: (oldPod, newPod) =>
          void seen.push({
            type: 'update',
            key: metaNamespaceKeyFunc(newPod),
            oldRv: oldPod.metadata.resourceVersion ?? '',
            newRv: newPod.metadata.resourceVersion ?? '',
          }),
        onDelete: (pod: Pod | DeletedFinalStateUnknown<Pod>) =>
          void seen.push({
            type: 'delete',
            key: deletionHandlingMetaNamespaceKeyFunc(pod),
            tombstone: isDeletedFinalStateUnknown(pod),
          }),
      },
      0,
      {},
    );
    // Warm the cache: we "knew" about mypod on a previous run.
    indexer.add({ metadata: { name: 'mypod', namespace: 'default' } });

    await whileRunning(controller, async () => {
      // Synced means the initial list, including the delete it implied, was processed.
      expect(seen).toContainEqual({ type: 'delete', key: 'default/mypod', tombstone: true });
      expect(seen).toContainEqual({ type: 'add', key: 'default/before-start', initial: true });
      expect(indexer.getByKey('default/mypod')).toBeUndefined();
      expect(indexer.getByKey('default/before-start')?.spec?.containers[0]?.image).toBe('busybox');

      seen.length = 0;
      const created = await createPod('p1');
      await eventually(() => seen.some((s) => s.key === 'default/p1'), {
        what: 'the add of p1',
        timeoutMs: convergeMs,
        intervalMs: 25,
      });
      expect(seen).toEqual([{ type: 'add', key: 'default/p1', initial: false }]);

      const patched = await core
        .patch(PatchType.MergePatch)
        .namespace('default')
        .resource('pods')
        .name('p1')
        .body({ metadata: { labels: { color: 'blue' } } })
        .do<Pod>();
      await eventually(() => seen.length >= 2, {
        what: 'the update of p1',
        timeoutMs: convergeMs,
        intervalMs: 25,
      });
      expect(seen[1]).toEqual({
        type: 'update',
        key: 'default/p1',
        oldRv: created.metadata.resourceVersion,
        newRv: patched.metadata.resourceVersion,
      });
      expect(indexer.getByKey('default/p1')?.metadata.labels).toEqual({ color: 'blue' });

      // Unscheduled pods are deleted at once (no kubelet needs to confirm); the server may
      // first record the deletion timestamp, which arrives as one more update.
      await core.delete().namespace('default').resource('pods').name('p1').do();
      await eventually(() => seen.some((s) => s.type === 'delete'), {
        what: 'the delete of p1',
        timeoutMs: convergeMs,
        intervalMs: 25,
      });
      expect(seen.at(-1)).toEqual({ type: 'delete', key: 'default/p1', tombstone: false });
      for (const s of seen.slice(2, -1))
        expect(s).toMatchObject({ type: 'update', key: 'default/p1' });
      expect(indexer.getByKey('default/p1')).toBeUndefined();
      expect(indexer.listKeys()).toEqual(['default/before-start']);
    });
  });
});

describe('SharedIndexInformer over configmaps with a namespace index', () => {
  it('syncs 200 configmaps in two namespaces and converges after updates and deletes', async () => {
    const [nsA, nsB] = [await createNamespace('cache-a'), await createNamespace('cache-b')];
    const namesA = names('a', 100);
    const namesB = names('b', 100);
    await inParallel(namesA, (n) => createConfigMap(nsA, configMap(n)));
    await inParallel(namesB, (n) => createConfigMap(nsB, configMap(n)));

    const informer = newSharedIndexInformer<ConfigMap>(
      listWatchFromClient<ConfigMap>(core, 'configmaps', ''),
      'configmaps',
      { indexers: { [namespaceIndex]: metaNamespaceIndexFunc } },
    );
    // What a handler last saw, per key: it must end up at the server's state too.
    const handlerView = new Map<string, string>();
    const registration = informer.addEventHandler({
      onAdd: (cm) => void handlerView.set(metaNamespaceKeyFunc(cm), cm.metadata.resourceVersion!),
      onUpdate: (_old, cm) =>
        void handlerView.set(metaNamespaceKeyFunc(cm), cm.metadata.resourceVersion!),
      onDelete: (cm) => void handlerView.delete(deletionHandlingMetaNamespaceKeyFunc(cm)),
    });
    await whileRunning(
      informer,
      async () => {
        const indexer: Indexer<ConfigMap> = informer.getIndexer();
        expect(indexer.byIndex(namespaceIndex, nsA)).toHaveLength(100);
        expect(indexer.byIndex(namespaceIndex, nsB)).toHaveLength(100);
        expect(indexer.listIndexFuncValues(namespaceIndex)).toEqual(
          expect.arrayContaining([nsA, nsB]),
        );
        expect(sameVersions(storeVersions(indexer, nsA), await serverConfigMaps(nsA))).toBe(true);
        // Listed, not watched: kube-apiserver leaves apiVersion and kind out of list items;
        // the cache holds them first, as in a watch event's object.
        const listed = indexer.getByKey(`${nsA}/${namesA[0]}`);
        expect(Object.keys(listed ?? {}).slice(0, 3)).toEqual(['kind', 'apiVersion', 'metadata']);
        expect(listed).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });

        // Change a third of A, delete a fifth of B, add a few to B.
        const updated = namesA.filter((_, i) => i % 3 === 0);
        const deleted = namesB.filter((_, i) => i % 5 === 0);
        const added = names('b-new', 7);
        await inParallel(updated, (n) => patchConfigMap(nsA, n, { v: 'changed' }));
        await inParallel(deleted, (n) => deleteConfigMap(nsB, n));
        await inParallel(added, (n) => createConfigMap(nsB, configMap(n)));

        await expectConverged(indexer, '');
        expect(indexer.byIndex(namespaceIndex, nsA)).toHaveLength(100);
        expect(indexer.byIndex(namespaceIndex, nsB)).toHaveLength(100 - deleted.length + 7);
        expect(indexer.getByKey(`${nsA}/${updated[1]}`)?.data).toEqual({ v: 'changed' });
        expect(Object.keys(indexer.getByKey(`${nsA}/${updated[1]}`) ?? {}).slice(0, 3)).toEqual([
          'kind',
          'apiVersion',
          'metadata',
        ]);
        expect(indexer.getByKey(`${nsB}/${deleted[1]}`)).toBeUndefined();
        await eventually(() => sameVersions(handlerView, storeVersions(indexer, '')), {
          what: 'the handler to see the final state',
          timeoutMs: convergeMs,
          intervalMs: 25,
        });
      },
      () => registration.hasSynced(),
    );
  });
});

describe('metadataListWatchFromClient', () => {
  it('caches PartialObjectMetadata: metadata without data, from the list and the watch', async () => {
    const ns = await createNamespace('cache-meta');
    await inParallel(names('m', 20), (n) =>
      createConfigMap(ns, configMap(n, { payload: 'x'.repeat(1000) })),
    );
    const informer = newSharedIndexInformer<PartialObjectMetadata>(
      metadataListWatchFromClient(core, 'configmaps', ns),
      'configmaps metadata',
    );
    await whileRunning(informer, async () => {
      const store = informer.getStore();
      expect(store.list()).toHaveLength(20);
      for (const obj of store.list()) {
        expect(obj).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
        expect(obj.metadata?.name).toMatch(/^m-/);
        expect(obj.metadata?.namespace).toBe(ns);
        expect(obj.metadata?.uid).toBeTruthy();
        expect(obj.metadata?.resourceVersion).toMatch(/^\d+$/);
        expect(obj).not.toHaveProperty('data');
      }

      // Watch events are metadata-only too.
      const changed = await patchConfigMap(ns, 'm-0003', { payload: 'y' });
      await createConfigMap(ns, configMap('m-new', { payload: 'z' }));
      await expectConverged(store, ns);
      const fromWatch = store.getByKey(`${ns}/m-0003`);
      expect(fromWatch?.metadata?.resourceVersion).toBe(changed.metadata.resourceVersion);
      expect(fromWatch).not.toHaveProperty('data');
      expect(fromWatch?.kind).toBe('PartialObjectMetadata');
      expect(store.getByKey(`${ns}/m-new`)).not.toHaveProperty('data');
    });
  });
});

describe('paging', () => {
  let ns: string;

  beforeAll(async () => {
    ns = await createNamespace('cache-page');
    await inParallel(names('p', 1200), (n) => createConfigMap(ns, configMap(n)), 24);
  }, 300_000);

  it('pages with limit 500 when listing at resourceVersion ""', async () => {
    // The reflector's first list asks for resourceVersion 0; this tweak turns it into a
    // quorum list, which etcd serves in pages.
    const rec = recording(
      newFilteredListWatchFromClient<ConfigMap>(core, 'configmaps', ns, (o) => {
        if (o.resourceVersion === '0') o.resourceVersion = '';
      }),
    );
    const informer = newSharedIndexInformer<ConfigMap>(rec.lw, 'configmaps');
    await whileRunning(informer, async () => {
      expect(informer.getStore().list()).toHaveLength(1200);
      expect(rec.lists).toHaveLength(3);
      expect(rec.lists.map((o) => o.limit)).toEqual([500, 500, 500]);
      expect(rec.lists[0]?.continue).toBeUndefined();
      expect(rec.lists[1]?.continue).toBeTruthy();
      expect(rec.lists[2]?.continue).toBeTruthy();
      expect(rec.lists[2]?.continue).not.toBe(rec.lists[1]?.continue);
      await expectConverged(informer.getStore(), ns);
    });
  });

  it('gets everything in one answer at resourceVersion 0 (the watch cache ignores limit)', async () => {
    const rec = recording(listWatchFromClient<ConfigMap>(core, 'configmaps', ns));
    const informer = newSharedIndexInformer<ConfigMap>(rec.lw, 'configmaps');
    await whileRunning(informer, async () => {
      expect(rec.lists).toEqual([{ resourceVersion: '0', limit: 500 }]);
      expect(informer.getStore().list()).toHaveLength(1200);
    });
  });
});

describe('a watch the server closes', () => {
  it('is resumed from the last resourceVersion without a relist, losing nothing', async () => {
    const ns = await createNamespace('cache-close');
    await inParallel(names('pre', 5), (n) => createConfigMap(ns, configMap(n)));
    const eventsPerWatch = 4;
    const rec = recording(listWatchFromClient<ConfigMap>(core, 'configmaps', ns));
    // Ends every watch after a few events, as a server closing the connection would: the
    // events after the cut (already on the wire or not) are dropped here.
    const closing: ListerWatcher<ConfigMap> = {
      list: rec.lw.list,
      watch: async (options, signal) => {
        const connection = new AbortController();
        const linked = AbortSignal.any([signal, connection.signal]);
        const inner = await rec.lw.watch(options, linked);
        return (async function* (): AsyncGenerator<WatchEvent<ConfigMap>> {
          let count = 0;
          for await (const event of inner) {
            yield event;
            if (++count >= eventsPerWatch) {
              connection.abort();
              return;
            }
          }
        })();
      },
    };
    const informer = newSharedIndexInformer<ConfigMap>(closing, 'configmaps');
    const adds: string[] = [];
    const watchErrors: unknown[] = [];
    informer.setWatchErrorHandler((err) => void watchErrors.push(err));
    informer.addEventHandler({ onAdd: (cm) => void adds.push(cm.metadata.name!) });
    await whileRunning(informer, async () => {
      const later = names('later', 30);
      // One at a time, so the events arrive spread over many watches.
      await inParallel(later, (n) => createConfigMap(ns, configMap(n)), 1);
      await inParallel(later.slice(0, 10), (n) => patchConfigMap(ns, n, { v: '1' }), 2);
      await inParallel(later.slice(20), (n) => deleteConfigMap(ns, n), 2);

      await expectConverged(informer.getStore(), ns);
      expect(rec.lists).toHaveLength(1);
      // 50 changes at 4 events per watch: at least 12 watches were cut and resumed.
      expect(rec.watches.length).toBeGreaterThanOrEqual(13);
      for (const w of rec.watches.slice(1)) expect(w.resourceVersion).toMatch(/^\d+$/);
      expect(new Set(adds)).toEqual(new Set([...names('pre', 5), ...later]));
      expect(adds).toHaveLength(35);
      expect(watchErrors).toEqual([]);
    });
  });
});
