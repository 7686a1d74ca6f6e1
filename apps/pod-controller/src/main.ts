// client-go's workqueue example (seeds 000 and 002) in TypeScript: an informer keeps a cache of
// the Pods in "default" and puts the key of every changed Pod into a rate-limited work queue;
// workers take keys off the queue and "sync" them by printing the Pod. A failed sync is
// retried up to 5 times with backoff, then dropped.
//
//   node src/main.ts --kubeconfig ~/.kube/config [--master URL] [--threadiness N] [--fail-pod NAME]
//
// Without any cluster configuration it runs a short scripted demo on an embedded API server.

import { everythingFieldSelector } from '@kubets/apimachinery';
import * as cache from '@kubets/cache';
import { Clientset, type corev1 } from '@kubets/clientset';
import * as workqueue from '@kubets/workqueue';
import {
  aborted,
  connect,
  errorMessage,
  fatalOnUncaughtErrors,
  handleError,
  klog,
  klogLogger,
  parseFlags,
  positiveInt,
} from '@kubets-apps/shared';
import { demoFailPod, podControllerDemo } from './demo.ts';

type Pod = corev1.Pod;

class Controller {
  readonly indexer: cache.Indexer<Pod>;
  readonly queue: workqueue.RateLimitingWorkQueue<string>;
  readonly informer: cache.InformerController<Pod>;
  /** The name of a Pod whose sync always fails (`--fail-pod`), to show the retries. */
  readonly failPod: string | undefined;

  constructor(
    queue: workqueue.RateLimitingWorkQueue<string>,
    indexer: cache.Indexer<Pod>,
    informer: cache.InformerController<Pod>,
    failPod?: string,
  ) {
    this.informer = informer;
    this.indexer = indexer;
    this.queue = queue;
    this.failPod = failPod;
  }

  async processNextItem(): Promise<boolean> {
    // Wait until there is a new item in the working queue
    const { item: key, shutdown } = await this.queue.get();
    if (shutdown) return false;
    try {
      // Invoke the method containing the business logic
      this.syncToStdout(key);
      this.handleErr(undefined, key);
    } catch (err) {
      // Handle the error if something went wrong during the execution of the business logic
      this.handleErr(err, key);
    } finally {
      // Tell the queue that we are done with processing this key. This unblocks the key for
      // other workers. This allows safe parallel processing because two pods with the same
      // key are never processed in parallel.
      this.queue.done(key);
    }
    return true;
  }

  /**
   * The business logic of the controller. In this controller it simply prints information
   * about the pod to stdout. In case an error happened, it throws; the retry logic is not
   * part of the business logic.
   */
  syncToStdout(key: string): void {
    const pod = this.indexer.getByKey(key);
    if (pod === undefined) {
      // Below we will warm up our cache with a Pod, so that we will see a delete for one pod
      console.log(`Pod ${key} does not exist anymore`);
    } else {
      if (pod.metadata?.name === this.failPod) {
        throw new Error(`sync of pod ${key} failed on purpose (--fail-pod ${this.failPod})`);
      }
      // Note that you also have to check the uid if you have a local controlled resource,
      // which is dependent on the actual instance, to detect that a Pod was recreated with
      // the same name
      console.log(`Sync/Add/Update for Pod ${pod.metadata?.name}`);
    }
  }

  /** Checks if an error happened and makes sure we will retry later. */
  handleErr(err: unknown, key: string): void {
    if (err === undefined) {
      // Forget about the addRateLimited history of the key on every successful
      // synchronization. This ensures that future processing of updates for this key is not
      // delayed because of an outdated error history.
      this.queue.forget(key);
      return;
    }

    // This controller retries 5 times if something goes wrong. After that, it stops trying.
    if (this.queue.numRequeues(key) < 5) {
      klog.info(`Error syncing pod ${key}: ${errorMessage(err)}`);
      // Re-enqueue the key rate limited. Based on the rate limiter on the queue and the
      // re-enqueue history, the key will be processed later again.
      this.queue.addRateLimited(key);
      return;
    }

    this.queue.forget(key);
    // Report to an external entity that, even after several retries, we could not
    // successfully process this key
    handleError(err);
    klog.info(`Dropping pod ${JSON.stringify(key)} out of the queue: ${errorMessage(err)}`);
  }

