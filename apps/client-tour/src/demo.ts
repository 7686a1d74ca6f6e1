// The objects the client tour finds on the embedded API server when no cluster is configured:
// a Node, two Pods and a Deployment, created before the tour starts.

import { type DemoScenario, demoDeployment, demoPod } from '@kubets-apps/shared';

export const clientTourDemo: DemoScenario = {
  async setup({ clientset, step }) {
    step('creating node node-1, pods nginx and redis, and deployment web');
    await clientset
      .coreV1()
      .nodes()
      .create({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1' } },
      });
    await clientset.coreV1().pods('default').create(demoPod('nginx', 'nginx:1.25'));
    await clientset.coreV1().pods('default').create(demoPod('redis', 'redis:7'));
    await clientset.appsV1().deployments('default').create(demoDeployment('web', 'httpd:2.4'));
  },
  // No run(): the tour ends by itself.
};
