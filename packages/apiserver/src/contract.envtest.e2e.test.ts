import { setTimeout as sleep } from 'node:timers/promises';
import { type Envtest, startEnvtest } from '@kubets/envtest';
import { afterAll, beforeAll, describe } from 'vitest';
import { type ContractTarget, defineContractSuite } from '../test/contract.js';
import { rawRequest } from '../test/contract-client.js';

/** kube-apiserver compacts etcd every this many seconds in this suite. */
const COMPACTION_INTERVAL_S = 2;

describe('contract: envtest kube-apiserver', () => {
  let env: Envtest;
  let target: ContractTarget;
  beforeAll(async () => {
    env = await startEnvtest({
      apiServerFlags: {
        // Compact often, so continue tokens and exact lists expire within the suite.
        'etcd-compaction-interval': `${COMPACTION_INTERVAL_S}s`,
        // Leases bypass the watch cache, so a watch from a compacted revision reaches etcd
        // and gets 410 (the watch cache would keep serving it from memory).
        'watch-cache-sizes': 'leases.coordination.k8s.io#0',
      },
    });
    const endpoint = {
      host: env.host,
      tls: { ca: env.tls.caData, cert: env.tls.certData, key: env.tls.keyData },
    };
    target = {
      ...endpoint,
      streamingLists: false,
      sendsBookmarks: false,
      namespaceController: false,
      garbageCollector: false,
      // kube-apiserver's own 3 s pass while the read waits.
      elapseReadWait: async () => {},
      compact: async () => {
        // The compactor compacts to the revision it saw one interval earlier: write once so
        // that revision is newer than everything before, then wait two intervals.
        await rawRequest(endpoint, 'POST', '/api/v1/namespaces/default/configmaps', {
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'compact-' } },
        });
        await sleep((2 * COMPACTION_INTERVAL_S + 1) * 1000);
      },
    };
  });
  afterAll(async () => {
    await env?.stop();
  });

  defineContractSuite(() => target);
});
