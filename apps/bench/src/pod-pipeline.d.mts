import type { ListerWatcher } from '@kubets/cache';
import type { RESTClient } from '@kubets/rest';

/** A running {@link startPodPipeline} or {@link startClientNodePipeline}. */
export interface PodPipeline {
  /** The informer has synced and the queue is empty. */
  idle(): boolean;
  /** The informer has synced. */
  synced(): boolean;
  /** Stops the informer and shuts the queue down. */
  stop(): void;
}

/**
 * Starts the kubets pipeline on the Pods of `namespace` (or of `listWatch`); `onAdd` and
 * `onUpdate` are called for every add and update event. With `queue: false` the informer has
 * only a handler that calls them.
 */
export function startPodPipeline(
  options: ({ core: RESTClient; namespace: string } | { listWatch: ListerWatcher<unknown> }) & {
    onAdd?: () => void;
    onUpdate?: () => void;
    queue?: boolean;
    shareManagedFields?: boolean;
  },
): Promise<PodPipeline>;

/** client-node's `makeInformer` + an array queue + one worker, resolved once started. */
export function startClientNodePipeline(options: {
  kubeconfig: string;
  namespace: string;
  onUpdate?: () => void;
}): Promise<PodPipeline>;
