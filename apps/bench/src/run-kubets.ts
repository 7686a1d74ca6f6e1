// Runner (a), (c) and (d): a kubets shared informer over the benchmark's Pods with a
// namespace index; its handler puts keys into a rate-limiting work queue that one worker
// drains (get → look the object up in the cache → forget → done), as a controller does.
//
//   node --expose-gc src/run-kubets.ts '<RunnerConfig JSON>'   (started by main.ts)
//
// Variants: `kubets` (full Pods), `kubets-handler` (the same informer, its handler only
// counts events: no work queue, no worker), `kubets-transform` (a transform drops
// managedFields before objects are cached), `kubets-metadata` (metadata-only:
// PartialObjectMetadata).

import {
  dropManagedFields,
  type ListerWatcher,
  listWatchFromClient,
  metadataListWatchFromClient,
  metaNamespaceIndexFunc,
  metaNamespaceKeyFunc,
  namespaceIndex,
  newSharedIndexInformer,
} from '@kubets/cache';
import { loadConfig, RESTClient } from '@kubets/rest';
import { newRateLimitingQueue } from '@kubets/workqueue';
import { Expirer } from './expire.ts';
import { type BenchObject, type Counters, runBenchmark, runnerConfig } from './runner.ts';

const config = runnerConfig();

await runBenchmark(config, (counters: Counters) => {
  const rest = loadConfig({ kubeconfig: config.kubeconfig });
  const http2 = config.variant.startsWith('kubets-h2');
  const core = new RESTClient({ ...rest, qps: -1, http2 }, { groupVersion: 'v1' });
  const inner: ListerWatcher<BenchObject> =
    config.variant === 'kubets-metadata'
      ? metadataListWatchFromClient(core, 'pods', config.namespace)
      : listWatchFromClient<BenchObject>(core, 'pods', config.namespace);
  const expirer = new Expirer<BenchObject>();
  const informer = newSharedIndexInformer(expirer.wrap(inner), 'pods', {
    indexers: { [namespaceIndex]: metaNamespaceIndexFunc },
  });
  if (config.variant === 'kubets-transform') informer.setTransform(dropManagedFields);
  const indexer = informer.getIndexer();

  const queue = newRateLimitingQueue<string>();
  const handlerOnly = config.variant === 'kubets-handler' || config.variant === 'kubets-h2-handler';
  informer.addEventHandler(
    handlerOnly
      ? {
          onAdd() {
            counters.added();
            counters.handled();
          },
          onUpdate(_old, obj) {
            counters.updated(obj);
            counters.handled();
          },
        }
      : {
          onAdd(obj) {
            counters.added();
            queue.add(metaNamespaceKeyFunc(obj));
          },
          onUpdate(_old, obj) {
            counters.updated(obj);
            queue.add(metaNamespaceKeyFunc(obj));
          },
          onDelete(obj) {
            queue.add(metaNamespaceKeyFunc(obj));
          },
        },
  );

  const worker = async (): Promise<void> => {
    for (;;) {
      const { item: key, shutdown } = await queue.get();
      if (shutdown) return;
      let found = false;
      try {
        // The "sync": read the object from the cache.
        found = indexer.getByKey(key)?.metadata?.resourceVersion !== undefined;
        queue.forget(key);
      } finally {
        queue.done(key);
      }
      counters.worked(queue.len() === 0, found);
    }
  };

  const stop = new AbortController();
  let running: Promise<void> | undefined;
  let working: Promise<void> | undefined;

  return {
    async startAndSync() {
      running = informer.run(stop.signal);
      if (!handlerOnly) working = worker();
      await new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          if (informer.hasSynced()) {
            clearInterval(timer);
            resolve();
          }
        }, 1);
      });
    },
    cacheSize: () => indexer.listKeys().length,
    async relist() {
      // Done once the last object of the new list is the one in the cache (the list is in
      // key order and the DeltaFIFO hands its items on in list order). An unchanged object
      // is relisted as the very object cached (the informer's reuseItem hint), so the
      // cache holds it from the start and the check is that the cache holds it.
      const before = expirer.lists;
      const replaced = new Promise<void>((resolve) => {
        expirer.onList = (list) => {
          expirer.onList = undefined;
          const last = list.items.at(-1);
          if (last === undefined) {
            resolve();
            return;
          }
          const key = metaNamespaceKeyFunc(last);
          const timer = setInterval(() => {
            if (indexer.getByKey(key) === last) {
              clearInterval(timer);
              resolve();
            }
          }, 1);
        };
      });
      expirer.expire();
      await replaced;
      // The reflector backs off (as client-go's) before it lists again: timed from the list.
      return { lists: expirer.lists - before, listStartedAt: expirer.lastListStartedAt };
    },
    async stop() {
      stop.abort();
      queue.shutDown();
      await Promise.allSettled([running, working]);
    },
  };
});
