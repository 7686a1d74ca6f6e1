// The controller pipeline the benchmarks run: a Pod informer whose handler puts keys into a
// rate-limiting work queue, drained by one worker that looks each key up in the cache.
// Plain JavaScript (types in pod-pipeline.d.mts) so that startup-probe.mjs can load it
// without Node's TypeScript stripping; watch-floor.ts uses it too.

/** Starts the pipeline on the Pods of `namespace`; `onUpdate` is called for every update event. */
export async function startPodPipeline({ core, namespace, onUpdate }) {
  const cache = await import('@kubets/cache');
  const { newRateLimitingQueue } = await import('@kubets/workqueue');
  const informer = cache.newSharedIndexInformer(
    cache.listWatchFromClient(core, 'pods', namespace),
    'pods',
  );
  const queue = newRateLimitingQueue();
  const enqueue = (obj) => queue.add(cache.metaNamespaceKeyFunc(obj));
  informer.addEventHandler({
    onAdd: enqueue,
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
