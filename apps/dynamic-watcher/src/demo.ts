// The scripted demo the dynamic watcher plays on the embedded API server when no cluster is
// configured. It writes through the dynamic client too: two Deployments before the watcher
// starts, then a create, a scale and a delete while it runs, and finally one resync.

import type { GroupVersionResource } from '@kubets/apimachinery';
import { DynamicClient, PatchType, type Unstructured } from '@kubets/dynamic';
import { type Demo, type DemoScenario, demoDeployment } from '@kubets-apps/shared';

/** The resource the demo (and the app, when none is given) watches. */
export const demoResource = 'deployments.v1.apps';

/** The resync period of the demo, short enough to see one. */
export const demoResyncMs = 2_000;

// An unstructured Deployment: plain JSON, as the dynamic client takes it.
const deployment = (name: string, image: string): Unstructured =>
  demoDeployment(name, image) as Unstructured;

export function dynamicWatcherDemo(gvr: GroupVersionResource): DemoScenario {
  const plays = gvr.group === 'apps' && gvr.resource === 'deployments';
  // The watched resource in "default", through a dynamic client of the embedded server.
  const resource = (demo: Demo) =>
    new DynamicClient(demo.config).resource(gvr).namespace('default');
  return {
    async setup(demo) {
      if (!plays) {
        throw new Error(
          `the demo plays with ${demoResource}; point the app at a cluster (--kubeconfig) to watch ${gvr.resource}`,
        );
      }
      demo.step('creating deployments nginx and redis (through the dynamic client)');
      const deployments = resource(demo);
      await deployments.create(deployment('nginx', 'nginx:1.25'));
      await deployments.create(deployment('redis', 'redis:7'));
    },

    async run(demo) {
      const { output, step, waitFor } = demo;
      const deployments = resource(demo);

      // The first list: both are added, then the lister shows them.
      await waitFor('add a deployment: nginx');
      await waitFor('add a deployment: redis');
      await waitFor(/^2 -> /);

      step('creating deployment web');
      let since = output.mark();
      await deployments.create(deployment('web', 'httpd:2.4'));
      await waitFor('add a deployment: web', since);

      step('scaling deployment nginx to 3 replicas');
      since = output.mark();
      await deployments.patch('nginx', PatchType.MergePatch, { spec: { replicas: 3 } });
      await waitFor('update deployment: nginx nginx', since);

      step('deleting deployment redis');
      since = output.mark();
      await deployments.delete('redis');
      await waitFor('delete a deployment: redis', since);

      step(
        `waiting for the ${demoResyncMs / 1000}s resync, which re-delivers every object as an update`,
      );
      since = output.mark();
      // web was never changed: an update for it is the resync.
      await waitFor('update deployment: web web', since);
      await waitFor('update deployment: nginx nginx', since);
    },
  };
}