  async run(threadiness: number, signal: AbortSignal): Promise<void> {
    klog.info('Starting Pod controller');
    const informerStopped = this.informer.run(signal);
    const workers: Promise<void>[] = [];
    try {
      // Wait for all involved caches to be synced, before processing items from the queue
      // is started
      if (!(await cache.waitForCacheSync(signal, () => this.informer.hasSynced()))) {
        handleError(new Error('Timed out waiting for caches to sync'));
        return;
      }

      for (let i = 0; i < threadiness; i++) workers.push(this.runWorker());

      await aborted(signal);
      klog.info('Stopping Pod controller');
    } finally {
      // Let the workers stop when we are done
      this.queue.shutDown();
      await Promise.all([informerStopped, ...workers]);
    }
  }

  async runWorker(): Promise<void> {
    while (await this.processNextItem()) {}
  }
}

// An error nothing caught ends the program with one klog F line, not a stack dump
fatalOnUncaughtErrors();

const flags = parseFlags(
  { name: 'pod-controller', summary: "client-go's workqueue example: a Pod controller." },
  {
    threadiness: {
      type: 'string',
      default: '1',
      parse: positiveInt,
      description: 'number of workers processing the queue',
    },
    'fail-pod': {
      type: 'string',
      description: `make the sync of the pod with this name fail, to show the retries (demo: ${demoFailPod})`,
    },
  },
);

// creates the connection (--kubeconfig/--master, KUBECONFIG, ~/.kube/config, in-cluster;
// with none of them, the embedded API server and a scripted demo)
const cluster = await connect(flags, podControllerDemo);

// creates the clientset
const clientset = new Clientset(cluster.config);

// create the pod watcher
const podListWatcher = cache.listWatchFromClient<Pod>(
  clientset.coreV1().restClient,
  'pods',
  'default',
  everythingFieldSelector(),
);

// create the workqueue
const queue = workqueue.newRateLimitingQueue<string>(workqueue.defaultControllerRateLimiter());

// Bind the workqueue to a cache with the help of an informer. This way we make sure that
// whenever the cache is updated, the pod key is added to the workqueue.
// Note that when we finally process the item from the workqueue, we might see a newer version
// of the Pod than the version which was responsible for triggering the update.
const { indexer, controller: informer } = cache.newIndexerInformer<Pod>(
  podListWatcher,
  {
    onAdd: (pod) => queue.add(cache.metaNamespaceKeyFunc(pod)),
    onUpdate: (_old, pod) => queue.add(cache.metaNamespaceKeyFunc(pod)),
    // IndexerInformer uses a delta queue, therefore for deletes we have to use this key
    // function: the object may be a DeletedFinalStateUnknown tombstone.
    onDelete: (pod) => queue.add(cache.deletionHandlingMetaNamespaceKeyFunc(pod)),
  },
  0,
  {},
  // client-go's reflector logs every failed list or watch through klog; kubets' stays silent
  // unless given a logger
  { logger: klogLogger('@kubets/cache') },
);

const controller = new Controller(
  queue,
  indexer,
  informer,
  flags['fail-pod'] ?? (cluster.demo ? demoFailPod : undefined),
);

// We can now warm up the cache for initial synchronization.
// Let's suppose that we knew about a pod "mypod" on our last run, therefore add it to the
// cache. If this pod is not there anymore, the controller will be notified about the removal
// after the cache has synchronized.
indexer.add({ metadata: { name: 'mypod', namespace: 'default' } });

// Now let's start the controller; it runs until SIGINT/SIGTERM (or the end of the demo)
await controller.run(flags.threadiness, cluster.signal);
await cluster.close();
