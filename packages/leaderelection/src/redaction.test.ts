// Leader-election objects hold a clientset (or a Lease client) and print without its
// credentials (the clientset itself is walked in @kubets/informers' redaction test).
import { Clientset } from '@kubets/clientset';
import type { Config } from '@kubets/rest';
import { noSecretAssertion, secretConfig } from '@kubets/test-utils';
import { describe, it } from 'vitest';
import { LeaderElector, LeaseLock } from './index.js';

const config: Config = secretConfig(); // every kind of credential, never contacted
const expectNoSecret = noSecretAssertion();

describe('leader-election objects print without credentials', () => {
  it('a LeaseLock over a clientset and its LeaderElector', () => {
    const clientset = new Clientset({ ...config });
    const lock = new LeaseLock({
      client: clientset,
      namespace: 'default',
      name: 'l',
      identity: 'a',
    });
    expectNoSecret(lock, 'LeaseLock');
    const elector = new LeaderElector({
      lock,
      callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} },
    });
    expectNoSecret(elector, 'LeaderElector');
    const leases = new LeaseLock({
      client: clientset.coordinationV1().leases('default'),
      namespace: 'default',
      name: 'l',
      identity: 'b',
    });
    expectNoSecret(leases, 'LeaseLock over a Lease client');
  });
});
