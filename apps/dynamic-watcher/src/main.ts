// Seed 001, example 2, in TypeScript: watch any resource through the dynamic shared informer
// factory — objects are unstructured JSON, so no generated types are needed and custom
// resources work as soon as their CRD exists. Prints each add/update/delete and, once the
// cache has synced, the objects of one namespace from the lister.
//
//   node src/main.ts --kubeconfig ~/.kube/config [--master URL] [--resync 60s] [deployments.v1.apps]
//
// Without any cluster configuration it runs a short scripted demo on an embedded API server.

import { parseGroupVersionResource } from '@kubets/apimachinery';
import { type DeletedFinalStateUnknown, deletedObject } from '@kubets/cache';
import {
  DynamicClient,
  newDynamicSharedInformerFactoryWithOptions,
  type Unstructured,
} from '@kubets/dynamic';
import {
  aborted,
  connect,
  duration,
  fatalOnUncaughtErrors,
  klog,
  klogLogger,
  parseFlags,
} from '@kubets-apps/shared';
import { demoResource, demoResyncMs, dynamicWatcherDemo } from './demo.ts';

// An error nothing caught ends the program with one klog F line, not a stack dump
fatalOnUncaughtErrors();

const flags = parseFlags(
  {
    name: 'dynamic-watcher',
    summary: 'Watches any resource with the dynamic shared informer factory.',
    args: '[resource]',
    details:
      'resource: resource.version.group, e.g. deployments.v1.apps (the default), pods.v1. for the core group,\n' +
      'mydemos.v1.crddemo.k8s.io for a custom resource; group/version/resource (apps/v1/deployments) works too.',
  },
  {
    resync: {
      type: 'string',
      parse: duration,
      description: `resync period: every object is re-delivered as an update this often (default 60s; demo ${demoResyncMs / 1000}s)`,
    },
    namespace: {
      type: 'string',
      default: 'default',
      description: 'the namespace whose objects the lister prints after the sync ("" for all)',
    },
  },
);

// The resource to watch, e.g. deployments.v1.apps → { group: 'apps', version: 'v1', resource: 'deployments' }
let gvr: ReturnType<typeof parseGroupVersionResource>;
try {
  gvr = parseGroupVersionResource(flags.args[0] ?? demoResource);
} catch (err) {
  klog.fatal(err);
}

// creates the connection (--kubeconfig/--master, KUBECONFIG, ~/.kube/config, in-cluster;
// with none of them, the embedded API server and a scripted demo)
const cluster = await connect(flags, dynamicWatcherDemo(gvr));

// creates the dynamic client
const dynamicClient = new DynamicClient(cluster.config);

// A DynamicSharedInformerFactory whose informers resync every 60 s, which calls onUpdate
const resyncMs = flags.resync ?? (cluster.demo ? demoResyncMs : 60_000);
// client-go's reflectors log every failed list or watch through klog; kubets' stay silent
// unless given a logger
const informerFactory = newDynamicSharedInformerFactoryWithOptions(dynamicClient, {
  defaultResyncMs: resyncMs,
  logger: klogLogger('@kubets/cache'),
});

// Watch the resource
const informerListerForGvr = informerFactory.forResource(gvr);
// Creating the informer registers it with the factory, so that start() lists and watches
const informer = informerListerForGvr.informer();
// The lister reads the informer's cache
const lister = informerListerForGvr.lister();

// Register the event handlers
informer.addEventHandler({ onAdd, onUpdate, onDelete });

informerFactory.start(cluster.signal);
await informerFactory.waitForCacheSync(cluster.signal);

// The objects of the namespace, from the local cache
if (!cluster.signal.aborted) {
  const objects = lister.byNamespace(flags.namespace).list();
  objects.forEach((obj, idx) => {
    console.log(`${idx + 1} -> ${obj.metadata.name}`);
  });
}

// Run until SIGINT/SIGTERM (or the end of the demo)
await aborted(cluster.signal);
klog.info('Stopping dynamic watcher');
await informerFactory.shutdown();
await cluster.close();

/** What to call an object in the output: its kind in lower case ("deployment"). */
function kindOf(obj: Unstructured | undefined): string {
  return typeof obj?.kind === 'string' && obj.kind !== '' ? obj.kind.toLowerCase() : gvr.resource;
}

function onAdd(obj: Unstructured): void {
  console.log(`add a ${kindOf(obj)}:`, obj.metadata.name);
}

function onUpdate(oldObj: Unstructured, newObj: Unstructured): void {
  console.log(`update ${kindOf(newObj)}:`, oldObj.metadata.name, newObj.metadata.name);
}

function onDelete(obj: Unstructured | DeletedFinalStateUnknown<Unstructured>): void {
  // A deletion the watch missed arrives as a tombstone holding the last known state
  const last = deletedObject(obj);
  console.log(`delete a ${kindOf(last)}:`, last?.metadata.name);
}
