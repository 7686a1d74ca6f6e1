// The README's example (between the readme markers), run as a test: scripts/readme-examples.mjs
// checks that packages/clientset/README.md shows this code verbatim, with `from './index.js'`
// written as `from '@kubets/clientset'`. The cluster is the in-memory API server of
// @kubets/testing; `loadConfig()` finds it through KUBECONFIG, as kubectl would.
import { startApiServer } from '@kubets/testing';
import { afterAll, expect, it, vi } from 'vitest';

const server = await startApiServer();
process.env.KUBECONFIG = server.kubeconfigPath;
afterAll(() => server.stop());
/** What the example prints (vitest clears mock.calls before each test, so keep a copy). */
const logged: unknown[][] = [];
vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
  logged.push(args);
});

/** Writes an object to the server, as kubectl create would. */
async function create(path: string, body: object): Promise<void> {
  const res = await fetch(`${server.host}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
}
const pod = (namespace: string, name: string, app: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels: { app } },
  spec: { containers: [{ name: 'app', image: 'nginx' }] },
});
const deployment = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default' },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'app', image: 'nginx' }] },
    },
  },
});
await create('/api/v1/namespaces/default/pods', pod('default', 'web', 'web'));
await create('/api/v1/namespaces/default/pods', pod('default', 'db', 'db'));
await create('/api/v1/namespaces/kube-system/pods', pod('kube-system', 'web', 'web'));
await create('/apis/apps/v1/namespaces/default/deployments', deployment('web', 2));

// readme:start
import { loadConfig } from '@kubets/rest';
import { Clientset } from './index.js';

const config = loadConfig(); // as kubectl: KUBECONFIG, ~/.kube/config or in-cluster
const clientset = new Clientset(config);

// Pods in "default"
const pods = await clientset.coreV1().pods('default').list({ limit: 500 });
for (const pod of pods.items) {
  console.log(
    `NAMESPACE: ${pod.metadata?.namespace}\tNAME: ${pod.metadata?.name}\tPHASE: ${pod.status?.phase}`,
  );
}

// Deployments in "default"
const deployments = await clientset.appsV1().deployments('default').list({ limit: 500 });
for (const d of deployments.items) console.log(d.metadata?.name, d.spec?.replicas);

// Every namespace: leave the namespace out (list and watch only)
const all = await clientset.coreV1().pods().list({ labelSelector: 'app=web' });
// readme:end

it('runs the README example: lists pods and deployments', () => {
  expect(logged).toEqual([
    ['NAMESPACE: default\tNAME: db\tPHASE: Pending'],
    ['NAMESPACE: default\tNAME: web\tPHASE: Pending'],
    ['web', 2],
  ]);
  expect(all.items.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`).sort()).toEqual([
    'default/web',
    'kube-system/web',
  ]);
});
