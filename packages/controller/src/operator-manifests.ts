import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { apiextensionsv1, appsv1, corev1 } from '@kubets/clientset';
import { parseAllDocuments, stringify } from 'yaml';
import { type RbacObject, type RbacPermission, rbacManifests } from './rbac.js';

/** A CRD to install with the operator: a YAML file's path, or the object itself. */
export type CrdManifestSource = string | apiextensionsv1.CustomResourceDefinition;

/** What {@link operatorManifests} writes. */
export interface OperatorManifestsOptions {
  /**
   * The Manager the operator runs, with its controllers built on it (as the operator's main
   * builds them): its RBAC rules come from them (`rbacManifests`).
   */
  manager: object;
  /** Name of the operator: its Deployment, ServiceAccount, roles and bindings. */
  name: string;
  /** Namespace the operator runs in (created by the manifests unless `createNamespace: false`). */
  namespace: string;
  /** Container image of the operator. */
  image: string;
  /**
   * Arguments of the operator's container, e.g. `['--leader-elect',
   * '--metrics-bind-address=:8080', '--health-probe-bind-address=:8081']`: the same ones the
   * `manager` given here was configured from, so that the rules match what runs.
   */
  args?: readonly string[] | undefined;
  /** The container's command; default the image's entrypoint. */
  command?: readonly string[] | undefined;
  /** Port of `/healthz` and `/readyz` (the liveness and readiness probes). Default 8081. */
  healthProbePort?: number | undefined;
  /** Port of `/metrics`; `0` for none. Default 8080. */
  metricsPort?: number | undefined;
  /** Replicas of the Deployment (more than 1 needs leader election). Default 1. */
  replicas?: number | undefined;
  /** CRDs installed with the operator: YAML files (one or more documents each) or objects. */
  crds?: readonly CrdManifestSource[] | undefined;
  /** Permissions of the manager's other runnables (see `rbacRules`). */
  permissions?: readonly RbacPermission[] | undefined;
  /** Write a Namespace object for `namespace`. Default true. */
  createNamespace?: boolean | undefined;
  /** Environment of the container. */
  env?: readonly corev1.EnvVar[] | undefined;
  /** Resource requests and limits of the container; default 10m/64Mi requested, 500m/256Mi limits. */
  resources?: corev1.ResourceRequirements | undefined;
}

/** One file of the manifests: its path in the output folder and its objects. */
export interface ManifestFile {
  /** Path relative to the output folder, e.g. `crds/mydemos.crddemo.k8s.io.yaml`. */
  readonly path: string;
  /** The objects, one YAML document each. */
  readonly objects: readonly object[];
}

const nameLabel = 'app.kubernetes.io/name';

/**
 * The manifests that deploy an operator (what kubebuilder's `config/` and `make manifests`
 * give a Go operator): its namespace, its CRDs, its ServiceAccount and least-privilege RBAC
 * (from the controllers built on `manager`), a Deployment running it as that ServiceAccount
 * with liveness and readiness probes on the manager's health port and its metrics port, and
 * a `kustomization.yaml` listing them, for `kubectl apply -k`. Files and objects come in a
 * fixed order, so the output is the same for the same operator.
 *
 * @throws {TypeError} naming the option or file that is wrong: a CRD that is not an
 *   `apiextensions.k8s.io/v1` CustomResourceDefinition, a port out of range, and as
 *   `rbacManifests`.
 */
export async function operatorManifests(
  options: OperatorManifestsOptions,
): Promise<ManifestFile[]> {
  const { name, namespace } = options;
  if (typeof options.image !== 'string' || options.image.trim() === '') {
    throw new TypeError('operatorManifests: image must name the operator’s container image');
  }
  const healthProbePort = port(options.healthProbePort ?? 8081, 'healthProbePort', false);
  const metricsPort = port(options.metricsPort ?? 8080, 'metricsPort', true);
  const replicas = options.replicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 0) {
    throw new TypeError(`operatorManifests: replicas must be an integer ≥ 0, got ${replicas}`);
  }
  const labels = { [nameLabel]: name };
  const rbac: RbacObject[] = rbacManifests(options.manager, {
    name,
    namespace,
    labels,
    permissions: options.permissions,
  });
  const files: ManifestFile[] = [];
  if (options.createNamespace ?? true) {
    const ns: corev1.Namespace = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace, labels },
    };
    files.push({ path: 'namespace.yaml', objects: [ns] });
  }
  const crds = await loadCrds(options.crds ?? []);
  for (const crd of crds) {
    files.push({ path: `crds/${crd.metadata?.name}.yaml`, objects: [crd] });
  }
  files.push({ path: 'rbac.yaml', objects: rbac });
  files.push({
    path: 'deployment.yaml',
    objects: [deployment(options, { labels, replicas, healthProbePort, metricsPort })],
  });
  files.push({
    path: 'kustomization.yaml',
    objects: [
      {
        apiVersion: 'kustomize.config.k8s.io/v1beta1',
        kind: 'Kustomization',
        resources: files.map((f) => f.path),
      },
    ],
  });
  return files;
}

/**
 * Writes {@link operatorManifests} into `outDir` (created if missing; files of the same
 * names are replaced), one YAML file per {@link ManifestFile}, and returns the paths
 * written. Then `kubectl apply -k <outDir>` installs the operator.
 *
 * @throws as {@link operatorManifests}; nothing is written when it throws.
 */
