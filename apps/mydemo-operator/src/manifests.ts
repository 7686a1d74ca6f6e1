// The manifests that deploy the operator (kubebuilder's `make manifests`): the CRD, the
// ServiceAccount and the RBAC rules derived from the controller, a Deployment, the webhooks
// (a Service in front of the webhook server, the mutating and validating configurations, the
// CRD's conversion webhook, and cert-manager's Issuer and Certificate for the serving
// certificate, its CA injected into all three), and a kustomization.yaml.
//
//   node src/manifests.ts [OUT_DIR] [--image IMAGE] [--namespace NAMESPACE] [--no-webhooks]
//   kubectl apply -k OUT_DIR
//
// The rules and the webhooks come from the same code main.ts runs: a Manager configured from
// the Deployment's own arguments, with the Mydemo controller and webhooks built on it.
// Nothing connects to a cluster. --no-webhooks leaves the webhooks out (a cluster without
// cert-manager); the operator then runs without them, and the reconciler still refuses an
// invalid spec in its status.

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { appsv1, corev1 } from '@kubets/clientset';
import { Manager } from '@kubets/controller';
import {
  type ManifestFile,
  type OperatorManifestsOptions,
  operatorManifests,
  toYaml,
} from '@kubets/controller/manifests';
import { crdConversion, webhookConfigurations } from '@kubets/webhook';
import { parseCommandLine } from '@kubets-apps/shared';
import { command, flagSpecs } from './flags.ts';
import { managerOptions } from './manager-options.ts';
import { addMydemoController } from './operator.ts';
import { DirectoryRecords } from './records.ts';
import { addMydemoWebhooks } from './webhooks.ts';

/** The operator's name: its Deployment, ServiceAccount, roles and bindings. */
export const operatorName = 'mydemo-operator';

/** Where the operator's container reads the webhook serving certificate (the Secret's volume). */
export const webhookCertDir = '/tmp/k8s-webhook-server/serving-certs';
/** The port the webhook server listens on in the container. */
export const webhookPort = 9443;

/** The names of the webhook objects of the operator. */
export const webhookObjects = {
  service: `${operatorName}-webhook-service`,
  certificate: `${operatorName}-serving-cert`,
  issuer: `${operatorName}-selfsigned-issuer`,
  secret: `${operatorName}-webhook-server-cert`,
} as const;

/** Options of {@link deploymentArgs} and {@link manifestOptions}. */
export interface DeployOptions {
  /** Serve (and install) the webhooks; default true. */
  readonly webhooks?: boolean;
}

/** The arguments of the operator's container in namespace `namespace`. */
export function deploymentArgs(namespace: string, options: DeployOptions = {}): string[] {
  return [
    '--leader-elect',
    `--leader-elect-resource-namespace=${namespace}`,
    `--leader-elect-resource-name=${operatorName}`,
    '--metrics-bind-address=:8080',
    '--health-probe-bind-address=:8081',
    '--records-dir=/tmp/mydemo-records',
    ...((options.webhooks ?? true)
      ? [
          '--enable-webhooks',
          `--webhook-port=${webhookPort}`,
          `--webhook-cert-dir=${webhookCertDir}`,
        ]
      : []),
  ];
}

/** What {@link operatorManifests} is given for the operator in `namespace`, run from `image`. */
export function manifestOptions(
  namespace: string,
  image: string,
  options: DeployOptions = {},
): OperatorManifestsOptions {
  const args = deploymentArgs(namespace, options);
  const flags = parseCommandLine(command, flagSpecs, args);
  // Only built, never started: its controllers say what the operator reads and writes.
  const mgr = new Manager({ host: 'https://kubernetes.default.svc' }, managerOptions(flags, false));
  addMydemoController(mgr, { records: new DirectoryRecords(flags['records-dir']) });
  if (flags['enable-webhooks']) addMydemoWebhooks(mgr, { image: flags.image });
  return {
    manager: mgr,
    name: operatorName,
    namespace,
    image,
    args,
    crds: [fileURLToPath(new URL('../crd/mydemo.yaml', import.meta.url))],
  };
}

/**
 * The operator's manifests: {@link operatorManifests}, and when the manager serves webhooks,
 * what they need (kubebuilder's config/webhook, config/certmanager and its CRD patches).
 */
