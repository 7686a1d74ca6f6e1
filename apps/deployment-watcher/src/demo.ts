// The scripted demo the deployment watcher plays on the embedded API server when no cluster
// is configured: two Deployments before it starts, then a create, a scale and a delete while
// it runs, and finally one resync (every 2 s in the demo instead of 60 s).

import { PatchType } from '@kubets/rest';
import { type DemoScenario, demoDeployment as deployment } from '@kubets-apps/shared';

/** The resync period of the demo, short enough to see one. */
export const demoResyncMs = 2_000;

export const deploymentWatcherDemo: DemoScenario = {
  async setup({ clientset, step }) {
    const deployments = clientset.appsV1().deployments('default');
    step('creating deployments nginx and redis');
    await deployments.create(deployment('nginx', 'nginx:1.25'));
    await deployments.create(deployment('redis', 'redis:7'));
  },

  async run({ clientset, output, step, waitFor }) {
    const deployments = clientset.appsV1().deployments('default');

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
      `waiting for the ${demoResyncMs / 1000}s resync, which re-delivers every deployment as an update`,
    );
    since = output.mark();
    // web was never changed: an update for it is the resync.
    await waitFor('update deployment: web web', since);
    await waitFor('update deployment: nginx nginx', since);
  },
};
