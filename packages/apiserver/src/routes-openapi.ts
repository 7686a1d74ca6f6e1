import type { ServerResponse } from 'node:http';
import { sendJson } from './http.js';
import type { Entry } from './object-entry.js';
import { builtinDefinitionsV2, builtinSchemasOf } from './openapi-builtins.js';
import { openApiV2Paths, openApiV3GroupVersion, openApiV3Root } from './openapi-paths.js';
import { OPENAPI_V2_PROTOBUF, openApiV2Protobuf } from './openapi-protobuf.js';
import { isObject, type JsonObject } from './patch.js';
import type { ServerState } from './server-state.js';

/**
 * The schema name kube-apiserver gives a custom resource kind: the group's labels reversed,
 * then version and kind (`test.kubets.v1.Widget` for `kubets.test/v1`).
 */
function schemaName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

/** Every stored CustomResourceDefinition. */
function crds(state: ServerState): Entry[] {
  const definition = state.storage.registry.find(
    'apiextensions.k8s.io',
    'customresourcedefinitions',
  );
  return definition ? [...state.storage.storeOf(definition).entries(undefined)] : [];
}

/**
 * The schemas the CRDs contribute, by name: each served version's `openAPIV3Schema` with the
 * kind's group-version-kind, and `apiVersion`, `kind` and `metadata` described as for any object.
 */
function crdSchemas(state: ServerState, group?: string, version?: string): JsonObject {
  const schemas: JsonObject = {};
  for (const { obj } of crds(state)) {
    const spec = isObject(obj.spec) ? obj.spec : undefined;
    const names = isObject(spec?.names) ? spec.names : undefined;
    if (!spec || !names || typeof spec.group !== 'string' || typeof names.kind !== 'string')
      continue;
    if (group !== undefined && spec.group !== group) continue;
    const shared = isObject(spec.validation) ? spec.validation.openAPIV3Schema : undefined;
    for (const entry of Array.isArray(spec.versions) ? spec.versions.filter(isObject) : []) {
      if (typeof entry.name !== 'string' || entry.served === false) continue;
      if (version !== undefined && entry.name !== version) continue;
      const declared = isObject(entry.schema) ? entry.schema.openAPIV3Schema : shared;
      const schema: JsonObject = isObject(declared)
        ? structuredClone(declared)
        : { type: 'object' };
      const properties = isObject(schema.properties) ? schema.properties : {};
      schema.properties = {
        apiVersion: {
          type: 'string',
          description: 'The versioned schema of this object: group/version.',
        },
        kind: { type: 'string', description: 'The REST resource this object represents.' },
        metadata: { type: 'object', description: 'Standard object metadata.' },
        ...properties,
      };
      schema['x-kubernetes-group-version-kind'] = [
        { group: spec.group, version: entry.name, kind: names.kind },
      ];
      schemas[schemaName(spec.group, entry.name, names.kind)] = schema;
    }
  }
  return schemas;
}

/** Changes with any CRD (its schema may have), so clients refetch cached documents. */
function documentHash(state: ServerState): string {
  let hash = state.storage.registry.groups().length;
  for (const { obj, rv } of crds(state)) {
    for (const ch of `${String(isObject(obj.metadata) ? obj.metadata.name : '')}@${rv}`)
      hash = (hash * 31 + ch.charCodeAt(0)) | 0;
  }
  for (const group of ['', ...state.storage.registry.groups()]) {
    for (const v of state.storage.registry.versionsOf(group)) {
      for (const d of state.storage.registry.resourcesOf(group, v))
        for (const ch of `${group}/${v}/${d.resource}`) hash = (hash * 31 + ch.charCodeAt(0)) | 0;
    }
  }
  return (hash >>> 0).toString(16).toUpperCase().padStart(8, '0');
}

/**
 * `/openapi/v2` and `/openapi/v3` (root and per group-version): the paths of every served
 * resource, the built-in kinds' schemas and the schemas CRDs declare, which is what
 * `kubectl explain` reads. Returns false for other paths.
 */
export function serveOpenApi(
  state: ServerState,
  res: ServerResponse,
  path: string,
  accept: string | undefined,
): boolean {
  const registry = state.storage.registry;
  if (path === '/openapi/v2') {
    const document = {
      swagger: '2.0',
      info: { title: 'Kubernetes', version: 'v1.20.2+kubets' },
      paths: openApiV2Paths(registry),
      definitions: { ...builtinDefinitionsV2(), ...crdSchemas(state) },
    };
    // client-go's OpenAPISchema() (kubectl explain --output=plaintext-openapiv2) asks only
    // for protobuf; kube-apiserver labels it octet-stream (Go cannot parse the '@' type).
    if (accept?.includes(OPENAPI_V2_PROTOBUF)) {
      const body = openApiV2Protobuf(document);
      res.writeHead(200, {
        'Content-Type': 'application/octet-stream',
        Vary: 'Accept',
        'Cache-Control': 'no-cache, private',
        'Content-Length': body.length,
      });
      res.end(body);
    } else sendJson(res, 200, JSON.stringify(document));
    return true;
  }
  if (path === '/openapi/v3') {
    sendJson(res, 200, JSON.stringify(openApiV3Root(registry, documentHash(state))));
    return true;
  }
  if (!path.startsWith('/openapi/v3/')) return false;
  const parts = path.slice('/openapi/v3/'.length).split('/');
  const [group, version] = parts[0] === 'api' ? ['', parts[1]] : [parts[1] ?? '', parts[2]];
  if (version === undefined || !registry.hasGroupVersion(group, version)) return false;
  const document = openApiV3GroupVersion(registry, group, version) as JsonObject;
  document.components = {
    schemas: {
      ...builtinSchemasOf(group, version),
      ...(group === '' ? {} : crdSchemas(state, group, version)),
    },
  };
  sendJson(res, 200, JSON.stringify(document));
  return true;
}
