import { freezingTransform } from './mutation-detector.js';
import type { CacheIndexer } from './store.js';
import { RealFIFO, type RealFIFOOptions } from './the-real-fifo.js';

/**
 * The queue of an informer over `store` (client-go `newQueueFIFO` with `InOrderInformers`
 * and `AtomicFIFO`): in-order delivery, relists and resyncs as single deltas, watch bookmarks
 * handed on to the store in order (`EmitDeltaTypeBookmark`). Objects a
 * relist hands back from the store itself were transformed already. With `detectMutations`
 * every object is deep-frozen after the transform, before it reaches the store.
 */
export function informerFIFO<T>(
  store: CacheIndexer<T>,
  transform: ((obj: T) => T) | undefined,
  detectMutations: boolean,
  metrics: Pick<RealFIFOOptions<T>, 'identifier' | 'metricsProvider'> = {},
): RealFIFO<T> {
  const keyFunc = store.keyFunc;
  return new RealFIFO<T>({
    emitDeltaTypeBookmark: true,
    keyFunction: keyFunc,
    transformer: freezingTransform(transform, detectMutations),
    isTransformed: (obj, key) => store.getByKey(key) === obj,
    identifier: metrics.identifier,
    metricsProvider: metrics.metricsProvider,
  });
}
