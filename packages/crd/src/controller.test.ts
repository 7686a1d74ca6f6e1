// A declared resource drives @kubets/controller as a defineResource<T>() descriptor does: the
// builder's `for` takes the version's descriptor, the reconciler reads the typed object from
// the cache and writes its status through the typed client, on the in-memory API server.
import { type InMemoryApiServer, startApiServer } from '@kubets/apiserver';
import { controller, Manager } from '@kubets/controller';
import { eventually } from '@kubets/test-utils';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { websiteDeclaration } from '../test/website.js';
import { type CustomObjectOf, defineCustomResource } from './index.js';

const websites = defineCustomResource(websiteDeclaration('sites.example.com'));
type Website = CustomObjectOf<typeof websites.versions.v1>;

let server: InMemoryApiServer;

beforeEach(async () => {
  server = await startApiServer();
});

afterEach(async () => {
  await server.stop();
});

describe('a declared resource with @kubets/controller', () => {
  it('is reconciled by a controller built for its descriptor, which writes its status', async () => {
    const mgr = new Manager({ host: server.host });
    await mgr.clientset.apiextensionsV1().customResourceDefinitions().create(websites.crd);
    const reconciled: string[] = [];
    controller(mgr)
      .for(websites.versions.v1)
      .complete(async ({ namespace, name }, ctx) => {
        const site = ctx.cached();
        expectTypeOf(site).toEqualTypeOf<Website | undefined>();
        if (site === undefined) return;
        reconciled.push(`${namespace}/${name}`);
        const client = mgr.clientset.resource(websites.versions.v1, namespace);
        const replicas = site.spec.replicas ?? 0;
        if (site.status?.replicas === replicas) return;
        await client.updateStatus({ ...site, status: { replicas, url: `https://${name}` } });
      });
    const shutdown = new AbortController();
    const stopped = mgr.start(shutdown.signal);

    const sites = mgr.clientset.resource(websites.versions.v1, 'default');
    await sites.create({ metadata: { name: 'blog' }, spec: { image: 'nginx' } });
    await eventually(async () =>
      expect((await sites.get('blog')).status).toEqual({ replicas: 1, url: 'https://blog' }),
    );
    expect(reconciled).toContain('default/blog');
    shutdown.abort();
    await stopped;
  });
});
