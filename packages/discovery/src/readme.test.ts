// The README's example, run as a test (scripts/readme-examples.mjs checks that README.md
// shows the code between the readme markers): the harness of @kubets/test-utils.

import { startApiServer } from '@kubets/apiserver';
import { startReadmeHarness } from '@kubets/test-utils';
import { afterAll, expect, it } from 'vitest';

const { logged, stop } = await startReadmeHarness(startApiServer);
afterAll(stop);

// readme:start
import { parseGroupVersion } from '@kubets/apimachinery';
import { loadConfig } from '@kubets/rest';
import { DiscoveryClient, MemCacheClient, RESTMapper } from './index.js';

const config = loadConfig(); // as kubectl: KUBECONFIG, ~/.kube/config or in-cluster
const discovery = new DiscoveryClient(config);

// every resource with its group and version (client-go's discovery example)
const { resources } = await discovery.serverGroupsAndResources();
for (const list of resources) {
  const gv = parseGroupVersion(list.groupVersion);
  for (const resource of list.resources) {
    console.log(`name: ${resource.name}, group: ${gv.group}, version ${gv.version}`);
  }
}

// what `kubectl get <arg>` accepts: plural, singular, short and kind names
const mapper = new RESTMapper(new MemCacheClient(discovery));
const gvr = await mapper.resourceFor('deploy'); // { group: 'apps', version: 'v1', resource: 'deployments' }
// readme:end

it('runs the README example: prints every resource, maps a short name', () => {
  expect(logged).toContainEqual(['name: pods, group: , version v1']);
  expect(logged).toContainEqual(['name: deployments, group: apps, version v1']);
  expect(logged).toContainEqual(['name: leases, group: coordination.k8s.io, version v1']);
  expect(logged.length).toBe(resources.reduce((n, list) => n + list.resources.length, 0));
  expect(gvr).toEqual({ group: 'apps', version: 'v1', resource: 'deployments' });
});
