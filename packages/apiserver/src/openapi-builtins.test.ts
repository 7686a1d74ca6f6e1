import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinResourceRows, builtinReviewRows } from './generated/builtin-resources.js';
import { builtinDefinitionsV2, toOpenApiV3 } from './openapi-builtins.js';
import { type InMemoryApiServer, startApiServer } from './server.js';

describe('generated/openapi-builtins.json', () => {
  it('has a schema for every served kind', () => {
    const kinds = new Set<string>();
    for (const schema of Object.values(builtinDefinitionsV2())) {
      for (const gvk of (schema['x-kubernetes-group-version-kind'] ?? []) as Record<
        string,
        string
      >[])
        kinds.add(`${gvk.group}/${gvk.version}/${gvk.kind}`);
    }
    expect([...kinds].sort()).toEqual(
      [...builtinResourceRows, ...builtinReviewRows]
        .map((r) => `${r.group}/${r.version}/${r.kind}`)
        .sort(),
    );
  });

  it('names types by the group that defines them, not the kind that holds them', () => {
    const names = Object.keys(builtinDefinitionsV2());
    expect(names).toContain('io.k8s.api.core.v1.PodTemplateSpec');
    expect(names).toContain('io.k8s.api.core.v1.TopologySelectorTerm');
    expect(names).toContain('io.k8s.api.apps.v1.RollingUpdateDeployment');
    expect(names).toContain('io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector');
    expect(names.filter((n) => n.endsWith('.PodTemplateSpec'))).toHaveLength(1);
  });
});

describe('toOpenApiV3', () => {
  it('points references into components and wraps one with a description in allOf', () => {
    expect(
      toOpenApiV3({
        type: 'object',
        properties: {
          spec: { $ref: '#/definitions/io.k8s.api.apps.v1.DeploymentSpec', description: 'D.' },
          items: { type: 'array', items: { $ref: '#/definitions/io.k8s.api.core.v1.Container' } },
        },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        spec: {
          allOf: [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec' }],
          description: 'D.',
        },
        items: {
          type: 'array',
          items: { $ref: '#/components/schemas/io.k8s.api.core.v1.Container' },
        },
      },
    });
  });
});

describe('/openapi/v3 of a group-version', () => {
  let server: InMemoryApiServer;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterAll(() => server.stop());

  const schemasOf = async (path: string): Promise<Record<string, Record<string, unknown>>> => {
    const res = await fetch(`${server.host}${path}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { components: { schemas: Record<string, never> } }).components
      .schemas;
  };

  it('holds its kinds’ schemas and every type they reach, and no other group’s kinds', async () => {
    const apps = await schemasOf('/openapi/v3/apis/apps/v1');
    expect(apps['io.k8s.api.apps.v1.Deployment']?.['x-kubernetes-group-version-kind']).toEqual([
      { group: 'apps', version: 'v1', kind: 'Deployment' },
    ]);
    expect(apps['io.k8s.api.core.v1.Container']).toBeDefined();
    expect(apps['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).toBeDefined();
    expect(apps['io.k8s.api.batch.v1.Job']).toBeUndefined();
    expect(apps['io.k8s.api.core.v1.Pod']).toBeUndefined();
    const core = await schemasOf('/openapi/v3/api/v1');
    expect(core['io.k8s.api.core.v1.Pod']?.['x-kubernetes-group-version-kind']).toEqual([
      { group: '', version: 'v1', kind: 'Pod' },
    ]);
    expect(core['io.k8s.api.apps.v1.Deployment']).toBeUndefined();
  });
});
