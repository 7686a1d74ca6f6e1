// Leader-election objects hold a clientset (or a Lease client) and print without its
// credentials (the clientset itself is walked in @kubets/informers' redaction test).
import { Clientset } from '@kubets/clientset';
import type { Config } from '@kubets/rest';
import { printedForms } from '@kubets/testing';
import { describe, expect, it } from 'vitest';
import { LeaderElector, LeaseLock } from './index.js';

// Every kind of credential; the server is never contacted, so the key need not be real.
const config: Config = {
  host: 'https://admin:SECRET-URLPASS-xyz@127.0.0.1:6443',
  bearerToken: 'SECRET-TOKEN-xyz',
  username: 'admin',
  password: 'SECRET-PASSWORD-xyz',
  tls: { certData: 'CERT', keyData: 'SECRET-KEY-xyz' },
};

function expectNoSecret(value: unknown, what: string): void {
  for (const { how, text } of printedForms(value)) {
    expect(text, `${what} (${how})`).not.toMatch(/SECRET[-_]/);
  }
}

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
