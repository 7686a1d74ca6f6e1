// The README's example, run as a test (scripts/readme-examples.mjs checks that README.md
// shows the code between the readme markers): the harness of @kubets/test-utils.

import { startApiServer } from '@kubets/apiserver';
import { deploymentFixture, podFixture, startReadmeHarness } from '@kubets/test-utils';
import { afterAll, expect, it } from 'vitest';

const { logged, create, stop } = await startReadmeHarness(startApiServer);
afterAll(stop);
await create('/api/v1/namespaces/default/pods', podFixture('default', 'web', 'web'));
await create('/api/v1/namespaces/default/pods', podFixture('default', 'db', 'db'));
await create('/api/v1/namespaces/kube-system/pods', podFixture('kube-system', 'web', 'web'));
await create('/apis/apps/v1/namespaces/default/deployments', deploymentFixture('web', 2));

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
