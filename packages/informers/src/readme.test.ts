// The README's example (between the readme markers), run as a test: scripts/readme-examples.mjs
// checks that packages/informers/README.md shows this code verbatim, with `from './index.js'`
// written as `from '@kubets/informers'`. The cluster is the in-memory API server of
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
await create('/apis/apps/v1/namespaces/default/deployments', deployment('web', 2));
await create('/apis/apps/v1/namespaces/default/deployments', deployment('db', 1));

// readme:start
import { deletedObject } from '@kubets/cache';
import { Clientset } from '@kubets/clientset';
import { loadConfig } from '@kubets/rest';
import { newSharedInformerFactory } from './index.js';

const clientset = new Clientset(loadConfig()); // as kubectl: KUBECONFIG, ~/.kube/config, ...

// resync every 60 s: handlers then get onUpdate(old, new) with the same object
const informerFactory = newSharedInformerFactory(clientset, 60_000);

const deployInformer = informerFactory.appsV1().deployments();
const informer = deployInformer.informer(); // registers it, so start() runs it
const deployLister = deployInformer.lister();

informer.addEventHandler({
  onAdd: (deploy) => console.log('add a deployment:', deploy.metadata?.name),
  onUpdate: (oldDeploy, newDeploy) =>
    console.log('update deployment:', oldDeploy.metadata?.name, newDeploy.metadata?.name),
  onDelete: (deploy) => console.log('delete a deployment:', deletedObject(deploy)?.metadata?.name),
});

const stopper = new AbortController(); // stopper.abort() stops the informers
informerFactory.start(stopper.signal);
await informerFactory.waitForCacheSync(stopper.signal);

// from the local cache: every deployment in `default`
const deployments = deployLister.byNamespace('default').list();
deployments.forEach((deploy, idx) => {
  console.log(`${idx + 1} -> ${deploy.metadata?.name}`);
});
// readme:end
afterAll(() => informerFactory.shutdown()); // hooks run last to first: before the server stops

it('runs the README example: the handler hears of every deployment, the lister has them', async () => {
  expect(deployments.map((d) => d.metadata?.name).sort()).toEqual(['db', 'web']);
  expect(deployLister.byNamespace('default').get('web').spec?.replicas).toBe(2);
  await vi.waitFor(() => {
    expect(logged).toContainEqual(['add a deployment:', 'web']);
    expect(logged).toContainEqual(['add a deployment:', 'db']);
  });
  expect(logged.filter(([line]) => /^\d+ -> /.test(String(line))).length).toBe(2);
  // A change on the server reaches the handler.
  await fetch(`${server.host}/apis/apps/v1/namespaces/default/deployments/db`, {
    method: 'DELETE',
  });
  await vi.waitFor(() => expect(logged).toContainEqual(['delete a deployment:', 'db']));
});
