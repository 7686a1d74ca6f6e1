// The Mydemo controller of seed 003 (crddemo's controller.go), in TypeScript: an informer on
// Mydemo objects feeds their keys into a rate-limited work queue; workers take the keys, look
// the objects up in the informer's cache and "process" them, recording a `Synced` Event.
// The structure and the log lines are the Go program's: NewController, Run, runWorker,
// processNextWorkItem, syncHandler, enqueueMydemo.

import { isIP } from 'node:net';
import { isNotFound } from '@kubets/apimachinery';
import * as cache from '@kubets/cache';
import type { Clientset } from '@kubets/clientset';
import {
  type EventBroadcaster,
  type EventRecorder,
  eventSinkFromClientset,
  newBroadcaster,
} from '@kubets/record';
import * as workqueue from '@kubets/workqueue';
import { aborted, errorMessage, handleError, klog } from '@kubets-apps/shared';
import { crddemoV1 } from './generated/index.ts';

type Mydemo = crddemoV1.Mydemo;

const controllerAgentName = 'demo-controller';

/** The reason of the Event recorded when a Mydemo is synced successfully. */
export const SuccessSynced = 'Synced';
/** The message of the Event recorded when a Mydemo is synced successfully. */
export const MessageResourceSynced = 'Mydemo synced successfully';
/** The reason of the Warning Event recorded for a Mydemo whose spec the controller rejects. */
export const ErrInvalidSpec = 'InvalidSpec';

/**
 * What is wrong with a Mydemo's spec for this controller, or `undefined` when nothing is. The
 * CRD's schema only types the fields (and the seed's v1beta1 CRD has no schema at all), so the
 * controller checks the values itself.
 */
export function validateSpec(spec: crddemoV1.MydemoSpec | undefined): string | undefined {
  const port = spec?.port;
  if (port === undefined) return 'spec.port is missing';
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    return `spec.port ${port} is outside 1-65535`;
  }
  const ip = spec?.ip;
  if (ip === undefined || ip === '') return 'spec.ip is missing';
  if (isIP(ip) === 0) return `spec.ip ${JSON.stringify(ip)} is not an IP address`;
  return undefined;
}

/** The object as Events reference it: list items may lack `apiVersion` and `kind`. */
function withTypeMeta(mydemo: Mydemo): Mydemo {
  const { group, version, kind } = crddemoV1.mydemosResource;
  if (mydemo.apiVersion && mydemo.kind) return mydemo;
  return {
    ...mydemo,
    apiVersion: `${group}/${version}` as 'crddemo.k8s.io/v1',
    kind: kind as 'Mydemo',
  };
}

/** The controller implementation for Mydemo resources. */
export class Controller {
  /** The clientset Events are written through. */
  readonly kubeclientset: Clientset;
  /** Reads Mydemo objects from the informer's cache. */
  readonly mydemosLister: crddemoV1.MydemoLister;
  /** True once the informer's cache has synced. */
  readonly mydemosSynced: () => boolean;
  /**
   * A rate-limited work queue. It queues work to be processed instead of performing it as
   * soon as a change happens, so that only a fixed number of objects are processed at once
   * and one object is never processed by two workers at the same time.
   */
  readonly workqueue: workqueue.RateLimitingWorkQueue<string>;
  /** Records Events to the Kubernetes API. */
  readonly recorder: EventRecorder;
  readonly #eventBroadcaster: EventBroadcaster;

  constructor(
    kubeclientset: Clientset,
    mydemoInformer: crddemoV1.MydemoInformer,
    eventBroadcaster: EventBroadcaster,
    recorder: EventRecorder,
  ) {
    this.kubeclientset = kubeclientset;
    this.mydemosLister = mydemoInformer.lister();
    const informer = mydemoInformer.informer();
    this.mydemosSynced = () => informer.hasSynced();
    this.workqueue = workqueue.newRateLimitingQueue<string>(
      workqueue.defaultControllerRateLimiter(),
      { name: 'Mydemos' },
    );
    this.#eventBroadcaster = eventBroadcaster;
    this.recorder = recorder;
  }

  /**
   * Sets up the informer's event handlers, waits for its cache to sync, then starts
   * `threadiness` workers. It blocks until `signal` aborts, then shuts down the work queue
   * and waits for the workers to finish their current items.
   */
  async run(threadiness: number, signal: AbortSignal): Promise<void> {
    const workers: Promise<void>[] = [];
    try {
      klog.info('Starting Mydemo control loop');

      // Wait for the caches to be synced before starting workers
      klog.info('Waiting for informer caches to sync');
      if (!(await cache.waitForCacheSync(signal, this.mydemosSynced))) {
        if (signal.aborted) return; // stopped before the cache ever synced
        throw new Error('failed to wait for caches to sync');
      }

      klog.info('Starting workers');
      // Launch workers to process Mydemo resources
      for (let i = 0; i < threadiness; i++) workers.push(this.runWorker());

      klog.info('Started workers');
      await aborted(signal);
      klog.info('Shutting down workers');
    } finally {
      this.workqueue.shutDown();
      await Promise.all(workers);
      await this.#stopRecording();
    }
  }

