// The README's example, run as a test (scripts/readme-examples.mjs checks that README.md
// shows the code between the readme markers): the harness of @kubets/test-utils.

import { startApiServer } from '@kubets/apiserver';
import { deploymentFixture, startReadmeHarness } from '@kubets/test-utils';
import { afterAll, expect, it, vi } from 'vitest';

const { server, logged, create, stop } = await startReadmeHarness(startApiServer);
afterAll(stop);
await create('/apis/apps/v1/namespaces/default/deployments', deploymentFixture('web', 2));
await create('/apis/apps/v1/namespaces/default/deployments', deploymentFixture('db', 1));

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