export async function mydemoManifests(
  namespace: string,
  image: string,
  options: DeployOptions = {},
): Promise<ManifestFile[]> {
  const settings = manifestOptions(namespace, image, options);
  const files = await operatorManifests(settings);
  const { webhooks } = settings.manager as Manager;
  if (webhooks.registrations.length === 0) return files;
  const labels = { 'app.kubernetes.io/name': operatorName };
  // cert-manager's CA injector fills in each caBundle from the Certificate's CA.
  const injectCa = {
    'cert-manager.io/inject-ca-from': `${namespace}/${webhookObjects.certificate}`,
  };
  const target = { service: { namespace, name: webhookObjects.service } };
  const { mutating, validating } = webhookConfigurations(
    operatorName,
    webhooks.registrations,
    target,
  );
  const webhookFile: ManifestFile = {
    path: 'webhook.yaml',
    objects: [
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: webhookObjects.service, namespace, labels },
        spec: {
          selector: labels,
          ports: [{ name: 'webhook', port: 443, targetPort: 'webhook-server', protocol: 'TCP' }],
        },
      } satisfies corev1.Service,
      ...[mutating, validating]
        .filter((c) => c !== undefined)
        .map((c) => ({ ...c, metadata: { ...c.metadata, annotations: injectCa } })),
    ],
  };
  const serviceDns = `${webhookObjects.service}.${namespace}.svc`;
  const certificateFile: ManifestFile = {
    path: 'certificate.yaml',
    objects: [
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Issuer',
        metadata: { name: webhookObjects.issuer, namespace, labels },
        spec: { selfSigned: {} },
      },
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Certificate',
        metadata: { name: webhookObjects.certificate, namespace, labels },
        spec: {
          dnsNames: [serviceDns, `${serviceDns}.cluster.local`],
          issuerRef: { kind: 'Issuer', name: webhookObjects.issuer },
          secretName: webhookObjects.secret,
        },
      },
    ],
  };
  const out: ManifestFile[] = [];
  for (const file of files) {
    if (file.path === 'kustomization.yaml') {
      const resources = [...out, webhookFile, certificateFile].map((f) => f.path);
      out.push(webhookFile, certificateFile, {
        path: file.path,
        objects: file.objects.map((k) => ({ ...k, resources })),
      });
      continue;
    }
    out.push({
      ...file,
      objects: file.objects.map((o) => withWebhooks(o, injectCa, target)),
    });
  }
  return out;
}

/** A CRD with the conversion webhook, a Deployment with the webhook port and certificate. */
function withWebhooks(
  object: object,
  injectCa: Record<string, string>,
  target: Parameters<typeof crdConversion>[0],
): object {
  const kind = (object as { kind?: string }).kind;
  if (kind === 'CustomResourceDefinition') {
    const crd = object as { metadata?: { annotations?: object }; spec: object };
    return {
      ...crd,
      metadata: { ...crd.metadata, annotations: { ...crd.metadata?.annotations, ...injectCa } },
      spec: { ...crd.spec, conversion: crdConversion(target) },
    };
  }
  if (kind !== 'Deployment') return object;
  const deployment = structuredClone(object) as appsv1.Deployment;
  const pod = deployment.spec?.template.spec;
  const container = pod?.containers[0];
  if (pod === undefined || container === undefined) return deployment;
  container.ports = [
    ...(container.ports ?? []),
    { name: 'webhook-server', containerPort: webhookPort, protocol: 'TCP' },
  ];
  container.volumeMounts = [
    ...(container.volumeMounts ?? []),
    { name: 'webhook-cert', mountPath: webhookCertDir, readOnly: true },
  ];
  pod.volumes = [
    ...(pod.volumes ?? []),
    { name: 'webhook-cert', secret: { secretName: webhookObjects.secret } },
  ];
  return deployment;
}

/** Writes {@link mydemoManifests} into `outDir`; returns the paths written. */
export async function writeMydemoManifests(
  outDir: string,
  namespace: string,
  image: string,
  options: DeployOptions = {},
): Promise<string[]> {
  const written: string[] = [];
  for (const file of await mydemoManifests(namespace, image, options)) {
    const path = join(outDir, file.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, toYaml(file.objects));
    written.push(path);
  }
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    allowNegative: true,
    options: {
      image: { type: 'string', default: 'mydemo-operator:latest' },
      namespace: { type: 'string', default: 'mydemo-system' },
      webhooks: { type: 'boolean', default: true },
    },
  });
  const outDir = positionals[0] ?? 'config';
  const written = await writeMydemoManifests(outDir, values.namespace, values.image, {
    webhooks: values.webhooks,
  });
  for (const path of written) process.stdout.write(`wrote ${path}\n`);
}
