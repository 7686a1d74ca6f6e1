// The Mydemo operator: seed 003's custom resource run as a controller-runtime style operator
// on @kubets/controller. For each Mydemo it keeps a Deployment and a Service (owned by the
// Mydemo, restored when changed or deleted), an external record (a JSON file in
// --records-dir, removed by a finalizer before the Mydemo goes) and a status (Ready and
// Available conditions, observedGeneration). The Manager serves /metrics, /healthz and
// /readyz, elects a leader with --leader-elect, and drains on SIGINT/SIGTERM; with
// --enable-webhooks it serves the Mydemo webhooks (defaulting, validating, conversion).
//
//   kubectl apply -f crd/mydemo.yaml
//   node src/main.ts --kubeconfig ~/.kube/config [--leader-elect] [--records-dir DIR]
//   kubectl apply -f example/example-mydemo.yaml
//
// With no cluster configuration (or --demo) it plays a walk-through on the embedded API server.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Manager } from '@kubets/controller';
import { generateEnvtestCertificates } from '@kubets/envtest';
import {
  connect,
  errorMessage,
  fatalOnUncaughtErrors,
  findConfigSource,
  klog,
  parseFlags,
} from '@kubets-apps/shared';
import { mydemoOperatorDemo } from './demo.ts';
import { command, flagSpecs } from './flags.ts';
import { managerOptions } from './manager-options.ts';
import { addMydemoController } from './operator.ts';
import { DirectoryRecords } from './records.ts';
import { addMydemoWebhooks } from './webhooks.ts';

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

// A demo serves its webhooks with a certificate of its own, from a CA it tells the embedded
// API server to trust (in a cluster, cert-manager issues both: see src/manifests.ts).
const demoWebhooks = demo;
const serveWebhooks = flags['enable-webhooks'] || demoWebhooks;
const demoCerts = demoWebhooks ? await generateEnvtestCertificates() : undefined;
const demoCertDir = demoCerts && mkdtempSync(join(tmpdir(), 'mydemo-operator-webhook-certs-'));
if (demoCerts && demoCertDir) {
  writeFileSync(join(demoCertDir, 'tls.crt'), demoCerts.serving.certPem);
  writeFileSync(join(demoCertDir, 'tls.key'), demoCerts.serving.keyPem, { mode: 0o600 });
}

let mgr: Manager | undefined;
const cluster = await connect(
  flags,
  mydemoOperatorDemo(
    records,
    demoCerts && {
      caPem: demoCerts.ca.certPem,
      async url() {
        const address = await mgr?.webhooks.server.listening();
        if (address === undefined) throw new Error('the webhook server is not running');
        return `https://127.0.0.1:${address.port}`;
      },
      registrations: () => mgr?.webhooks.registrations ?? [],
    },
  ),
);

mgr = new Manager(cluster.config, managerOptions(flags, demo, demoCertDir));

addMydemoController(mgr, {
  records,
  image: flags.image,
  maxConcurrentReconciles: flags['max-concurrent-reconciles'],
});
if (serveWebhooks) addMydemoWebhooks(mgr, { image: flags.image });
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
if (demoCertDir !== undefined) rmSync(demoCertDir, { recursive: true, force: true });
