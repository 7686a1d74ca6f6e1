// Type tests: `clientset.resource(descriptor)` gives the client the descriptor allows. The
// `expectTypeOf` and `@ts-expect-error` lines are checked by `pnpm typecheck` (tsc over the
// tests); the runtime assertions check that what the types allow is what the client does.
import type { ObjectList } from '@kubets/apimachinery';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { ConfigMap, Namespace, Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AllNamespacesClient } from './client-for.js';
import { Clientset } from './clientset.js';
import { defineResource } from './descriptor.js';
import { appsV1Resources } from './generated/apps-v1.js';
import { coreV1Resources } from './generated/core-v1.js';
import type {
  ScalableResourceClient,
  StatusResourceClient,
  TypedResourceClient,
} from './typed-client.js';

interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  spec?: { size: number };
}
type Widgets = ObjectList<Widget>;
const base = { group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget' };

const plain = defineResource<Widget, Widgets, true, never>({ ...base, namespaced: true });
const withStatus = defineResource<Widget, Widgets, true, 'status'>({
  ...base,
  namespaced: true,
  subresources: ['status'],
});
const scalable = defineResource<Widget, Widgets, true, 'status' | 'scale'>({
  ...base,
  namespaced: true,
  subresources: ['status', 'scale'],
});
const clusterScoped = defineResource<Widget, Widgets, false, never>({ ...base, namespaced: false });
// Only the object type given: scope and subresources are unknown to the types.
const untyped = defineResource<Widget>({ ...base, namespaced: true });

const clientset = new Clientset({ host: 'http://127.0.0.1:1', qps: -1 });

describe('clientset.resource(descriptor) follows the descriptor', async () => {
  it('has status and scale methods only where the descriptor declares them', async () => {
    expectTypeOf(clientset.resource(plain, 'ns')).toEqualTypeOf<
      TypedResourceClient<Widget, Widgets>
    >();
    expectTypeOf(clientset.resource(withStatus, 'ns')).toEqualTypeOf<
      StatusResourceClient<Widget, Widgets>
    >();
    expectTypeOf(clientset.resource(scalable, 'ns')).toEqualTypeOf<
      ScalableResourceClient<Widget, Widgets>
    >();
    // @ts-expect-error no status subresource declared
    await expect(clientset.resource(plain, 'ns').updateStatus({})).rejects.toThrow(/no status/);
    // @ts-expect-error no scale subresource declared
    await expect(clientset.resource(withStatus, 'ns').getScale('a')).rejects.toThrow(/no scale/);
  });

  it('leaves out the calls that need a namespace when a namespaced resource has none', async () => {
    const everywhere = clientset.resource(withStatus);
    expectTypeOf(everywhere).toEqualTypeOf<
      AllNamespacesClient<StatusResourceClient<Widget, Widgets>>
    >();
    expectTypeOf(everywhere).toHaveProperty('list');
    expectTypeOf(everywhere).toHaveProperty('watch');
    expectTypeOf(everywhere).toHaveProperty('create');
    // @ts-expect-error get needs the client's namespace
    await expect(everywhere.get('a')).rejects.toThrow(/needs a namespace/);
    // @ts-expect-error delete needs the client's namespace
    await expect(everywhere.delete('a')).rejects.toThrow(/needs a namespace/);
  });

  it('gives a cluster-scoped resource every call without a namespace, and refuses one', async () => {
    expectTypeOf(clientset.resource(clusterScoped)).toEqualTypeOf<
      TypedResourceClient<Widget, Widgets>
    >();
    // @ts-expect-error a cluster-scoped client takes no namespace
    expect(() => clientset.resource(clusterScoped, 'ns')).toThrow(/cluster-scoped/);
  });

  it('keeps every method, checked at run time, when the descriptor type is not literal', async () => {
    expectTypeOf(clientset.resource(untyped, 'ns')).toEqualTypeOf<
      ScalableResourceClient<Widget, Widgets>
    >();
    const maybeNamespace: string | undefined = undefined;
    expectTypeOf(clientset.resource(withStatus, maybeNamespace)).toEqualTypeOf<
      StatusResourceClient<Widget, Widgets>
    >();
    await expect(clientset.resource(untyped, 'ns').updateStatus({})).rejects.toThrow(/no status/);
  });

  it('follows the generated built-in descriptors', async () => {
    expectTypeOf(clientset.resource(coreV1Resources.configMaps, 'ns')).toMatchTypeOf<
      TypedResourceClient<ConfigMap>
    >();
    expectTypeOf(clientset.resource(coreV1Resources.pods, 'ns')).toMatchTypeOf<
      StatusResourceClient<Pod>
    >();
    expectTypeOf(clientset.resource(appsV1Resources.deployments, 'ns')).toMatchTypeOf<
      ScalableResourceClient<Deployment>
    >();
    expectTypeOf(clientset.resource(coreV1Resources.namespaces)).toMatchTypeOf<
      StatusResourceClient<Namespace>
    >();
    const configMaps = clientset.resource(coreV1Resources.configMaps, 'ns');
    // @ts-expect-error config maps have no status subresource
    const statusOfA: Promise<unknown> = configMaps.getStatus('a');
    await expect(statusOfA).rejects.toThrow(/no status/);
  });
});
