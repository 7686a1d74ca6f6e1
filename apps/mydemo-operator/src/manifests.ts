// The manifests that deploy the operator (kubebuilder's `make manifests`): the CRD, the
// ServiceAccount and the RBAC rules derived from the controller, a Deployment, and a
// kustomization.yaml.
//
//   node src/manifests.ts [OUT_DIR] [--image IMAGE] [--namespace NAMESPACE]
//   kubectl apply -k OUT_DIR
//
// The rules come from the same code main.ts runs: a Manager configured from the Deployment's
// own arguments, with the Mydemo controller built on it. Nothing connects to a cluster.

import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Manager } from '@kubets/controller';
import { type OperatorManifestsOptions, writeManifests } from '@kubets/controller/manifests';
import { parseCommandLine } from '@kubets-apps/shared';
import { command, flagSpecs } from './flags.ts';
import { managerOptions } from './manager-options.ts';
import { addMydemoController } from './operator.ts';
import { DirectoryRecords } from './records.ts';

/** The operator's name: its Deployment, ServiceAccount, roles and bindings. */
export const operatorName = 'mydemo-operator';

/** The arguments of the operator's container in namespace `namespace`. */
export function deploymentArgs(namespace: string): string[] {
  return [
    '--leader-elect',
    `--leader-elect-resource-namespace=${namespace}`,
    `--leader-elect-resource-name=${operatorName}`,
    '--metrics-bind-address=:8080',
    '--health-probe-bind-address=:8081',
    '--records-dir=/tmp/mydemo-records',
  ];
}

/** What {@link writeManifests} is given for the operator in `namespace`, run from `image`. */
export function manifestOptions(namespace: string, image: string): OperatorManifestsOptions {
  const args = deploymentArgs(namespace);
  const flags = parseCommandLine(command, flagSpecs, args);
  // Only built, never started: its controllers say what the operator reads and writes.
  const mgr = new Manager({ host: 'https://kubernetes.default.svc' }, managerOptions(flags, false));
  addMydemoController(mgr, { records: new DirectoryRecords(flags['records-dir']) });
  return {
    manager: mgr,
    name: operatorName,
    namespace,
    image,
    args,
    crds: [fileURLToPath(new URL('../crd/mydemo.yaml', import.meta.url))],
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      image: { type: 'string', default: 'mydemo-operator:latest' },
      namespace: { type: 'string', default: 'mydemo-system' },
    },
  });
  const outDir = positionals[0] ?? 'config';
  const written = await writeManifests(outDir, manifestOptions(values.namespace, values.image));
  for (const path of written) process.stdout.write(`wrote ${path}\n`);
}
