// Every client object a program may log — the clientset, each group client, each resource
// client, REST clients, requests, informer factories and running informers — prints without
// the credentials it was built with. This package sees the most client types (rest,
// clientset, cache, informers); discovery, dynamic, leaderelection and record check their
// own objects the same way with `printedForms` from @kubets/test-utils.

import { type InMemoryApiServer, startApiServer } from '@kubets/apiserver';
import { listWatchFromClient, newSharedIndexInformer, waitForCacheSync } from '@kubets/cache';
import {
  Clientset,
  coreV1Resources,
  GeneratedClientset,
  type GroupVersionClient,
} from '@kubets/clientset';
import { type Config, copyConfig, RESTClient, restClientFor, TokenFile } from '@kubets/rest';
import {
  secretConfig as baseSecretConfig,
  noSecretAssertion,
  printedForms,
  secrets,
} from '@kubets/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import {
  GeneratedInformerFactory,
  type GroupVersionInformers,
  newSharedInformerFactory,
} from './index.js';

const { token, password, urlPassword } = secrets;
const keyData = `-----BEGIN PRIVATE KEY-----\n${secrets.keyData}\n-----END PRIVATE KEY-----\n`;
// Also caught: any of them base64-encoded (a Basic Authorization header).
const basic = Buffer.from(`admin:${password}`).toString('base64');

// A config holding every kind of credential; never contacted, so the key need not be real.
function secretConfig(): Config {
  return {
    ...baseSecretConfig(),
    tls: { certData: 'CERT', keyData },
    impersonate: { user: 'someone' },
  };
}

const expectNoSecret = noSecretAssertion([basic]);

// The accessor methods a class declares (group clients of a clientset, resource clients of
// a group client, ...), found on its prototype so the walk covers generated code as it grows.
function methodNames(prototype: object): string[] {
  return Object.getOwnPropertyNames(prototype).filter(
    (name) =>
      name !== 'constructor' &&
      typeof Object.getOwnPropertyDescriptor(prototype, name)?.value === 'function',
  );
}

function groupClients(clientset: Clientset): [string, GroupVersionClient][] {
  return methodNames(GeneratedClientset.prototype).map((name) => [
    name,
    (clientset as unknown as Record<string, () => GroupVersionClient>)[name]?.call(
      clientset,
    ) as GroupVersionClient,
  ]);
}

