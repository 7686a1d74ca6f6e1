import type { RESTClient } from '@kubets/rest';

/** A running {@link startPodPipeline}. */
export interface PodPipeline {
  /** The informer has synced and the queue is empty. */
  idle(): boolean;
  /** The informer has synced. */
  synced(): boolean;
  /** Stops the informer and shuts the queue down. */
  stop(): void;
}

/** Starts the pipeline on the Pods of `namespace`; `onUpdate` is called for every update event. */
export function startPodPipeline(options: {
  core: RESTClient;
  namespace: string;
  onUpdate?: () => void;
}): Promise<PodPipeline>;
