// The client tour against envtest's real kube-apiserver: objects made with kubectl, then
// `node src/main.ts --kubeconfig <envtest>` lists them with each of the four clients.

import { type Envtest, startEnvtest } from '@kubets/envtest';
import { demoDeployment, demoPod } from '@kubets-apps/shared';
import { klogLine, kubectl, startApp } from '@kubets-apps/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const appDir = new URL('..', import.meta.url);

describe('client-tour against a real kube-apiserver', () => {
  let env: Envtest;

  beforeAll(async () => {
    env = await startEnvtest();
  });

  afterAll(async () => {
    await env?.stop();
  });

  it('lists nodes, every discovered resource, pods and deployments, and pods as typed objects', async () => {
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'e2e-node' } };
    await kubectl(env.kubeconfigPath, ['apply', '-f', '-'], JSON.stringify(node));
    await kubectl(
      env.kubeconfigPath,
      ['apply', '-f', '-'],
      JSON.stringify(demoPod('web', 'nginx:1.25')),
    );
    await kubectl(
      env.kubeconfigPath,
      ['apply', '-f', '-'],
      JSON.stringify(demoPod('db', 'redis:7')),
    );
    await kubectl(
      env.kubeconfigPath,
      ['apply', '-f', '-'],
      JSON.stringify(demoDeployment('frontend', 'nginx:1.25')),
    );
    await kubectl(env.kubeconfigPath, ['scale', 'deployment', 'frontend', '--replicas=4']);

    const app = startApp(appDir, ['--kubeconfig', env.kubeconfigPath]);
    const code = await app.exited;
    const out = app.output;
    expect(code, out.lines.join('\n')).toBe(0);
    expect(out.count(/no cluster configuration found/)).toBe(0);

    // 1. RESTClient: the node (no kubelet: no Ready condition).
    const rest = out.indexOf(klogLine('main.ts', 'RESTClient: GET /api/v1/nodes'));
    expect(out.lines[rest + 1]).toBe('NAME: e2e-node \t READY: Unknown');

    // 2. Discovery: what `kubectl api-resources` knows, in the seed's format.
    const discovery = out.indexOf(klogLine('main.ts', 'DiscoveryClient: ServerGroupsAndResources'));
    expect(discovery).toBe(rest + 2);
    const resources = out.matching(/^name: /, discovery);
    for (const expected of [
      'name: pods, group: , version v1',
      'name: pods/log, group: , version v1',
      'name: nodes, group: , version v1',
      'name: deployments, group: apps, version v1',
      'name: deployments/scale, group: apps, version v1',
      'name: customresourcedefinitions, group: apiextensions.k8s.io, version v1',
      'name: leases, group: coordination.k8s.io, version v1',
      'name: cronjobs, group: batch, version v1beta1',
    ]) {
      expect(resources).toContain(expected);
    }
    for (const line of resources) expect(line).toMatch(/^name: \S+, group: \S*, version v\w+$/);
    const names = await kubectl(env.kubeconfigPath, ['api-resources', '-o', 'name']);
    // Every resource kubectl lists (preferred versions) appears in the tour's output.
    for (const name of names.trim().split('\n')) {
      const [resource, ...group] = name.split('.');
      expect(
        resources.some((line) => line.startsWith(`name: ${resource}, group: ${group.join('.')}, `)),
        name,
      ).toBe(true);
    }

    // 3. Clientset: pods and deployments in "default".
    const pods = out.indexOf(/Clientset: CoreV1\(\)\.Pods\("default"\)/);
    const deployments = out.indexOf(/Clientset: AppsV1\(\)\.Deployments\("default"\)/);
    expect(out.lines.slice(pods + 1, deployments)).toEqual([
      'NAMESPACE: default \t NAME: db \t STATUS: Pending',
      'NAMESPACE: default \t NAME: web \t STATUS: Pending',
    ]);

    // 4. Dynamic client: the same pods, converted to typed Pods.
    const dynamic = out.indexOf(/DynamicClient: Resource\(v1\/pods\)/);
    expect(out.lines.slice(deployments + 1, dynamic)).toEqual([
      'NAMESPACE: default \t NAME: frontend \t REPLICAS: 4',
    ]);
    expect(out.lines.slice(dynamic + 1)).toEqual([
      'NAMESPACE: default \t NAME: db \t STATUS: Pending',
      'NAMESPACE: default \t NAME: web \t STATUS: Pending',
    ]);
  });
});
