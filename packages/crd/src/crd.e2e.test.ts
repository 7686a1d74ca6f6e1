// Issue 33's proof against a real kube-apiserver 1.20 (envtest): a CRD declared in TypeScript
// is accepted and read back as written (after the server's defaulting), its typed client
// round-trips an object with defaults and a list-map, and each declaration the checker refuses
// is refused by kube-apiserver with the same message and causes.
import { isInvalid, isStatusError, type ObjectMeta } from '@kubets/apimachinery';
import { Clientset, defineResource } from '@kubets/clientset';
import { newSharedInformerFactory } from '@kubets/informers';
import { loadConfig } from '@kubets/rest';
import { createTestNamespace, eventually, useEnvtest } from '@kubets/test-utils';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { violations, websiteDeclaration } from '../test/website.js';
import {
  type CustomObjectOf,
  CustomResourceDefinitionError,
  defineCustomResource,
} from './index.js';

let clientset: Clientset;

useEnvtest(({ kubeconfigPath: kubeconfig }) => {
  clientset = new Clientset({ ...loadConfig({ kubeconfig }), qps: 50, burst: 100 });
});

const crds = () => clientset.apiextensionsV1().customResourceDefinitions();

/** Waits until the CRD named `name` is Established (served). */
async function established(name: string): Promise<void> {
  await eventually(
    async () => {
      const crd = await crds().get(name);
      return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    },
    { what: `${name} to be established`, intervalMs: 100 },
  );
}

/** The refusal `defineCustomResource` throws for `declaration`. */
function refusal(declaration: Parameters<typeof defineCustomResource>[0]) {
  try {
    defineCustomResource(declaration);
  } catch (err) {
    if (err instanceof CustomResourceDefinitionError) return err;
    throw err;
  }
  throw new Error('the declaration was accepted');
}

describe('a CRD declared in TypeScript, on kube-apiserver 1.20', () => {
  const websites = defineCustomResource(websiteDeclaration('sites.e2e.kubets.dev'));
  type Website = CustomObjectOf<typeof websites.versions.v1>;

  it('is accepted and read back equal to what was written', async () => {
    await crds().create(websites.crd);
    await established('websites.sites.e2e.kubets.dev');
    const read = await crds().get('websites.sites.e2e.kubets.dev');
    expect(read.spec).toEqual(websites.crd.spec);
    expect(read.status?.acceptedNames).toEqual(websites.crd.spec.names);
  });

  it('gives a typed client that round-trips an object with defaults and a list-map', async () => {
    const namespace = await createTestNamespace(clientset.coreV1().namespaces(), 'crd');
    const client = clientset.resource(websites.versions.v1, namespace);
    const site: Website = {
      metadata: { name: 'blog' },
      spec: {
        image: 'nginx:1.27',
        ports: [
          { name: 'http', port: 80 },
          { name: 'https', port: 443, protocol: 'TCP' },
        ],
        maxSurge: '25%',
        hosts: ['blog.example.com'],
        labels: { team: 'web' },
        config: { cache: { ttl: 60 } },
        owner: null,
      },
    };
    // Served a moment after Established: retry a NotFound until the route is there.
    let created: Website | undefined;
    await eventually(async () => {
      created = await client.create(site);
    });
    const expected = {
      image: 'nginx:1.27',
      replicas: 1,
      tier: 'free',
      ports: [
        { name: 'http', port: 80, protocol: 'TCP' },
        { name: 'https', port: 443, protocol: 'TCP' },
      ],
      maxSurge: '25%',
      hosts: ['blog.example.com'],
      labels: { team: 'web' },
      config: { cache: { ttl: 60 } },
      owner: null,
    };
    expect(created?.spec).toEqual(expected);
    const read = await client.get('blog');
    expect(read.spec).toEqual(expected);

    // The status and scale subresources are served.
    read.status = { replicas: 1, url: 'https://blog.example.com' };
    const withStatus = await client.updateStatus(read);
    expect(withStatus.status).toEqual({ replicas: 1, url: 'https://blog.example.com' });
    const scale = await client.getScale('blog');
    expect(scale.spec?.replicas).toBe(1);

    // The list-map's key is a key: a second "http" entry is refused.
    const duplicate = {
      ...withStatus,
      spec: { ...withStatus.spec, ports: [...(withStatus.spec.ports ?? [])] },
    };
    duplicate.spec.ports.push({ name: 'http', port: 8080 });
    const err = await client.update(duplicate).catch((e: unknown) => e);
    expect(isInvalid(err), String(err)).toBe(true);
    expect(isStatusError(err) && err.message).toMatch(
      /spec\.ports\[2\]: Duplicate value: map\[string\]interface \{\}\{"name":"http"\}/,
    );

    // An informer and lister from the same descriptor see it.
    const factory = newSharedInformerFactory(clientset, { defaultResyncMs: 0, namespace });
    const lister = factory.forResource(websites.versions.v1).lister();
    const stopper = new AbortController();
    factory.start(stopper.signal);
    await factory.waitForCacheSync(stopper.signal);
    expect(lister.byNamespace(namespace).get('blog').spec.ports).toEqual(expected.ports);
    stopper.abort();
    await factory.shutdown();
  });

  describe('a declaration the checker refuses is refused by kube-apiserver with the same message', () => {
    const group = 'refused.e2e.kubets.dev';
    for (const [rule, declaration] of Object.entries(violations(group))) {
      it(rule, async () => {
        const refused = refusal(declaration);
        const err = await crds()
          .create(refused.crd)
          .catch((e: unknown) => e);
        expect(isInvalid(err), String(err)).toBe(true);
        if (!isStatusError(err)) throw err;
        expect(err.message).toBe(refused.message);
        expect(err.status.details?.causes).toEqual(refused.causes);
      });
    }
  });

  it('an unknown format is accepted by kube-apiserver and never checked: kubets refuses it', async () => {
    const declaration = {
      group: 'formats.e2e.kubets.dev',
      kind: 'Address',
      scope: 'Namespaced',
      versions: {
        v1: { spec: Type.Object({ ip: Type.String({ format: 'ipv4-address' }) }) },
      },
    } as const;
    const refused = refusal(declaration);
    expect(refused.causes.map((c) => c.field)).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[ip].format',
    ]);
    await crds().create(refused.crd);
    await established('addresses.formats.e2e.kubets.dev');
    const namespace = await createTestNamespace(clientset.coreV1().namespaces(), 'format');
    interface Address {
      metadata?: ObjectMeta;
      spec?: { ip?: string };
    }
    const addresses = clientset.resource(
      defineResource<Address>({
        group: 'formats.e2e.kubets.dev',
        version: 'v1',
        resource: 'addresses',
        kind: 'Address',
        namespaced: true,
      }),
      namespace,
    );
    let created: Address | undefined;
    await eventually(async () => {
      created = await addresses.create({ metadata: { name: 'a' }, spec: { ip: 'not an address' } });
    });
    expect(created?.spec?.ip).toBe('not an address');
  });
});
