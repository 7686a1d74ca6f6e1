// The deployment watcher against envtest's real kube-apiserver, driven with kubectl:
// `node src/main.ts --kubeconfig <envtest> --resync 2s`. No controller-manager runs, so
// Deployments just sit there: every update seen is either a kubectl change or the resync.

import { type Envtest, startEnvtest } from '@kubets/envtest';
import { demoDeployment } from '@kubets-apps/shared';
import { type AppProcess, klogLine, kubectl, startApp } from '@kubets-apps/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const appDir = new URL('..', import.meta.url);
const deployment = (name: string): string => JSON.stringify(demoDeployment(name, 'nginx:1.25'));

describe('deployment-watcher against a real kube-apiserver', () => {
  let env: Envtest;
  let app: AppProcess | undefined;

  beforeAll(async () => {
    env = await startEnvtest();
  });

  afterAll(async () => {
    await app?.stop('SIGKILL');
    await env?.stop();
  });

  it('prints adds and the lister, follows kubectl changes, resyncs, and stops on SIGTERM', async () => {
    await kubectl(env.kubeconfigPath, ['apply', '-f', '-'], deployment('one'));
    await kubectl(env.kubeconfigPath, ['apply', '-f', '-'], deployment('two'));
    // Not in "default": seen by the informer, not listed by the lister of "default".
    await kubectl(env.kubeconfigPath, ['create', 'namespace', 'other']);
    await kubectl(
      env.kubeconfigPath,
      ['apply', '-n', 'other', '-f', '-'],
      JSON.stringify({
        ...demoDeployment('elsewhere', 'nginx:1.25'),
        metadata: { name: 'elsewhere', namespace: 'other' },
      }),
    );

    app = startApp(appDir, ['--kubeconfig', env.kubeconfigPath, '--resync', '2s']);
    const out = app.output;

    await app.waitFor(/^add a deployment: one$/);
    await app.waitFor(/^add a deployment: two$/);
    await app.waitFor(/^add a deployment: elsewhere$/);
    await app.waitFor(/^2 -> /);
    const listed = out.matching(/^\d+ -> /);
    expect(listed.map((line) => line.split(' -> ')[0])).toEqual(['1', '2']);
    expect(listed.map((line) => line.split(' -> ')[1]).sort()).toEqual(['one', 'two']);

    let since = out.mark();
    await kubectl(env.kubeconfigPath, ['apply', '-f', '-'], deployment('three'));
    await app.waitFor(/^add a deployment: three$/, { since });

    since = out.mark();
    await kubectl(env.kubeconfigPath, ['scale', 'deployment', 'one', '--replicas=3']);
    await app.waitFor(/^update deployment: one one$/, { since });

    since = out.mark();
    await kubectl(env.kubeconfigPath, ['delete', 'deployment', 'two']);
    await app.waitFor(/^delete a deployment: two$/, { since });

    // The resync: three was never changed, yet it is re-delivered as an update — and so
    // are the others still in the cache, twice over a few periods.
    since = out.mark();
    await app.waitFor(/^update deployment: three three$/, { since });
    await app.waitFor(/^update deployment: elsewhere elsewhere$/, { since });
    const second = out.indexOf(/^update deployment: three three$/, since) + 1;
    await app.waitFor(/^update deployment: three three$/, { since: second });
    expect(out.count(/^update deployment: two two$/, since)).toBe(0);
    expect(out.count(/^delete a deployment: /)).toBe(1);

    since = out.mark();
    expect(await app.stop('SIGTERM')).toBe(0);
    expect(out.count(klogLine('main.ts', 'Stopping deployment watcher'), since)).toBe(1);
  });
});
