// The Mydemo operator: seed 003's custom resource run as a controller-runtime style operator
// on @kubets/controller. For each Mydemo it keeps a Deployment and a Service (owned by the
// Mydemo, restored when changed or deleted), an external record (a JSON file in
// --records-dir, removed by a finalizer before the Mydemo goes) and a status (Ready and
// Available conditions, observedGeneration). The Manager serves /metrics, /healthz and
// /readyz, elects a leader with --leader-elect, and drains on SIGINT/SIGTERM.
//
//   kubectl apply -f crd/mydemo.yaml
//   node src/main.ts --kubeconfig ~/.kube/config [--leader-elect] [--records-dir DIR]
//   kubectl apply -f example/example-mydemo.yaml
//
// With no cluster configuration (or --demo) it plays a walk-through on the embedded API server.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Manager, type ManagerOptions } from '@kubets/controller';
import {
  connect,
  errorMessage,
  fatalOnUncaughtErrors,
  findConfigSource,
  klog,
  klogLogger,
  parseFlags,
} from '@kubets-apps/shared';
import { mydemoOperatorDemo } from './demo.ts';
import { command, flagSpecs } from './flags.ts';
import { addMydemoController } from './operator.ts';
import { DirectoryRecords } from './records.ts';

// An error nothing caught ends the program with one klog F line, not a stack dump
fatalOnUncaughtErrors();

const flags = parseFlags(command, flagSpecs);
const demo = flags.demo || findConfigSource(flags) === undefined;

// The registry outside the cluster; a demo gets a fresh one of its own, removed at the end.
const demoRecordsDir =
  demo && !flags['records-dir']
    ? mkdtempSync(join(tmpdir(), 'mydemo-operator-records-'))
    : undefined;
const recordsDir =
  flags['records-dir'] || demoRecordsDir || join(tmpdir(), 'mydemo-operator-records');
const records = new DirectoryRecords(recordsDir);

const cluster = await connect(flags, mydemoOperatorDemo(records));

// A demo must not take the ports a real operator on this machine may hold.
const bind = (flag: string, port: number): string => flag || (demo ? '127.0.0.1:0' : `:${port}`);
const options: ManagerOptions = {
  logger: klogLogger('mydemo-operator'),
  metricsBindAddress: bind(flags['metrics-bind-address'], 8080),
  healthProbeBindAddress: bind(flags['health-probe-bind-address'], 8081),
  gracefulShutdownTimeoutMs: flags['graceful-shutdown-timeout'],
};
if (flags['leader-elect']) {
  options.leaderElection = {
    namespace: flags['leader-elect-resource-namespace'],
    name: flags['leader-elect-resource-name'],
    leaseDurationMs: flags['leader-elect-lease-duration'],
    renewDeadlineMs: flags['leader-elect-renew-deadline'],
    retryPeriodMs: flags['leader-elect-retry-period'],
    // Stopping on SIGTERM hands the Lease over at once instead of after it expired.
    releaseOnCancel: true,
  };
}
const mgr = new Manager(cluster.config, options);

addMydemoController(mgr, {
  records,
  image: flags.image,
  maxConcurrentReconciles: flags['max-concurrent-reconciles'],
});
klog.info(`external records in ${recordsDir}`);

try {
  // Informers, cache sync, (the Lease,) then the controller; until SIGINT/SIGTERM, or the
  // end of the demo, then a drain of the reconciles in flight.
  await mgr.start(cluster.signal);
} catch (err) {
  klog.error(`manager stopped: ${errorMessage(err)}`);
  process.exitCode = 1;
}
klog.info('Stopped the Mydemo operator');
await cluster.close();
if (demoRecordsDir !== undefined) rmSync(demoRecordsDir, { recursive: true, force: true });
