// One reconcile per change on a real kube-apiserver: 100 updates of a watched ConfigMap and
// 100 updates of a Secret owned by another ConfigMap, each made once the previous one was
// reconciled, cause exactly 100 reconciles each.
import { Clientset } from '@kubets/clientset';
import { type Config, loadConfig } from '@kubets/rest';
import { createTestNamespace, useEnvtest } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { countReconcilesPerUpdate } from '../test/reconciles-per-update.js';

let config: Config;
let namespace: string;

useEnvtest(async ({ kubeconfigPath: kubeconfig }) => {
  config = { ...loadConfig({ kubeconfig }), qps: -1, timeoutMs: 10_000 };
  namespace = await createTestNamespace(new Clientset(config).coreV1().namespaces(), 'once');
});

describe('reconciles per update on kube-apiserver', () => {
  it('100 updates of a watched object: 100 reconciles; 100 updates of an owned object: 100 reconciles of its owner', async () => {
    expect(await countReconcilesPerUpdate(config, namespace, 100)).toEqual({
      watched: 100,
      owner: 100,
    });
  }, 300_000);
});
