// The demo mode, run as a user would (`node src/main.ts`) with no cluster configured: the
// tour lists a node, the discovered resources, pods and deployments on the embedded API
// server, then exits by itself.

import { startApiServer } from '@kubets/apiserver';
import { klogLine, noClusterEnv, startApp } from '@kubets-apps/shared/testing';
import { describe, expect, it } from 'vitest';

const appDir = new URL('..', import.meta.url);

describe('client-tour demo mode', () => {
  it('takes the tour on the embedded API server and exits 0', async () => {
    const { env, cleanup } = noClusterEnv();
    try {
      const app = startApp(appDir, [], { env });
      const code = await app.exited;
      const out = app.output;
      expect(code, out.lines.join('\n')).toBe(0);
      expect(
        out.count(
          klogLine(
            'main.ts',
            'no cluster configuration found; running on the embedded in-memory API server',
          ),
        ),
      ).toBe(1);

      // 1. RESTClient: the node.
      const rest = out.indexOf(klogLine('main.ts', 'RESTClient: GET /api/v1/nodes'));
      expect(out.indexOf(/^NAME: node-1 \t READY: Unknown$/)).toBe(rest + 1);

      // 2. Discovery: every resource as "name: ..., group: ..., version ...".
      const discovery = out.indexOf(
        klogLine('main.ts', 'DiscoveryClient: ServerGroupsAndResources'),
      );
      const resources = out.matching(/^name: /, discovery);
      expect(resources).toContain('name: pods, group: , version v1');
      expect(resources).toContain('name: pods/status, group: , version v1');
      expect(resources).toContain('name: deployments, group: apps, version v1');
      expect(resources).toContain('name: leases, group: coordination.k8s.io, version v1');
      for (const line of resources) expect(line).toMatch(/^name: \S+, group: \S*, version v\w+$/);

      // 3. Clientset: pods, then deployments, in "default".
      const pods = out.indexOf(
        klogLine('main.ts', 'Clientset: CoreV1\\(\\).Pods\\("default"\\).List\\(limit 500\\)'),
      );
      const deployments = out.indexOf(
        klogLine(
          'main.ts',
          'Clientset: AppsV1\\(\\).Deployments\\("default"\\).List\\(limit 500\\)',
        ),
      );
      expect(pods).toBeGreaterThan(discovery);
      expect(out.lines.slice(pods + 1, deployments)).toEqual([
        'NAMESPACE: default \t NAME: nginx \t STATUS: Pending',
        'NAMESPACE: default \t NAME: redis \t STATUS: Pending',
      ]);

      // 4. Dynamic client: the same pods, converted to typed Pods.
      const dynamic = out.indexOf(/DynamicClient: Resource\(v1\/pods\)/);
      expect(out.lines.slice(deployments + 1, dynamic)).toEqual([
        'NAMESPACE: default \t NAME: web \t REPLICAS: 1',
      ]);
      expect(out.lines.slice(dynamic + 1)).toEqual([
        'NAMESPACE: default \t NAME: nginx \t STATUS: Pending',
        'NAMESPACE: default \t NAME: redis \t STATUS: Pending',
      ]);
    } finally {
      cleanup();
    }
  }, 180_000);

  it('connects to the server given by --master (no kubeconfig) instead of playing the demo', async () => {
    await using server = await startApiServer();
    const { env, cleanup } = noClusterEnv();
    try {
      const app = startApp(appDir, ['--master', server.host], { env });
      const code = await app.exited;
      const out = app.output;
      expect(code, out.lines.join('\n')).toBe(0);
      expect(out.count(/no cluster configuration found|--demo|demo:/)).toBe(0);
      // An empty server: no nodes, pods or deployments; discovery as always.
      const rest = out.indexOf(klogLine('main.ts', 'RESTClient: GET /api/v1/nodes'));
      expect(out.lines[rest + 1]).toMatch(klogLine('main.ts', 'DiscoveryClient: .*'));
      expect(out.matching(/^name: /)).toContain('name: deployments, group: apps, version v1');
      expect(out.count(/^NAMESPACE: /)).toBe(0);
    } finally {
      cleanup();
    }
  }, 180_000);
});
