// Seed 003's crddemo in TypeScript: a controller for the Mydemo custom resource
// (mydemos.crddemo.k8s.io), built from the client, informer and lister that kubets-gen
// generated from crd/mydemo.yaml into src/generated/.
//
//   node src/main.ts --kubeconfig ~/.kube/config [--master URL] [--threadiness N] [--leader-elect]
//   node src/main.ts --kubeconfig=PATH --master=URL -alsologtostderr=true   (the seed's command line; klog's -v=4 for debug lines)
//
// Start it before the CRD exists: the informer's list fails (logged, retried with backoff)
// until `kubectl apply -f crd/mydemo.yaml`; then create, change and delete
// example/example-mydemo.yaml and watch the controller process them. Without any cluster
// configuration it plays that walk-through on an embedded API server. With --leader-elect it
// runs the informer and the workers only while it holds the Lease (see leaderelection.ts).

import { isNotFound } from '@kubets/apimachinery';
import type { ReflectorInfo } from '@kubets/cache';
import { Clientset } from '@kubets/clientset';
import { newSharedInformerFactory } from '@kubets/informers';
import {
  connect,
  errorMessage,
  FlagError,
  fatalOnUncaughtErrors,
  klog,
  klogLogger,
  parseFlags,
  usage,
} from '@kubets-apps/shared';
import { newController } from './controller.ts';
import { crdControllerDemo } from './demo.ts';
import { command, flagSpecs } from './flags.ts';
import { crddemoV1 } from './generated/index.ts';
import {
  type LeaderElectionSettings,
  leaderElectionSettings,
  runWithLeaderElection,
} from './leaderelection.ts';

// An error nothing caught ends the program with one klog F line, not a stack dump
fatalOnUncaughtErrors();

const flags = parseFlags(command, flagSpecs);

// The leader-election flags checked together (lease duration > renew deadline > 1.2 × retry
// period): a bad combination is a bad command line, reported like a bad value.
let leaderElection: LeaderElectionSettings | undefined;
try {
  leaderElection = leaderElectionSettings(flags);
} catch (err) {
  if (!(err instanceof FlagError)) throw err;
  process.stderr.write(`${command.name}: ${err.message}\n\n${usage(command, flagSpecs)}`);
  process.exit(2);
}

/** client-go's message for a 404 from a list: the resource is not served (yet). */
function describeListError(err: unknown): string {
  if (isNotFound(err)) {
    const { resource, group } = crddemoV1.mydemosResource;
    return `the server could not find the requested resource (get ${resource}.${group})`;
  }
  return errorMessage(err);
}

/**
 * The informer's watch error handler: client-go's reflector logs every failed list or watch
 * (`reflector.go] ...: Failed to list *v1.Mydemo: ...`) and retries with backoff.
 */
function logListWatchError(
  synced: () => boolean,
): (err: unknown, reflector: ReflectorInfo) => void {
  return (err, reflector) => {
    const verb = synced() ? 'watch' : 'list';
    klog.error(`${reflector.name}: Failed to ${verb} *v1.Mydemo: ${describeListError(err)}`);
  };
}

// The connection: --kubeconfig/--master, KUBECONFIG, ~/.kube/config, in-cluster; with none of
// them, the embedded API server and the scripted walk-through of the seed.
const cluster = await connect(flags, crdControllerDemo);

// One clientset serves both the built-in API (Events, the leader Lease) and the Mydemo
// resource: the generated client is a typed view of `clientset.resource(mydemosResource)`.
const kubeClient = new Clientset(cluster.config);

/** Builds the informer and the controller and runs them until `signal` aborts. */
async function runController(signal: AbortSignal): Promise<void> {
  const mydemoInformerFactory = newSharedInformerFactory(kubeClient, {
    defaultResyncMs: 30_000,
    // Keep the cache small and the "Try to process" lines readable.
    transform: (obj) => {
      const meta = (obj as { metadata?: { managedFields?: unknown } }).metadata;
      if (meta) delete meta.managedFields;
      return obj;
    },
    // Relists, handler failures and the like; a failed list or watch is logged once, by
    // logListWatchError below, in client-go's words
    logger: klogLogger('@kubets/cache', { omit: ['List/watch failed'] }),
  });
  const mydemoInformer = crddemoV1.mydemoInformer(mydemoInformerFactory);
  const informer = mydemoInformer.informer();
  informer.setWatchErrorHandler(logListWatchError(() => informer.hasSynced()));

  const controller = newController(kubeClient, mydemoInformer);

  // Runs the informers asked for so far, until the stop signal.
  mydemoInformerFactory.start(signal);
  try {
    await controller.run(flags.threadiness, signal);
  } finally {
    await mydemoInformerFactory.shutdown();
  }
}

if (leaderElection === undefined) {
  try {
    await runController(cluster.signal);
  } catch (err) {
    klog.fatal(`Error running controller: ${errorMessage(err)}`);
  }
} else {
  // Only the leader runs the controller. Like kube-controller-manager, a replica that loses
  // the Lease exits (klog.Fatalf("leaderelection lost")) and is restarted as a follower.
  const outcome = await runWithLeaderElection(
    leaderElection,
    kubeClient,
    cluster.signal,
    runController,
  );
  if (outcome.kind === 'failed') {
    klog.fatal(`Error running controller: ${errorMessage(outcome.error)}`);
  }
  if (outcome.kind === 'lost') klog.fatal('leaderelection lost');
}
await cluster.close();
