import { expect, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
import { contractCalls } from './contract-helpers.js';

/**
 * The built-in kinds' schemas in `/openapi/v2` (issue 18 item 5), what `kubectl explain` reads:
 * kube-apiserver's definition names, group-version-kinds, references and required fields.
 * The embedded server's schemas come from a newer release, so fields are checked, not counted.
 */

const DEFS = '#/definitions/';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** Served kinds and the name kube-apiserver 1.20 gives their schema. */
const KIND_SCHEMAS: readonly [group: string, version: string, kind: string, name: string][] = [
  ['', 'v1', 'Pod', 'io.k8s.api.core.v1.Pod'],
  ['', 'v1', 'ConfigMap', 'io.k8s.api.core.v1.ConfigMap'],
  ['', 'v1', 'Event', 'io.k8s.api.core.v1.Event'],
  ['apps', 'v1', 'Deployment', 'io.k8s.api.apps.v1.Deployment'],
  ['batch', 'v1', 'Job', 'io.k8s.api.batch.v1.Job'],
  ['coordination.k8s.io', 'v1', 'Lease', 'io.k8s.api.coordination.v1.Lease'],
  ['events.k8s.io', 'v1', 'Event', 'io.k8s.api.events.v1.Event'],
  ['networking.k8s.io', 'v1', 'Ingress', 'io.k8s.api.networking.v1.Ingress'],
  ['rbac.authorization.k8s.io', 'v1', 'Role', 'io.k8s.api.rbac.v1.Role'],
  ['storage.k8s.io', 'v1', 'StorageClass', 'io.k8s.api.storage.v1.StorageClass'],
  [
    'apiextensions.k8s.io',
    'v1',
    'CustomResourceDefinition',
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
  ],
];

/** Registers the tests in the caller's describe block. */
export function defineOpenApiContract(getTarget: () => ContractEndpoint): void {
  const { call } = contractCalls(getTarget);
  const definitions = async (): Promise<Record<string, Record<string, unknown>>> => {
    const res = await call('GET', '/openapi/v2', { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    return res.json.definitions;
  };

  it('names built-in kinds’ schemas as kube-apiserver does, with their group-version-kind', async () => {
    const defs = await definitions();
    for (const [group, version, kind, name] of KIND_SCHEMAS) {
      expect(defs[name]?.['x-kubernetes-group-version-kind'], name).toEqual([
        { group, version, kind },
      ]);
      expect(defs[name]?.type, name).toBe('object');
    }
  });

  it('refers to the types fields hold, and lists required fields', async () => {
    const defs = await definitions();
    const property = (name: string, field: string): unknown =>
      (defs[name]?.properties as Record<string, unknown> | undefined)?.[field];
    expect(property('io.k8s.api.apps.v1.Deployment', 'spec')).toMatchObject({
      $ref: `${DEFS}io.k8s.api.apps.v1.DeploymentSpec`,
    });
    const spec = 'io.k8s.api.apps.v1.DeploymentSpec';
    expect(defs[spec]?.required).toEqual(['selector', 'template']);
    expect(property(spec, 'template')).toMatchObject({
      $ref: `${DEFS}io.k8s.api.core.v1.PodTemplateSpec`,
    });
    expect(property(spec, 'selector')).toMatchObject({ $ref: `${DEFS}${META}.LabelSelector` });
    expect(property(spec, 'replicas')).toMatchObject({
      type: 'integer',
      format: 'int32',
      description: expect.stringContaining('Number of desired pods.'),
    });
    expect(property('io.k8s.api.core.v1.PodSpec', 'containers')).toMatchObject({
      type: 'array',
      items: { $ref: `${DEFS}io.k8s.api.core.v1.Container` },
    });
    expect(defs['io.k8s.api.core.v1.PodSpec']?.required).toEqual(['containers']);
    expect(property('io.k8s.api.core.v1.ConfigMap', 'data')).toMatchObject({
      type: 'object',
      additionalProperties: { type: 'string' },
    });
    expect(property('io.k8s.api.core.v1.Secret', 'data')).toMatchObject({
      type: 'object',
      additionalProperties: { type: 'string', format: 'byte' },
    });
    expect(property('io.k8s.api.core.v1.ServicePort', 'targetPort')).toMatchObject({
      $ref: `${DEFS}io.k8s.apimachinery.pkg.util.intstr.IntOrString`,
    });
    expect(defs['io.k8s.apimachinery.pkg.util.intstr.IntOrString']).toMatchObject({
      type: 'string',
      format: 'int-or-string',
    });
    expect(property(`${META}.ObjectMeta`, 'creationTimestamp')).toMatchObject({
      $ref: `${DEFS}${META}.Time`,
    });
    expect(defs[`${META}.Time`]).toMatchObject({ type: 'string', format: 'date-time' });
    expect(defs['io.k8s.api.core.v1.Pod']?.description).toMatch(
      /^Pod is a collection of containers that can run on a host\./,
    );
  });
}
