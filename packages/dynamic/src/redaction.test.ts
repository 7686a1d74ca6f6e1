// The dynamic client and what it hands out print without the credentials of its config (the
// clientset and informers are checked the same way in @kubets/informers' redaction test).
import type { Config } from '@kubets/rest';
import { noSecretAssertion, secretConfig } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { DynamicClient, newDynamicSharedInformerFactory } from './index.js';

const config: Config = secretConfig(); // every kind of credential, never contacted
const expectNoSecret = noSecretAssertion();

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