describe('client objects print without credentials', () => {
  let server: InMemoryApiServer | undefined;
  let controller = new AbortController();

  afterEach(async () => {
    controller.abort();
    controller = new AbortController();
    await server?.stop();
    server = undefined;
  });

  it('a clientset, every group client and every resource client, REST clients and requests', () => {
    const clientset = new Clientset(secretConfig());
    expectNoSecret(clientset, 'Clientset before any group client');
    expectNoSecret(clientset.config, 'Clientset.config');
    const groups = groupClients(clientset);
    expect(groups.length).toBeGreaterThan(20);
    let resourceClients = 0;
    for (const [groupName, group] of groups) {
      expectNoSecret(group, groupName);
      for (const name of methodNames(Object.getPrototypeOf(group))) {
        const accessor = (group as unknown as Record<string, (ns?: string) => unknown>)[name];
        const clusterWide = accessor?.call(group) as { descriptor: { namespaced: boolean } };
        expectNoSecret(clusterWide, `${groupName}().${name}()`);
        if (clusterWide.descriptor.namespaced) {
          expectNoSecret(accessor?.call(group, 'default'), `${groupName}().${name}('default')`);
        }
        resourceClients++;
      }
    }
    expect(resourceClients).toBeGreaterThan(50);
    // The clientset now caches a REST client per group: print it fully populated too.
    expectNoSecret(clientset, 'Clientset with every group client');
    expectNoSecret(
      clientset.resource(coreV1Resources.configMaps, 'default'),
      'Clientset.resource()',
    );

    const rest = new RESTClient(secretConfig(), { groupVersion: 'v1' });
    expectNoSecret(rest, 'RESTClient');
    expectNoSecret(rest.config, 'RESTClient.config of a hand-written config');
    expectNoSecret(
      restClientFor(secretConfig(), { group: 'apps', version: 'v1' }),
      'restClientFor',
    );
    const request = rest
      .post()
      .namespace('default')
      .resource('secrets')
      .setHeader('Authorization', `Bearer ${token}`)
      .body({ stringData: { password } });
    expectNoSecret(request, 'Request');
    expectNoSecret(clientset.coreV1().restClient.get().resource('pods'), 'Request of a clientset');
    expect(printedForms(request).map((form) => form.text)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('xxxxx@127.0.0.1:6443/api/v1/namespaces/default/secrets'),
      ]),
    );

    expectNoSecret(copyConfig(secretConfig()), 'copyConfig');
    expectNoSecret(new TokenFile('/nonexistent/token'), 'TokenFile');
  });

  // Issue 37: `{ ...config, qps: -1 }` is what users write; the copies and everything built
  // from them keep the secrets out of sight.
  it.each<[string, (sealed: Config) => Config]>([
    ['spread', (sealed) => ({ ...sealed, qps: -1 })],
    ['Object.assign', (sealed) => Object.assign({}, sealed, { qps: -1 })],
    ['structuredClone', (sealed) => structuredClone(sealed)],
    ['JSON round trip', (sealed) => JSON.parse(JSON.stringify(sealed)) as Config],
  ])(
    'a %s copy of a sealed config, and a clientset and informer factory holding one',
    (_, copy) => {
      const config = copy(copyConfig(secretConfig()));
      expectNoSecret(config, 'the copy');
      const clientset = new Clientset(config);
      expectNoSecret(clientset, 'Clientset of the copy');
      expectNoSecret({ ...clientset }, 'a spread Clientset');
      const factory = newSharedInformerFactory(clientset, { defaultResyncMs: 0 });
      factory.coreV1().configMaps().informer();
      expectNoSecret(factory, 'SharedInformerFactory of the copy');
      expectNoSecret({ ...factory }, 'a spread SharedInformerFactory');
    },
  );

  it('informer factories and running informers, watches open', async () => {
    server = await startApiServer();
    const live: Config = {
      // Plain http (the in-memory server): no client key here, the other secrets all sent.
      host: server.host.replace('http://', `http://admin:${urlPassword}@`),
      bearerToken: token,
      username: 'admin',
      password,
      qps: -1,
    };
    const clientset = new Clientset(live);
    await clientset
      .coreV1()
      .configMaps('default')
      .create({ metadata: { name: 'cm' } });

    const factory = newSharedInformerFactory(clientset, { defaultResyncMs: 0 });
    for (const name of methodNames(GeneratedInformerFactory.prototype)) {
      const group = (factory as unknown as Record<string, () => GroupVersionInformers>)[name]?.call(
        factory,
      );
      expectNoSecret(group, `factory.${name}()`);
    }
    const configMaps = factory.coreV1().configMaps();
    configMaps.informer();
    factory.start(controller.signal);
    await factory.waitForCacheSync(controller.signal);
    expect(configMaps.lister().list()).toHaveLength(1);
    expectNoSecret(factory, 'running SharedInformerFactory');
    expectNoSecret(configMaps.informer(), 'running informer');

    // A cache informer over a REST client, without a factory.
    const informer = newSharedIndexInformer(
      listWatchFromClient(clientset.coreV1().restClient, 'configmaps', 'default'),
      'ConfigMap',
    );
    void informer.run(controller.signal);
    expect(await waitForCacheSync(controller.signal, () => informer.hasSynced())).toBe(true);
    expectNoSecret(informer, 'running cache informer');
    const watch = await clientset.coreV1().configMaps('default').watch({});
    expectNoSecret(watch, 'WatchStream');
    watch.stop();
  });
});
