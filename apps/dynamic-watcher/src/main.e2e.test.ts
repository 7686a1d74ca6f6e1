// The dynamic watcher against envtest's real kube-apiserver, driven with kubectl: first
// Deployments (`deployments.v1.apps`, the seed's example), then a custom resource whose CRD
// is created at test time — the dynamic factory needs no generated types for it.

import { type Envtest, startEnvtest } from '@kubets/envtest';
import { widgetCrd } from '@kubets/test-utils';
import { demoDeployment } from '@kubets-apps/shared';
import { type AppProcess, klogLine, kubectl, startApp } from '@kubets-apps/shared/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const appDir = new URL('..', import.meta.url);
const deployment = (name: string): string => JSON.stringify(demoDeployment(name, 'nginx:1.25'));

const crd = JSON.stringify(widgetCrd);

const widget = (name: string, size: number): string =>
  JSON.stringify({
    apiVersion: 'e2e.kubets.dev/v1',
    kind: 'Widget',
    metadata: { name, namespace: 'default' },
    spec: { size },
  });

describe('dynamic-watcher against a real kube-apiserver', () => {
  let env: Envtest;
  let app: AppProcess | undefined;

  beforeAll(async () => {
    env = await startEnvtest();
  });

  afterEach(async () => {
    await app?.stop('SIGKILL');
  });

  afterAll(async () => {
    await env?.stop();
  });

  it('watches deployments.v1.apps: adds, lister, kubectl changes, resync, SIGTERM', async () => {
    await kubectl(env.kubeconfigPath, ['apply', '-f', '-'], deployment('one'));

    app = startApp(appDir, [
      '--kubeconfig',
      env.kubeconfigPath,
      '--resync',
      '2s',
      'deployments.v1.apps',
    ]);
    const out = app.output;

    await app.waitFor(/^add a deployment: one$/);
    await app.waitFor(/^1 -> one$/);
    expect(out.count(/^\d+ -> /)).toBe(1);

    let since = out.mark();
    await kubectl(env.kubeconfigPath, ['apply', '-f', '-'], deployment('two'));
    await app.waitFor(/^add a deployment: two$/, { since });

    since = out.mark();
    await kubectl(env.kubeconfigPath, ['scale', 'deployment', 'one', '--replicas=2']);
    await app.waitFor(/^update deployment: one one$/, { since });

    since = out.mark();
    await kubectl(env.kubeconfigPath, ['delete', 'deployment', 'one']);
    await app.waitFor(/^delete a deployment: one$/, { since });

    // two was never changed: its update is the resync.
    since = out.mark();
    await app.waitFor(/^update deployment: two two$/, { since });

    since = out.mark();
    expect(await app.stop('SIGTERM')).toBe(0);
    expect(out.count(klogLine('main.ts', 'Stopping dynamic watcher'), since)).toBe(1);
  });

  it('watches a custom resource (a CRD made at test time) with no generated types', async () => {
    await kubectl(env.kubeconfigPath, ['apply', '-f', '-'], crd);
    await kubectl(env.kubeconfigPath, [
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      'crd/widgets.e2e.kubets.dev',
    ]);
    await kubectl(env.kubeconfigPath, ['apply', '-f', '-'], widget('w1', 1));

    app = startApp(appDir, ['--kubeconfig', env.kubeconfigPath, 'widgets.v1.e2e.kubets.dev']);
    const out = app.output;

    await app.waitFor(/^add a widget: w1$/);
    await app.waitFor(/^1 -> w1$/);

    let since = out.mark();
    await kubectl(env.kubeconfigPath, ['apply', '-f', '-'], widget('w1', 2));
    await app.waitFor(/^update widget: w1 w1$/, { since });

    since = out.mark();
    await kubectl(env.kubeconfigPath, ['delete', 'widget', 'w1']);
    await app.waitFor(/^delete a widget: w1$/, { since });

    expect(await app.stop('SIGTERM')).toBe(0);
  });
});
