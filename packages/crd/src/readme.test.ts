// The README's example, run as a test (scripts/readme-examples.mjs checks that README.md
// shows the code between the readme markers) against the in-memory API server of
// @kubets/apiserver, which applies the CRD's schema (defaults, list-map keys) as
// kube-apiserver does; src/crd.e2e.test.ts does the same against a real one.

import { startApiServer } from '@kubets/apiserver';
import { startReadmeHarness } from '@kubets/test-utils';
import { afterAll, expect, it } from 'vitest';

const { logged, stop } = await startReadmeHarness(startApiServer);
afterAll(stop);

// readme:start
import { Clientset } from '@kubets/clientset';
import { newSharedInformerFactory } from '@kubets/informers';
import { loadConfig } from '@kubets/rest';
import Type from 'typebox';
import { type CustomObjectOf, defineCustomResource, intOrString, listMap } from './index.js';

// One declaration: the CRD, the typed descriptor and the object type.
const websites = defineCustomResource({
  group: 'example.com',
  kind: 'Website', // plural "websites", singular "website", list kind "WebsiteList"
  scope: 'Namespaced',
  shortNames: ['ws'],
  versions: {
    v1: {
      spec: Type.Object({
        image: Type.String({ pattern: '^[a-z0-9./:-]+$' }),
        replicas: Type.Optional(Type.Integer({ minimum: 0, default: 1 })),
        tier: Type.Optional(Type.Union([Type.Literal('free'), Type.Literal('pro')])),
        ports: Type.Optional(
          listMap(Type.Object({ name: Type.String(), port: Type.Integer() }), ['name']),
        ),
        maxSurge: Type.Optional(intOrString()),
      }),
      status: Type.Object({ ready: Type.Optional(Type.Integer()) }), // the status subresource
      printerColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
    },
  },
});
type Website = CustomObjectOf<typeof websites.versions.v1>;

const clientset = new Clientset(loadConfig());

// Install the CRD (kubectl apply would do as well: websites.crd is the manifest).
await clientset.apiextensionsV1().customResourceDefinitions().create(websites.crd);

// A typed client, no code generation: create() fills in apiVersion and kind.
const client = clientset.resource(websites.versions.v1, 'default');
const site: Website = {
  metadata: { name: 'blog' },
  spec: { image: 'nginx:1.27', ports: [{ name: 'http', port: 80 }], maxSurge: '25%' },
};
const created = await client.create(site);
console.log(created.spec.replicas); // 1: the schema's default, set by the API server

// An informer and its lister, typed by the same descriptor.
const factory = newSharedInformerFactory(clientset, 0);
const lister = factory.forResource(websites.versions.v1).lister();
const stopper = new AbortController();
factory.start(stopper.signal);
await factory.waitForCacheSync(stopper.signal);
console.log(lister.byNamespace('default').get('blog').spec.image); // nginx:1.27
stopper.abort();
// readme:end

it('runs the README example: the CRD is served, the typed client and lister round-trip', async () => {
  expect(logged).toEqual([[1], ['nginx:1.27']]);
  const read = await client.get('blog');
  expect(read.apiVersion).toBe('example.com/v1');
  expect(read.kind).toBe('Website');
  expect(read.spec).toEqual({
    image: 'nginx:1.27',
    replicas: 1,
    ports: [{ name: 'http', port: 80 }],
    maxSurge: '25%',
  });
  await factory.shutdown();
});
