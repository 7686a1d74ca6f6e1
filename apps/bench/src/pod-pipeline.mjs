// The controller pipelines the benchmarks run: a Pod informer whose handler puts keys into a
// work queue (kubets: a rate-limiting queue; client-node: a plain array), drained by one
// worker that looks each key up in the cache.
// Plain JavaScript (types in pod-pipeline.d.mts) so that startup-probe.mjs can load it
// without Node's TypeScript stripping; watch-floor.ts uses it too.

/**
 * Starts the kubets pipeline on the Pods of `namespace` (or of `listWatch`); `onAdd` and
 * `onUpdate` are called for every add and update event. With `queue: false` the informer has
 * only a handler that calls them.
 */
export async function startPodPipeline({
  core,
  namespace,
  listWatch,
  onAdd,
  onUpdate,
  queue: withQueue = true,
  shareManagedFields = true,
}) {
  const cache = await import('@kubets/cache');
  const { newRateLimitingQueue } = await import('@kubets/workqueue');
  const informer = cache.newSharedIndexInformer(
    listWatch ?? cache.listWatchFromClient(core, 'pods', namespace),
    'pods',
    { shareManagedFields },
  );
  if (!withQueue) {
    informer.addEventHandler({ onAdd: () => onAdd?.(), onUpdate: () => onUpdate?.() });
    const stop = new AbortController();
    void informer.run(stop.signal);
    return {
      idle: () => informer.hasSynced(),
      synced: () => informer.hasSynced(),
      stop: () => stop.abort(),
    };
  }
  const queue = newRateLimitingQueue();
  const enqueue = (obj) => queue.add(cache.metaNamespaceKeyFunc(obj));
  informer.addEventHandler({
    onAdd: (obj) => {
      onAdd?.();
      enqueue(obj);
    },
    onUpdate: (_old, obj) => {
      onUpdate?.();
      enqueue(obj);
    },
    onDelete: enqueue,
  });
  const stop = new AbortController();
  void informer.run(stop.signal);
  void (async () => {
    for (;;) {
      const { item, shutdown } = await queue.get();
      if (shutdown) return;
      informer.getIndexer().getByKey(item);
      queue.forget(item);
      queue.done(item);
    }
  })();
  return {
    idle: () => informer.hasSynced() && queue.len() === 0,
    synced: () => informer.hasSynced(),
    stop() {
      stop.abort();
      queue.shutDown();
    },
  };
}

/**
 * Starts client-node's counterpart of {@link startPodPipeline} (as the bench's client-node
 * runner): `makeInformer`, a handler pushing `namespace/name` keys onto an array, and one
 * worker draining it, looking each object up with `informer.get`. Resolves once the informer's
 * `start()` did (list cached, watch connected).
 */
export async function startClientNodePipeline({ kubeconfig, namespace, onUpdate }) {
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${namespace}/pods`, () =>
    api.listNamespacedPod({ namespace }),
  );
  informer.on('error', () => undefined);
  let keys = [];
  let head = 0;
  let wake;
  let stopped = false;
  const enqueue = (pod) => {
    keys.push(`${pod.metadata?.namespace}/${pod.metadata?.name}`);
    if (wake !== undefined) {
      const w = wake;
      wake = undefined;
      w();
    }
  };
  informer.on('add', enqueue);
  informer.on('update', (pod) => {
    onUpdate?.();
    enqueue(pod);
  });
  informer.on('delete', enqueue);
  void (async () => {
    while (!stopped) {
      if (head === keys.length) {
        keys = [];
        head = 0;
        await new Promise((resolve) => {
          wake = resolve;
        });
        continue;
      }
      const key = keys[head++];
      const slash = key.indexOf('/');
      informer.get(key.slice(slash + 1), key.slice(0, slash));
      // Yield now and then, as an async worker awaiting its queue does.
      if (head % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  await informer.start();
  return {
    idle: () => head === keys.length,
    synced: () => true,
    stop() {
      stopped = true;
      wake?.();
      void informer.stop();
    },
  };
}