export async function writeManifests(
  outDir: string,
  options: OperatorManifestsOptions,
): Promise<string[]> {
  if (typeof outDir !== 'string' || outDir === '') {
    throw new TypeError('writeManifests needs the folder to write to');
  }
  const files = await operatorManifests(options);
  const written: string[] = [];
  for (const file of files) {
    const path = join(outDir, file.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, toYaml(file.objects));
    written.push(path);
  }
  return written;
}

/** Objects as YAML documents separated by `---`. */
export function toYaml(objects: readonly object[]): string {
  return objects
    .map((o) => stringify(o, { lineWidth: 0, aliasDuplicateObjects: false }))
    .join('---\n');
}

function port(value: number, what: string, zeroAllowed: boolean): number {
  if (!Number.isInteger(value) || value > 65535 || value < (zeroAllowed ? 0 : 1)) {
    throw new TypeError(
      `operatorManifests: ${what} must be a port (1-65535${zeroAllowed ? ', or 0 for none' : ''}), got ${value}`,
    );
  }
  return value;
}

function deployment(
  options: OperatorManifestsOptions,
  settings: {
    labels: Record<string, string>;
    replicas: number;
    healthProbePort: number;
    metricsPort: number;
  },
): appsv1.Deployment {
  const { labels, healthProbePort, metricsPort } = settings;
  const probe = (path: string, initialDelaySeconds: number, periodSeconds: number) => ({
    httpGet: { path, port: 'health' },
    initialDelaySeconds,
    periodSeconds,
  });
  const container: corev1.Container = {
    name: 'manager',
    image: options.image,
    ...(options.command ? { command: [...options.command] } : {}),
    ...(options.args ? { args: [...options.args] } : {}),
    ...(options.env ? { env: [...options.env] } : {}),
    ports: [
      ...(metricsPort > 0
        ? [{ name: 'metrics', containerPort: metricsPort, protocol: 'TCP' }]
        : []),
      { name: 'health', containerPort: healthProbePort, protocol: 'TCP' },
    ],
    livenessProbe: probe('/healthz', 15, 20),
    readinessProbe: probe('/readyz', 5, 10),
    resources: options.resources ?? {
      requests: { cpu: '10m', memory: '64Mi' },
      limits: { cpu: '500m', memory: '256Mi' },
    },
    securityContext: {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    },
    // A read-only root still needs somewhere to write temporary files.
    volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: options.name, namespace: options.namespace, labels },
    spec: {
      replicas: settings.replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: options.name,
          securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
          // The manager's graceful shutdown defaults to 30 s; the pod gets a little more.
          terminationGracePeriodSeconds: 40,
          containers: [container],
          volumes: [{ name: 'tmp', emptyDir: {} }],
        },
      },
    },
  };
}

async function loadCrds(
  sources: readonly CrdManifestSource[],
): Promise<apiextensionsv1.CustomResourceDefinition[]> {
  const crds: apiextensionsv1.CustomResourceDefinition[] = [];
  for (const [i, source] of sources.entries()) {
    if (typeof source === 'string') {
      let text: string;
      try {
        text = await readFile(source, 'utf8');
      } catch (err) {
        throw new TypeError(
          `operatorManifests: crds[${i}]: cannot read ${source}: ${(err as Error).message}`,
        );
      }
      const docs = parseAllDocuments(text);
      for (const [d, doc] of (Array.isArray(docs) ? docs : [docs]).entries()) {
        if (doc.errors.length > 0) {
          throw new TypeError(
            `operatorManifests: ${source}, document ${d + 1}: not YAML: ${doc.errors[0]?.message}`,
          );
        }
        const value: unknown = doc.toJS();
        if (value === null || value === undefined) continue;
        crds.push(checkedCrd(value, `${source}, document ${d + 1}`));
      }
    } else {
      crds.push(checkedCrd(source, `crds[${i}]`));
    }
  }
  const seen = new Set<string>();
  for (const crd of crds) {
    const name = crd.metadata?.name ?? '';
    if (seen.has(name)) throw new TypeError(`operatorManifests: the CRD ${name} is given twice`);
    seen.add(name);
  }
  return crds.sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
}

function checkedCrd(value: unknown, where: string): apiextensionsv1.CustomResourceDefinition {
  const crd = value as Partial<apiextensionsv1.CustomResourceDefinition> | null;
  if (crd?.apiVersion !== 'apiextensions.k8s.io/v1' || crd.kind !== 'CustomResourceDefinition') {
    throw new TypeError(
      `operatorManifests: ${where} is not an apiextensions.k8s.io/v1 CustomResourceDefinition (apiVersion ${JSON.stringify(crd?.apiVersion)}, kind ${JSON.stringify(crd?.kind)})`,
    );
  }
  const name = crd.metadata?.name;
  const expected = `${crd.spec?.names?.plural}.${crd.spec?.group}`;
  if (name !== expected) {
    throw new TypeError(
      `operatorManifests: ${where}: a CRD must be named <plural>.<group> (${expected}), got ${JSON.stringify(name)}`,
    );
  }
  return crd as apiextensionsv1.CustomResourceDefinition;
}
