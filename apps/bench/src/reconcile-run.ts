// One reconcile-throughput measurement, in a fresh process: a manager with one controller
// for the benchmark's Pods and a reconciler that does nothing but count, run until every Pod
// was reconciled once. Prints one JSON line (ReconcileSample) on stdout.
//
//   node --expose-gc src/reconcile-run.ts KUBECONFIG PODS WORKERS

import { silentLogger } from '@kubets/apimachinery';
import { coreV1Resources } from '@kubets/clientset';
import { controller, Manager } from '@kubets/controller';
import { loadConfig } from '@kubets/rest';
import { benchNamespace } from './fixture.ts';
import type { ReconcileSample } from './reconcile.ts';

const [kubeconfig, podsArg, workersArg] = process.argv.slice(2);
const pods = Number(podsArg);
const workers = Number(workersArg);
if (kubeconfig === undefined || !(pods > 0) || !(workers > 0)) {
  throw new Error('usage: reconcile-run.ts KUBECONFIG PODS WORKERS');
}

const manager = new Manager(loadConfig({ kubeconfig }), {
  namespace: benchNamespace,
  logger: silentLogger,
});
const reconciled = new Set<string>();
const stop = new AbortController();
let finished: (() => void) | undefined;
const allReconciled = new Promise<void>((resolve) => {
  finished = resolve;
});
controller(manager)
  .named('reconcile-throughput')
  .for(coreV1Resources.pods)
  .withOptions({ maxConcurrentReconciles: workers })
  .complete(async (request) => {
    reconciled.add(`${request.namespace}/${request.name}`);
    if (reconciled.size === pods) finished?.();
  });

const cpuBefore = process.cpuUsage();
const startedAt = performance.now();
const running = manager.start(stop.signal);
await Promise.race([allReconciled, running]);
const elapsedMs = performance.now() - startedAt;
const cpu = process.cpuUsage(cpuBefore);
stop.abort();
await running;
const sample: ReconcileSample = {
  workers,
  pods,
  reconciled: reconciled.size,
  elapsedMs,
  cpuSeconds: (cpu.user + cpu.system) / 1e6,
  // maxRSS is in kibibytes.
  peakRssBytes: process.resourceUsage().maxRSS * 1024,
};
process.stdout.write(`${JSON.stringify(sample)}\n`);
