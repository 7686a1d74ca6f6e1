// The README's example, run as a test (scripts/readme-examples.mjs checks that README.md
// shows the code between the readme markers): the harness of @kubets/test-utils.

import { startApiServer } from '@kubets/apiserver';
import { podFixture, startReadmeHarness } from '@kubets/test-utils';
import { afterAll, expect, it } from 'vitest';

const { logged, create, stop } = await startReadmeHarness(startApiServer);
afterAll(stop);
await create('/api/v1/namespaces/default/pods', podFixture('default', 'web', 'web'));
await create('/api/v1/namespaces/default/pods', podFixture('default', 'db', 'db'));

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