  /** Writes the Events recorded so far (for at most 5 s), then stops the broadcaster. */
  async #stopRecording(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#eventBroadcaster.flush(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, 5000);
      }),
    ]);
    clearTimeout(timer);
    await this.#eventBroadcaster.shutdown();
  }

  /**
   * A long-running loop that keeps calling processNextWorkItem, which reads and processes a
   * message on the work queue, until the queue shuts down.
   */
  async runWorker(): Promise<void> {
    while (await this.processNextWorkItem()) {}
  }

  /**
   * Reads a single work item off the work queue and processes it by calling syncHandler.
   * Returns false once the queue has shut down.
   */
  async processNextWorkItem(): Promise<boolean> {
    const { item: key, shutdown } = await this.workqueue.get();
    if (shutdown) return false;

    // We call done here so the workqueue knows we have finished processing this item. We also
    // must remember to call forget if we do not want this work item being re-queued. For
    // example, we do not call forget if a transient error occurs; instead the item is put back
    // on the workqueue and attempted again after a back-off period.
    try {
      // Run the syncHandler, passing it the namespace/name string of the Mydemo resource to
      // be synced.
      await this.syncHandler(key);
      // Finally, if no error occurs we forget this item so it does not get queued again
      // until another change happens.
      this.workqueue.forget(key);
      klog.info(`Successfully synced '${key}'`);
    } catch (err) {
      // Put the item back on the workqueue to handle any transient errors.
      this.workqueue.addRateLimited(key);
      handleError(new Error(`error syncing '${key}': ${errorMessage(err)}`));
    } finally {
      this.workqueue.done(key);
    }
    return true;
  }

  /**
   * Compares the actual state with the desired, and attempts to converge the two — here it
   * prints the Mydemo and records an Event.
   */
  async syncHandler(key: string): Promise<void> {
    // Convert the namespace/name string into a distinct namespace and name
    const { namespace, name } = cache.splitMetaNamespaceKey(key);
    if (name === '') {
      handleError(new Error(`invalid resource key: ${key}`));
      return;
    }

    // Get the Mydemo resource with this namespace/name
    let mydemo: Mydemo;
    try {
      mydemo = this.mydemosLister.byNamespace(namespace).get(name);
    } catch (err) {
      // The Mydemo resource may no longer exist, in which case we stop processing.
      if (isNotFound(err)) {
        klog.warning(
          `DemoCRD: ${namespace}/${name} does not exist in local cache, will delete it from Mydemo ...`,
        );
        klog.info(`[DemoCRD] Deleting mydemo: ${namespace}/${name} ...`);
        return;
      }
      handleError(new Error(`failed to list mydemo by: ${namespace}/${name}`));
      throw err;
    }

    klog.info(`[DemoCRD] Try to process mydemo: ${JSON.stringify(mydemo)} ...`);

    const problem = validateSpec(mydemo.spec);
    if (problem !== undefined) {
      // Nothing to retry: the object has to change. Tell its owner through a Warning Event.
      klog.warning(`[DemoCRD] Invalid mydemo ${key}: ${problem}`);
      this.recorder.event(
        withTypeMeta(mydemo),
        'Warning',
        ErrInvalidSpec,
        `Invalid spec: ${problem}`,
      );
      return;
    }

    this.recorder.event(withTypeMeta(mydemo), 'Normal', SuccessSynced, MessageResourceSynced);
  }

  /**
   * Takes a Mydemo resource and converts it into a namespace/name string which is then put
   * onto the work queue. Only for Mydemo objects, not tombstones.
   */
  enqueueMydemo(obj: Mydemo): void {
    let key: string;
    try {
      key = cache.metaNamespaceKeyFunc(obj);
    } catch (err) {
      handleError(err);
      return;
    }
    this.workqueue.addRateLimited(key);
  }

  /** Like enqueueMydemo, for deletions: the object may be a DeletedFinalStateUnknown tombstone. */
  enqueueMydemoForDelete(obj: Mydemo | cache.DeletedFinalStateUnknown<Mydemo>): void {
    let key: string;
    try {
      key = cache.deletionHandlingMetaNamespaceKeyFunc(obj);
    } catch (err) {
      handleError(err);
      return;
    }
    this.workqueue.addRateLimited(key);
  }
}

/**
 * Returns a new Mydemo controller (crddemo's `NewController`): an event broadcaster logging
 * through klog and writing Events through `kubeclientset`, and the informer's handlers.
 */
export function newController(
  kubeclientset: Clientset,
  mydemoInformer: crddemoV1.MydemoInformer,
): Controller {
  // Create the event broadcaster: Events are logged and written to the API server.
  const eventBroadcaster = newBroadcaster();
  eventBroadcaster.startLogging((message) => klog.info(message));
  eventBroadcaster.startRecordingToSink(eventSinkFromClientset(kubeclientset));
  const recorder = eventBroadcaster.newRecorder({ component: controllerAgentName });

  const controller = new Controller(kubeclientset, mydemoInformer, eventBroadcaster, recorder);

  klog.info('Setting up mydemo event handlers');
  // Set up an event handler for when Mydemo resources change
  mydemoInformer.informer().addEventHandler({
    onAdd: (obj) => controller.enqueueMydemo(obj),
    onUpdate: (oldObj, newObj) => {
      // Periodic resyncs deliver the same object again: nothing changed, nothing to do.
      if (oldObj.metadata?.resourceVersion === newObj.metadata?.resourceVersion) return;
      controller.enqueueMydemo(newObj);
    },
    onDelete: (obj) => controller.enqueueMydemoForDelete(obj),
  });

  return controller;
}
