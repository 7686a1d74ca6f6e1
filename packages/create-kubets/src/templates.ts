import type { ScaffoldNames } from './names.js';

/** One file of a new project: its path relative to the project's folder, and its text. */
export interface ProjectFile {
  /** Relative path, `/`-separated (`src/reconciler.ts`). */
  readonly path: string;
  /** The file's text. */
  readonly content: string;
}

/** Versions of the third-party packages a new project uses (kept in step with the workspace's by a test). */
export const thirdPartyVersions = {
  typebox: '^1.4.0',
  'prom-client': '^15.1.3',
  typescript: '^6.0.3',
  vitest: '^5.1.1',
  '@types/node': '^24.0.0',
} as const;

/** The @kubets packages a new project depends on at run time, and those its tests use. */
export const kubetsRuntimePackages = [
  '@kubets/apimachinery',
  '@kubets/clientset',
  '@kubets/controller',
  '@kubets/crd',
  '@kubets/rest',
] as const;
/** The @kubets packages of a new project's tests: the in-memory API server and envtest. */
export const kubetsTestPackages = ['@kubets/apiserver', '@kubets/envtest'] as const;

const isIdentifier = (name: string): boolean => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name);
/** A property access in generated code: `.v1`, or `['v1-beta']` for a version with a dash. */
const member = (name: string): string =>
  isIdentifier(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
/** A property key in generated code: `v1`, or `'v1-beta'`. */
const key = (name: string): string => (isIdentifier(name) ? name : `'${name}'`);

/** The files of a new project for `names`, whose @kubets packages are at `kubetsVersion`. */
export function renderProject(names: ScaffoldNames, kubetsVersion: string): ProjectFile[] {
  return [
    { path: 'package.json', content: packageJson(names, kubetsVersion) },
    { path: 'tsconfig.json', content: tsconfig() },
    { path: 'tsconfig.build.json', content: tsconfigBuild() },
    { path: 'vitest.config.ts', content: vitestConfig() },
    { path: 'vitest.e2e.config.ts', content: vitestE2eConfig() },
    { path: '.gitignore', content: 'node_modules/\ndist/\n' },
    { path: '.dockerignore', content: 'node_modules/\ndist/\nconfig/\n' },
    { path: 'Dockerfile', content: dockerfile() },
    { path: 'README.md', content: readme(names) },
    { path: 'src/api.ts', content: api(names) },
    { path: 'src/reconciler.ts', content: reconciler(names) },
    { path: 'src/controller.ts', content: controllerFile(names) },
    { path: 'src/options.ts', content: options(names) },
    { path: 'src/main.ts', content: main() },
    { path: 'src/manifests.ts', content: manifests(names) },
    { path: 'src/reconciler.test.ts', content: reconcilerTest(names) },
    { path: 'src/manifests.test.ts', content: manifestsTest(names) },
    { path: 'src/operator.e2e.test.ts', content: e2eTest(names) },
  ];
}

function packageJson(names: ScaffoldNames, kubetsVersion: string): string {
  const range = `^${kubetsVersion}`;
  const pkg = {
    name: names.name,
    version: '0.1.0',
    private: true,
    description: `A Kubernetes operator for ${names.kind} (${names.group}/${names.version}), built on kubets.`,
    type: 'module',
    engines: { node: '>=22.18' },
    scripts: {
      start: 'node src/main.ts',
      build: 'tsc -p tsconfig.build.json',
      typecheck: 'tsc --noEmit',
      test: 'vitest run',
      'test:e2e': 'vitest run --config vitest.e2e.config.ts',
      manifests: 'node src/manifests.ts config',
    },
    dependencies: {
      ...Object.fromEntries(kubetsRuntimePackages.map((p) => [p, range])),
      'prom-client': thirdPartyVersions['prom-client'],
      typebox: thirdPartyVersions.typebox,
    },
    devDependencies: {
      ...Object.fromEntries(kubetsTestPackages.map((p) => [p, range])),
      '@types/node': thirdPartyVersions['@types/node'],
      typescript: thirdPartyVersions.typescript,
      vitest: thirdPartyVersions.vitest,
    },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

function tsconfig(): string {
  const config = {
    compilerOptions: {
      target: 'es2023',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      noImplicitOverride: true,
      verbatimModuleSyntax: true,
      erasableSyntaxOnly: true,
      rewriteRelativeImportExtensions: true,
      skipLibCheck: true,
      types: ['node'],
      rootDir: 'src',
      outDir: 'dist',
    },
    include: ['src'],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

function tsconfigBuild(): string {
  const config = {
    extends: './tsconfig.json',
    exclude: ['src/**/*.test.ts'],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

function vitestConfig(): string {
  return `import { defineConfig } from 'vitest/config';

// Unit tests: the in-memory API server of @kubets/apiserver, no process started.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    exclude: ['src/**/*.e2e.test.ts'],
  },
});
`;
}

function vitestE2eConfig(): string {
  return `import { defineConfig } from 'vitest/config';

// End-to-end tests: a real etcd and kube-apiserver (@kubets/envtest), found through
// KUBEBUILDER_ASSETS.
export default defineConfig({
  test: {
    include: ['src/**/*.e2e.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 240_000,
    fileParallelism: false,
  },
});
`;
}

function dockerfile(): string {
  return `# The operator's image: compiled in one stage, run with its production dependencies only.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY --from=build /app/dist ./dist
USER node
# The Deployment written by \`npm run manifests\` adds its arguments (leader election).
ENTRYPOINT ["node", "dist/main.js"]
`;
}

function api(n: ScaffoldNames): string {
  return `// The ${n.kind} custom resource, declared once in TypeScript: the CustomResourceDefinition
// (checked with kube-apiserver's rules when this module loads), the typed descriptor the
// clientset, informers and controller take, and the object's type.
import { type CustomObjectOf, defineCustomResource } from '@kubets/crd';
import Type from 'typebox';

export const ${n.plural} = defineCustomResource({
  group: '${n.group}',
  kind: '${n.kind}',
  scope: 'Namespaced',
  versions: {
    ${key(n.version)}: {
      spec: Type.Object({
        message: Type.String({
          minLength: 1,
          description: 'What the ConfigMap of this ${n.kind} holds.',
        }),
      }),
      status: Type.Object({
        observedGeneration: Type.Optional(Type.Integer()),
        configMap: Type.Optional(Type.String()),
      }),
      printerColumns: [{ name: 'ConfigMap', type: 'string', jsonPath: '.status.configMap' }],
    },
  },
});

/** The version the operator reconciles. */
export const ${n.camelKind}Resource = ${n.plural}.versions${member(n.version)};

/** A ${n.kind} object, typed from the declaration above. */
export type ${n.kind} = CustomObjectOf<typeof ${n.camelKind}Resource>;

/** The apiVersion of ${n.kind} objects. */
export const apiVersion = '${n.group}/${n.version}';
`;
}

function reconciler(n: ScaffoldNames): string {
  return `import { isNotFound, jsonEqual } from '@kubets/apimachinery';
import type { Clientset } from '@kubets/clientset';
import { createOrUpdate, type ReconcileFunc, setControllerReference } from '@kubets/controller';
import { PatchType } from '@kubets/rest';
import { apiVersion, type ${n.kind}, ${n.camelKind}Resource } from './api.ts';

/**
 * Brings one ${n.kind} to its desired state: a ConfigMap of the same name, owned by it, that
 * holds its spec.message; then reports that ConfigMap and the generation it saw in its status.
 * Idempotent: it reads the current state and changes only what differs.
 */
export function ${n.camelKind}Reconciler(clientset: Clientset): ReconcileFunc<${n.kind}> {
  return async ({ namespace, name }, ctx) => {
    const ${n.plural} = clientset.resource(${n.camelKind}Resource, namespace);
    let ${n.camelKind}: ${n.kind};
    try {
      // A live read: this reconciler writes the status itself, and the cache may lag behind.
      ${n.camelKind} = await ${n.plural}.get(name, { signal: ctx.signal });
    } catch (err) {
      if (isNotFound(err)) return; // deleted: the garbage collector deletes its ConfigMap
      throw err;
    }
    if (${n.camelKind}.metadata?.deletionTimestamp) return;
    const owner = { ...${n.camelKind}, apiVersion, kind: '${n.kind}' };

    const result = await createOrUpdate(
      clientset.coreV1().configMaps(namespace),
      { metadata: { name, namespace } },
      (configMap) => {
        configMap.data = { message: ${n.camelKind}.spec.message };
        setControllerReference(owner, configMap);
      },
    );
    if (result !== 'unchanged') ctx.logger.info('ConfigMap written', { result });

    const status = { observedGeneration: ${n.camelKind}.metadata?.generation ?? 0, configMap: name };
    if (!jsonEqual(status, ${n.camelKind}.status)) {
      await ${n.plural}.patchStatus(name, PatchType.MergePatch, { status });
      ctx.recorder.event(owner, 'Normal', 'Synced', \`ConfigMap \${name} holds the message\`);
    }
  };
}
`;
}

function controllerFile(n: ScaffoldNames): string {
  return `import { coreV1Resources } from '@kubets/clientset';
import {
  controller,
  createOrUpdatePermission,
  type Manager,
  statusPermission,
} from '@kubets/controller';
import { ${n.camelKind}Resource } from './api.ts';
import { ${n.camelKind}Reconciler } from './reconciler.ts';

/**
 * Adds the operator's controller of ${n.kind} objects to \`mgr\` (main.ts runs it, manifests.ts
 * reads its permissions). What it watches gives its read permissions; what the
 * reconciler writes is declared with .rbac(...): \`npm run manifests\` writes exactly these
 * rules, so a write added to the reconciler needs its permission here.
 */
export function addControllers(mgr: Manager): void {
  controller(mgr)
    .for(${n.camelKind}Resource)
    .owns(coreV1Resources.configMaps)
    .rbac(
      createOrUpdatePermission(coreV1Resources.configMaps),
      statusPermission(${n.camelKind}Resource, ['patch']),
    )
    .complete(${n.camelKind}Reconciler(mgr.clientset));
}
`;
}

function options(n: ScaffoldNames): string {
  return `import { parseArgs } from 'node:util';
import type { ManagerOptions } from '@kubets/controller';

/** The operator's name: its Deployment, ServiceAccount, roles and leader election Lease. */
export const operatorName = '${n.name}';

/**
 * The Manager's options from the operator's command line (\`--leader-elect\`,
 * \`--leader-elect-namespace\`, \`--metrics-bind-address\`, \`--health-probe-bind-address\`).
 * main.ts runs with them and manifests.ts derives the RBAC rules from the same arguments, so
 * that the Lease the operator takes is the one it may take.
 */
export function managerOptions(args: readonly string[]): ManagerOptions {
  const { values } = parseArgs({
    args: [...args],
    options: {
      'leader-elect': { type: 'boolean', default: false },
      'leader-elect-namespace': { type: 'string', default: 'default' },
      'metrics-bind-address': { type: 'string', default: ':8080' },
      'health-probe-bind-address': { type: 'string', default: ':8081' },
    },
  });
  const options: ManagerOptions = {
    metricsBindAddress: values['metrics-bind-address'],
    healthProbeBindAddress: values['health-probe-bind-address'],
    gracefulShutdownTimeoutMs: 30_000,
  };
  if (values['leader-elect']) {
    options.leaderElection = {
      namespace: values['leader-elect-namespace'],
      name: operatorName,
      // Stopping on SIGTERM hands the Lease over at once instead of after it expired.
      releaseOnCancel: true,
    };
  }
  return options;
}
`;
}

function main(): string {
  return `// The operator: a Manager on the cluster kubectl would use (kubeconfig, KUBECONFIG, or the
// in-cluster service account), with the controller added; until SIGTERM or SIGINT.
import { Manager, signalHandler } from '@kubets/controller';
import { loadConfig } from '@kubets/rest';
import { addControllers } from './controller.ts';
import { managerOptions } from './options.ts';

const mgr = new Manager(loadConfig(), managerOptions(process.argv.slice(2)));
addControllers(mgr);
await mgr.start(signalHandler());
`;
}

function manifests(n: ScaffoldNames): string {
  return `// The manifests that deploy the operator: the CRD, the Namespace, the ServiceAccount and the
// RBAC rules derived from the controller, a Deployment and a kustomization.yaml.
//
//   npm run manifests -- [--image IMAGE] [--namespace NAMESPACE]    (writes config/)
//   kubectl apply -k config
//
// Nothing connects to a cluster: the Manager is only built, so that its controllers say what
// the operator reads and writes.
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Manager } from '@kubets/controller';
import { type OperatorManifestsOptions, writeManifests } from '@kubets/controller/manifests';
import { ${n.plural} } from './api.ts';
import { addControllers } from './controller.ts';
import { managerOptions, operatorName } from './options.ts';

/** What writeManifests is given for the operator in \`namespace\`, run from \`image\`. */
export function manifestOptions(namespace: string, image: string): OperatorManifestsOptions {
  const args = ['--leader-elect', \`--leader-elect-namespace=\${namespace}\`];
  const mgr = new Manager({ host: 'https://kubernetes.default.svc' }, managerOptions(args));
  addControllers(mgr);
  return { manager: mgr, name: operatorName, namespace, image, args, crds: [${n.plural}.crd] };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      image: { type: 'string', default: \`\${operatorName}:latest\` },
      namespace: { type: 'string', default: '${n.namespace}' },
    },
  });
  const outDir = positionals[0] ?? 'config';
  for (const path of await writeManifests(outDir, manifestOptions(values.namespace, values.image))) {
    console.log(\`wrote \${path}\`);
  }
}
`;
}

function reconcilerTest(n: ScaffoldNames): string {
  return `// Unit tests on the in-memory API server of @kubets/apiserver: the CRD installed, the
// reconciler called once per test as a controller would call it.
import { startInMemoryTestEnv } from '@kubets/controller/testing';
import { afterAll, expect, it } from 'vitest';
import { ${n.camelKind}Resource, ${n.plural} } from './api.ts';
import { ${n.camelKind}Reconciler } from './reconciler.ts';

const env = await startInMemoryTestEnv({ crds: [${n.plural}.crd] });
afterAll(() => env.stop());

const client = env.clientset.resource(${n.camelKind}Resource, 'default');
const configMaps = env.clientset.coreV1().configMaps('default');
const reconcile = (name: string) =>
  env.reconcile(${n.camelKind}Resource, ${n.camelKind}Reconciler(env.clientset), { namespace: 'default', name });

it('writes the message into a ConfigMap it owns and reports it in the status', async () => {
  await client.create({ metadata: { name: 'first' }, spec: { message: 'hello' } });
  await reconcile('first');

  const configMap = await configMaps.get('first');
  expect(configMap.data).toEqual({ message: 'hello' });
  expect(configMap.metadata?.ownerReferences).toEqual([
    expect.objectContaining({ kind: '${n.kind}', name: 'first', controller: true }),
  ]);
  expect((await client.get('first')).status).toEqual({ observedGeneration: 1, configMap: 'first' });
  expect((await env.events()).map((e) => e.reason)).toContain('Synced');
});

it('follows a change of the spec, and puts back a ConfigMap changed by someone else', async () => {
  await client.create({ metadata: { name: 'second' }, spec: { message: 'one' } });
  await reconcile('second');
  const live = await client.get('second');
  await client.update({ ...live, spec: { message: 'two' } });
  await reconcile('second');
  expect((await configMaps.get('second')).data).toEqual({ message: 'two' });
  expect((await client.get('second')).status?.observedGeneration).toBe(2);

  const configMap = await configMaps.get('second');
  await configMaps.update({ ...configMap, data: { message: 'changed by hand' } });
  await reconcile('second');
  expect((await configMaps.get('second')).data).toEqual({ message: 'two' });
});

it('is refused an empty message by the schema', async () => {
  await expect(
    client.create({ metadata: { name: 'empty' }, spec: { message: '' } }),
  ).rejects.toThrow(/spec.message/);
});

it('does nothing for a ${n.kind} that is gone', async () => {
  await expect(reconcile('missing')).resolves.toBeUndefined();
  await expect(configMaps.get('missing')).rejects.toThrow(/not found/);
});
`;
}

function manifestsTest(n: ScaffoldNames): string {
  return `// The deploy manifests: the rules come from the controller, with nothing more than it needs.
import { operatorManifests } from '@kubets/controller/manifests';
import { expect, it } from 'vitest';
import { manifestOptions } from './manifests.ts';

it('grants the ServiceAccount what the controller reads and writes', async () => {
  const files = await operatorManifests(manifestOptions('${n.namespace}', 'example/operator:1'));
  expect(files.map((f) => f.path)).toEqual([
    'namespace.yaml',
    'crds/${n.plural}.${n.group}.yaml',
    'rbac.yaml',
    'deployment.yaml',
    'kustomization.yaml',
  ]);
  const objects = files.flatMap((f) => f.objects) as Array<{
    kind: string;
    rules?: Array<{ apiGroups?: string[]; resources?: string[]; verbs: string[] }>;
  }>;
  const rules = objects.filter((o) => o.kind === 'ClusterRole').flatMap((o) => o.rules ?? []);
  const verbs = (group: string, resource: string) =>
    rules
      .filter((r) => r.apiGroups?.includes(group) && r.resources?.includes(resource))
      .flatMap((r) => r.verbs)
      .sort();
  expect(verbs('${n.group}', '${n.plural}')).toEqual(['get', 'list', 'watch']);
  expect(verbs('${n.group}', '${n.plural}/status')).toEqual(['patch']);
  expect(verbs('', 'configmaps')).toEqual(['create', 'get', 'list', 'update', 'watch']);
});
`;
}

function e2eTest(n: ScaffoldNames): string {
  return `// End-to-end: the controller against a real etcd and kube-apiserver (@kubets/envtest), whose
// binaries KUBEBUILDER_ASSETS names. envtest runs no controller-manager: no garbage collector,
// so the test checks the operator's own work.
import { Manager } from '@kubets/controller';
import { type Envtest, startEnvtest } from '@kubets/envtest';
import { loadConfig } from '@kubets/rest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ${n.camelKind}Resource, ${n.plural} } from './api.ts';
import { addControllers } from './controller.ts';

/** Checks \`condition\` every 200 ms until it stops throwing; fails after 60 s. */
async function until(condition: () => Promise<void>): Promise<void> {
  for (const deadline = Date.now() + 60_000; ; ) {
    try {
      return await condition();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

let env: Envtest;
let mgr: Manager;
const stop = new AbortController();
let running: Promise<void>;

beforeAll(async () => {
  env = await startEnvtest();
  mgr = new Manager(loadConfig({ kubeconfig: env.kubeconfigPath }));
  await mgr.clientset.apiextensionsV1().customResourceDefinitions().create(${n.plural}.crd);
  // Served once the CRD is established.
  await until(async () => void (await mgr.clientset.resource(${n.camelKind}Resource).list()));
  addControllers(mgr);
  running = mgr.start(stop.signal);
});

afterAll(async () => {
  stop.abort();
  await running;
  await env?.stop();
});

it('converges: a ConfigMap with the message, the status, and again after a change', async () => {
  const client = mgr.clientset.resource(${n.camelKind}Resource, 'default');
  const configMaps = mgr.clientset.coreV1().configMaps('default');
  await client.create({ metadata: { name: 'e2e' }, spec: { message: 'hello' } });
  await until(async () => {
    expect((await configMaps.get('e2e')).data).toEqual({ message: 'hello' });
    expect((await client.get('e2e')).status).toEqual({ observedGeneration: 1, configMap: 'e2e' });
  });

  const live = await client.get('e2e');
  await client.update({ ...live, spec: { message: 'changed' } });
  await until(async () => {
    expect((await configMaps.get('e2e')).data).toEqual({ message: 'changed' });
    expect((await client.get('e2e')).status?.observedGeneration).toBe(2);
  });
});
`;
}

function readme(n: ScaffoldNames): string {
  return `# ${n.name}

A Kubernetes operator for the \`${n.kind}\` custom resource (\`${n.plural}.${n.group}\`, version
\`${n.version}\`), built on [kubets](https://github.com/kubets/kubets): for each ${n.kind} it
keeps a ConfigMap of the same name holding \`spec.message\`, and reports it in the status.

## Layout

| file | what |
| --- | --- |
| \`src/api.ts\` | the ${n.kind} CRD declared in TypeScript (\`@kubets/crd\`, TypeBox): the CRD, the typed descriptor, the object type |
| \`src/reconciler.ts\` | the reconciler: one ${n.kind} in, its ConfigMap and status out |
| \`src/controller.ts\` | the controller: what it watches, the permissions its writes need |
| \`src/options.ts\`, \`src/main.ts\` | the operator's flags and entry point (leader election, metrics on :8080, probes on :8081) |
| \`src/manifests.ts\` | writes the CRD, RBAC (from the controller), the Deployment and a kustomization into \`config/\` |
| \`src/*.test.ts\` | unit tests on the in-memory API server of \`@kubets/apiserver\` |
| \`src/operator.e2e.test.ts\` | the end-to-end test on a real kube-apiserver (\`@kubets/envtest\`) |
| \`Dockerfile\` | the operator's image |

## Develop

\`\`\`sh
npm install
npm test              # unit tests, no cluster needed
npm run typecheck
npm run test:e2e      # needs etcd and kube-apiserver: KUBEBUILDER_ASSETS=<their folder>
npm start             # runs the operator against the cluster kubectl uses
\`\`\`

Change the resource in \`src/api.ts\`: the CRD, the types and the tests follow; the declaration
is checked with kube-apiserver's rules when it loads. Node 22.18 or newer runs the TypeScript
sources as they are.

## Deploy

\`\`\`sh
docker build -t registry.example/${n.name}:0.1.0 .
npm run manifests -- --image registry.example/${n.name}:0.1.0
kubectl apply -k config
\`\`\`

\`config/\` then holds the Namespace \`${n.namespace}\`, the CRD, a ServiceAccount with only the
permissions the controller needs (\`rbac.yaml\`), the Deployment (leader election, metrics and
health ports, probes) and \`kustomization.yaml\`. A write added to the reconciler needs its
permission declared in \`src/controller.ts\` (\`.rbac(...)\`); \`npm run manifests\` then writes it.
`;
}
