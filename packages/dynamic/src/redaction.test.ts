// The dynamic client and what it hands out print without the credentials of its config (the
// clientset and informers are checked the same way in @kubets/informers' redaction test).
import type { Config } from '@kubets/rest';
import { printedForms } from '@kubets/testing';
import { describe, expect, it } from 'vitest';
import { DynamicClient, newDynamicSharedInformerFactory } from './index.js';

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

describe('dynamic clients print without credentials', () => {
  it('the client built from a spread config, its resource clients, informers and requests', () => {
    const dynamic = new DynamicClient({ ...config });
    expectNoSecret(dynamic, 'DynamicClient');
    const gvr = { group: 'apps', version: 'v1', resource: 'deployments' };
    const deployments = dynamic.resource(gvr);
    expectNoSecret(deployments, 'resource client');
    expectNoSecret(deployments.namespace('default'), 'namespaced resource client');
    expectNoSecret(dynamic.restClient({ group: 'apps', version: 'v1' }).get(), 'Request');
    expectNoSecret(dynamic, 'DynamicClient with two REST clients');
    const factory = newDynamicSharedInformerFactory(dynamic, 0);
    const informer = factory.forResource(gvr);
    expectNoSecret(factory, 'DynamicSharedInformerFactory');
    expectNoSecret(informer, 'DynamicInformer');
    expectNoSecret(informer.informer(), 'dynamic informer');
    // The copy still carries the credentials requests need.
    expect(dynamic.config.bearerToken).toBe(config.bearerToken);
  });
});
