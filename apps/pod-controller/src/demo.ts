// The scripted demo the Pod controller plays on the embedded API server when no cluster is
// configured: a few Pods before it starts (one of them failing to sync), then an update, a
// create and a delete while it runs, each step waiting for the controller's answer.

import { PatchType } from '@kubets/rest';
import { type DemoScenario, demoPod as pod } from '@kubets-apps/shared';

/** The Pod whose sync fails in the demo (unless `--fail-pod` names another). */
export const demoFailPod = 'broken';

export const podControllerDemo: DemoScenario = {
  async setup({ clientset, step }) {
    const pods = clientset.coreV1().pods('default');
    step(`creating pods nginx, redis and ${demoFailPod} (whose sync fails)`);
    await pods.create(pod('nginx', 'nginx:1.25'));
    await pods.create(pod('redis', 'redis:7'));
    await pods.create(pod(demoFailPod, 'busybox:1.36'));
  },

  async run({ clientset, output, step, waitFor }) {
    const pods = clientset.coreV1().pods('default');

    // After the first list: the warmed-up "mypod" is gone, the others are synced, and the
    // failing one is retried 5 times, then dropped.
    await waitFor('Pod default/mypod does not exist anymore');
    await waitFor('Sync/Add/Update for Pod nginx');
    await waitFor('Sync/Add/Update for Pod redis');
    await waitFor(`Dropping pod "default/${demoFailPod}" out of the queue`);

    step('labelling pod nginx tier=frontend');
    let since = output.mark();
    await pods.patch('nginx', PatchType.MergePatch, { metadata: { labels: { tier: 'frontend' } } });
    await waitFor('Sync/Add/Update for Pod nginx', since);

    step('creating pod web');
    since = output.mark();
    await pods.create(pod('web', 'httpd:2.4'));
    await waitFor('Sync/Add/Update for Pod web', since);

    step('deleting pod redis');
    since = output.mark();
    await pods.delete('redis');
    await waitFor('Pod default/redis does not exist anymore', since);
  },
};
