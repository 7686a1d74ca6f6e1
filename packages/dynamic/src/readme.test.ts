// The README's example (between the readme markers), run as a test: scripts/readme-examples.mjs
// checks that packages/dynamic/README.md shows this code verbatim, with `from './index.js'`
// written as `from '@kubets/dynamic'`. The cluster is the in-memory API server of
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
await create('/api/v1/namespaces/default/pods', pod('default', 'web', 'web'));
await create('/api/v1/namespaces/default/pods', pod('default', 'db', 'db'));

// readme:start
import { loadConfig } from '@kubets/rest';
import { DynamicClient, toTypedList } from './index.js';

interface Pod {
  metadata: { name: string; namespace: string };
  status: { phase?: string };
}

const config = loadConfig(); // as kubectl: KUBECONFIG, ~/.kube/config or in-cluster
const dynamic = new DynamicClient(config);

const gvr = { group: '', version: 'v1', resource: 'pods' };
const unstructured = await dynamic.resource(gvr).namespace('default').list({ limit: 500 });
const podList = toTypedList<Pod>(unstructured, { apiVersion: 'v1', kind: 'Pod' });
for (const pod of podList.items) {
  console.log(
    `NAMESPACE: ${pod.metadata.namespace} \t NAME: ${pod.metadata.name} \t STATUS: ${pod.status.phase}`,
  );
}
// readme:end

it('runs the README example: lists pods as unstructured objects, then as typed ones', () => {
  expect(unstructured.items.map((p) => [p.apiVersion, p.kind])).toEqual([
    ['v1', 'Pod'],
    ['v1', 'Pod'],
  ]);
  expect(logged).toEqual([
    ['NAMESPACE: default \t NAME: db \t STATUS: Pending'],
    ['NAMESPACE: default \t NAME: web \t STATUS: Pending'],
  ]);
});
