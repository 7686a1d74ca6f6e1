// Runner (b): `@kubernetes/client-node` 2.0.1's `makeInformer` (its ListWatch) over the
// benchmark's Pods, with a handler doing the same work as the kubets runner's: keys go into
// a plain array that one worker drains, looking each object up in the informer's cache.
//
//   node --expose-gc src/run-client-node.ts '<RunnerConfig JSON>'   (started by main.ts)
//
// The relist is the one ListWatch does when its watch fails with 410: its `doneHandler` is
// called with a 410 error, which clears the resourceVersion, lists and starts a new watch.

import {
  CoreV1Api,
  KubeConfig,
  makeInformer,
  type V1Pod,
  type V1PodList,
} from '@kubernetes/client-node';
import { type Counters, runBenchmark, runnerConfig } from './runner.ts';

const config = runnerConfig();

await runBenchmark(config, (counters: Counters) => {
  const kc = new KubeConfig();
  kc.loadFromFile(config.kubeconfig);
  const api = kc.makeApiClient(CoreV1Api);
  let lists = 0;
  const listFn = (): Promise<V1PodList> => {
    lists++;
    return api.listNamespacedPod({ namespace: config.namespace });
  };
  const informer = makeInformer<V1Pod>(kc, `/api/v1/namespaces/${config.namespace}/pods`, listFn);
  // Errors after a stop or from the aborted watch of the forced relist are expected.
  informer.on('error', () => undefined);

  // The work queue: a plain array with a read index, and one worker.
  let items: string[] = [];
  let head = 0;
  let wake: (() => void) | undefined;
  let stopped = false;
  const enqueue = (obj: V1Pod): void => {
    items.push(`${obj.metadata?.namespace}/${obj.metadata?.name}`);
    if (wake !== undefined) {
      const w = wake;
      wake = undefined;
      w();
    }
  };
  informer.on('add', (obj) => {
    counters.added();
    enqueue(obj);
  });
  informer.on('update', (obj) => {
    counters.updated(obj);
    enqueue(obj);
  });
  informer.on('delete', enqueue);

  const worker = async (): Promise<void> => {
    while (!stopped) {
      if (head === items.length) {
        items = [];
        head = 0;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      const key = items[head++]!;
      const slash = key.indexOf('/');
      // The "sync": read the object from the cache.
      const obj = informer.get(key.slice(slash + 1), key.slice(0, slash));
      counters.worked(head === items.length, obj?.metadata?.resourceVersion !== undefined);
      // Yield now and then, as an async worker awaiting its queue does.
      if (head % 64 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };
  let working: Promise<void> | undefined;

  return {
    async startAndSync() {
      working = worker();
      // Resolves once the list is in the cache (and handed to the handlers) and the watch is up.
      await informer.start();
    },
    cacheSize: () => informer.list().length,
    async relist() {
      const before = lists;
      const internal = informer as unknown as { doneHandler(err: unknown): Promise<void> };
      await internal.doneHandler({ statusCode: 410 });
      return { lists: lists - before };
    },
    async stop() {
      stopped = true;
      wake?.();
      await informer.stop();
      await working;
    },
  };
});
