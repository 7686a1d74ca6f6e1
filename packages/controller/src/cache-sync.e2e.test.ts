// A manager for a custom resource whose CRD is not installed, on a real kube-apiserver:
// every list fails with 404, and start fails after its cache sync timeout with an error
// naming the resource and that list error, instead of retrying forever.
import { loadConfig } from '@kubets/rest';
import { useEnvtest } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { CacheSyncTimeoutError, controller, Manager } from './index.js';

const env = useEnvtest(() => {});

describe('cache sync timeout on kube-apiserver', () => {
  it('a manager whose CRD is missing fails its start, naming the resource and the 404', async () => {
    const config = { ...loadConfig({ kubeconfig: env().kubeconfigPath }), qps: -1 };
    // A short timeout: what is checked is the error, not the two minutes.
    const mgr = new Manager(config, { cacheSyncTimeoutMs: 3_000 });
    const reconciled: string[] = [];
    controller(mgr)
      .for('crddemo.k8s.io/v1/mydemos')
      .complete((request) => {
        reconciled.push(request.name);
      });
    const err = await mgr.start(new AbortController().signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CacheSyncTimeoutError);
    expect((err as CacheSyncTimeoutError).resources).toEqual(['crddemo.k8s.io/v1/mydemos']);
    expect((err as Error).message).toMatch(
      /^failed to wait for caches to sync: timed out after 3s: crddemo\.k8s\.io\/v1\/mydemos \(last list error: the server could not find the requested resource.*\)$/,
    );
    expect(reconciled).toEqual([]);
  });
});
