// The Pod controller against envtest's real kube-apiserver, driven with kubectl as a user
// would: `node src/main.ts --kubeconfig <envtest> --fail-pod beta`.

import { type Envtest, startEnvtest } from '@kubets/envtest';
import { type AppProcess, klogLine, kubectl, startApp } from '@kubets-apps/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const appDir = new URL('..', import.meta.url);

const pod = (name: string): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app: name } },
    spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] },
  });

describe('pod-controller against a real kube-apiserver', () => {
  let env: Envtest;
  let app: AppProcess | undefined;

  beforeAll(async () => {
    env = await startEnvtest();
  });

  afterAll(async () => {
    await app?.stop('SIGKILL');
    await env?.stop();
  });

  it('syncs, reports mypod gone, retries the failing pod 5 times then drops it, follows kubectl changes, and stops on SIGTERM', async () => {
    // Pods that exist before the controller starts.
    await kubectl(env.kubeconfigPath, ['apply', '-f', '-'], pod('alpha'));
    await kubectl(env.kubeconfigPath, ['apply', '-f', '-'], pod('beta'));

    app = startApp(appDir, ['--kubeconfig', env.kubeconfigPath, '--fail-pod', 'beta']);
    const out = app.output;

    await app.waitFor(klogLine('main.ts', 'Starting Pod controller'));
    await app.waitFor(/^Sync\/Add\/Update for Pod alpha$/);
    // The pod warmed into the cache does not exist on the server: a delete after the sync.
    await app.waitFor(/^Pod default\/mypod does not exist anymore$/);

    // beta fails: 5 retries, then it is dropped.
    const dropLine = await app.waitFor(/Dropping pod "default\/beta" out of the queue: /);
    expect(dropLine).toMatch(
      klogLine(
        'main.ts',
        'Dropping pod "default/beta" out of the queue: sync of pod default/beta failed on purpose \\(--fail-pod beta\\)',
      ),
    );
    const dropped = out.indexOf(dropLine);
    expect(out.count(klogLine('main.ts', 'Error syncing pod default/beta: .*'))).toBe(5);
    expect(out.indexOf(/Error syncing pod default\/beta/, dropped)).toBe(-1);
    expect(out.count(/^Sync\/Add\/Update for Pod beta$/)).toBe(0);
    expect(out.count(/Starting Pod controller/)).toBe(1);

    // kubectl apply: a new pod.
    let since = out.mark();
    await kubectl(env.kubeconfigPath, ['apply', '-f', '-'], pod('gamma'));
    await app.waitFor(/^Sync\/Add\/Update for Pod gamma$/, { since });

    // kubectl label: an update.
    since = out.mark();
    await kubectl(env.kubeconfigPath, ['label', 'pod', 'alpha', 'tier=frontend']);
    await app.waitFor(/^Sync\/Add\/Update for Pod alpha$/, { since });

    // kubectl delete: gone (unscheduled pods are deleted at once, no kubelet needed).
    since = out.mark();
    await kubectl(env.kubeconfigPath, ['delete', 'pod', 'alpha', '--wait=false']);
    await app.waitFor(/^Pod default\/alpha does not exist anymore$/, { since });

    // An update to the failing pod fails again: 5 more retries, then dropped again.
    since = out.mark();
    await kubectl(env.kubeconfigPath, ['label', 'pod', 'beta', 'retry=again']);
    await app.waitFor(/Dropping pod "default\/beta" out of the queue/, { since });
    expect(out.count(/Error syncing pod default\/beta: /, since)).toBe(5);

    // SIGTERM: a clean stop.
    since = out.mark();
    expect(await app.stop('SIGTERM')).toBe(0);
    expect(out.count(klogLine('main.ts', 'Stopping Pod controller'), since)).toBe(1);
  });
});
