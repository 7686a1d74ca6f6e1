import type { JsonObject } from './patch.js';
import type { ResourceRegistry } from './resources.js';

/**
 * The OpenAPI v3 root (`/openapi/v3`): one entry per served group-version. Clients such as
 * kubectl read it to learn whether the server validates fields itself.
 */
export function openApiV3Root(registry: ResourceRegistry, hash: string): object {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  const add = (group: string, version: string): void => {
    const key = group === '' ? `api/${version}` : `apis/${group}/${version}`;
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  };
  for (const version of registry.versionsOf('')) add('', version);
  for (const group of registry.groups()) {
    for (const version of registry.versionsOf(group)) add(group, version);
  }
  return { paths };
}

/**
 * A minimal OpenAPI v3 document of one group-version: for each resource, the PATCH operation
 * with its group-version-kind and the `fieldValidation` query parameter (no schemas).
 */
export function openApiV3GroupVersion(
  registry: ResourceRegistry,
  group: string,
  version: string,
): object {
  const prefix = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  const paths: Record<string, object> = {};
  for (const d of registry.resourcesOf(group, version)) {
    const path = d.namespaced
      ? `${prefix}/namespaces/{namespace}/${d.resource}/{name}`
      : `${prefix}/${d.resource}/{name}`;
    const gvk = { group, version, kind: d.kind };
    const parameters = ['dryRun', 'fieldManager', 'fieldValidation', 'force'].map((name) => ({
      name,
      in: 'query',
      schema: { type: name === 'force' ? 'boolean' : 'string' },
    }));
    const content = Object.fromEntries(
      [
        'application/apply-patch+yaml',
        'application/json-patch+json',
        'application/merge-patch+json',
      ]
        .map((type) => ({ type }))
        .map(({ type }) => [type, { schema: { type: 'object' } }]),
    );
    paths[path] = {
      get: { 'x-kubernetes-group-version-kind': gvk, 'x-kubernetes-action': 'get' },
      put: { 'x-kubernetes-group-version-kind': gvk, 'x-kubernetes-action': 'put', parameters },
      patch: {
        'x-kubernetes-group-version-kind': gvk,
        'x-kubernetes-action': 'patch',
        parameters,
        requestBody: { content },
      },
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.20.2+kubets' },
    paths,
    components: { schemas: {} },
  };
}

/**
 * The `paths` of `/openapi/v2`: each served resource's PATCH operation with its
 * group-version-kind and query parameters (`dryRun` among them), which kubectl 1.20 reads
 * before a `--dry-run=server` or a `diff` (no responses, no schemas).
 */
export function openApiV2Paths(registry: ResourceRegistry): JsonObject {
  const paths: JsonObject = {};
  const add = (group: string, version: string): void => {
    const prefix = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    for (const d of registry.resourcesOf(group, version)) {
      if (d.createOnly) continue;
      const path = d.namespaced
        ? `${prefix}/namespaces/{namespace}/${d.resource}/{name}`
        : `${prefix}/${d.resource}/{name}`;
      paths[path] = {
        patch: {
          parameters: ['dryRun', 'fieldManager', 'force'].map((name) => ({
            name,
            in: 'query',
            type: name === 'force' ? 'boolean' : 'string',
            uniqueItems: true,
          })),
          'x-kubernetes-action': 'patch',
          'x-kubernetes-group-version-kind': { group, version, kind: d.kind },
        },
      };
    }
  };
  for (const version of registry.versionsOf('')) add('', version);
  for (const group of registry.groups()) {
    for (const version of registry.versionsOf(group)) add(group, version);
  }
  return paths;
}
