// Seed 001, example 1, in TypeScript: watch Deployments through the typed shared informer
// factory (resync every 60 s, which re-delivers every Deployment as an update), print each
// add/update/delete, and once the cache has synced list the Deployments of "default" from
// the lister (the local cache, not the API server).
//
//   node src/main.ts --kubeconfig ~/.kube/config [--master URL] [--resync 60s]
//
// Without any cluster configuration it runs a short scripted demo on an embedded API server.

import type { DeletedFinalStateUnknown } from '@kubets/cache';
import { deletedObject } from '@kubets/cache';
import { type appsv1, Clientset } from '@kubets/clientset';
import { newSharedInformerFactory } from '@kubets/informers';
import {
  aborted,
  connect,
  duration,
  fatalOnUncaughtErrors,
  klog,
  klogLogger,
  parseFlags,
} from '@kubets-apps/shared';
import { demoResyncMs, deploymentWatcherDemo } from './demo.ts';

type Deployment = appsv1.Deployment;

// An error nothing caught ends the program with one klog F line, not a stack dump
fatalOnUncaughtErrors();

const flags = parseFlags(
  {
    name: 'deployment-watcher',
    summary: 'Watches Deployments with the typed shared informer factory and lists them.',
  },
  {
    resync: {
      type: 'string',
      parse: duration,
      description: `resync period: every Deployment is re-delivered as an update this often (default 60s; demo ${demoResyncMs / 1000}s)`,
    },
  },
);

// creates the connection (--kubeconfig/--master, KUBECONFIG, ~/.kube/config, in-cluster;
// with none of them, the embedded API server and a scripted demo)
const cluster = await connect(flags, deploymentWatcherDemo);

// creates the clientset
const clientset = new Clientset(cluster.config);

// A SharedInformerFactory whose informers resync every 60 s, which calls onUpdate
const resyncMs = flags.resync ?? (cluster.demo ? demoResyncMs : 60_000);
// client-go's reflectors log every failed list or watch through klog; kubets' stay silent
// unless given a logger
const informerFactory = newSharedInformerFactory(clientset, {
  defaultResyncMs: resyncMs,
  logger: klogLogger('@kubets/cache'),
});

// Watch Deployments
const deployInformer = informerFactory.appsV1().deployments();
// Creating the informer registers it with the factory, so that start() lists and watches
const informer = deployInformer.informer();
// The deployment lister reads the informer's cache
const deployLister = deployInformer.lister();

// Register the event handlers
informer.addEventHandler({ onAdd, onUpdate, onDelete });

informerFactory.start(cluster.signal);
await informerFactory.waitForCacheSync(cluster.signal);

// All the deployments of the "default" namespace, from the local cache
if (!cluster.signal.aborted) {
  const deployments = deployLister.byNamespace('default').list();
  deployments.forEach((deploy, idx) => {
    console.log(`${idx + 1} -> ${deploy.metadata?.name}`);
  });
}

// Run until SIGINT/SIGTERM (or the end of the demo)
await aborted(cluster.signal);
klog.info('Stopping deployment watcher');
await informerFactory.shutdown();
await cluster.close();

function onAdd(deploy: Deployment): void {
  console.log('add a deployment:', deploy.metadata?.name);
}

function onUpdate(oldDeploy: Deployment, newDeploy: Deployment): void {
  console.log('update deployment:', oldDeploy.metadata?.name, newDeploy.metadata?.name);
}

function onDelete(obj: Deployment | DeletedFinalStateUnknown<Deployment>): void {
  // A deletion the watch missed arrives as a tombstone holding the last known state
  const deploy = deletedObject(obj);
  console.log('delete a deployment:', deploy?.metadata?.name);
}
