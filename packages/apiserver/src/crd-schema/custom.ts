import type { FieldError } from '@kubets/apiextensions';
import { type Schema, validateCustomObject } from '@kubets/apiextensions';
import type { JsonObject } from '../patch.js';
import type { ResourceDefinition } from '../resources.js';
import { badRequest } from '../status.js';
import { coerceEmbeddedResources } from './coerce.js';
import { validateEmbeddedResources } from './embedded.js';
import { validateListTypes } from './list-type.js';
import { pruneAndDefault } from './prune-default.js';

function versionOf(obj: JsonObject): string | undefined {
  return typeof obj.apiVersion === 'string' ? obj.apiVersion.split('/').pop() : undefined;
}

/** The schema of the version a custom resource is written at (its `apiVersion`'s). */
export function customSchema(definition: ResourceDefinition, obj: JsonObject): Schema | undefined {
  const version = versionOf(obj);
  return version === undefined ? undefined : definition.schemas?.[version];
}

/**
 * What kube-apiserver 1.20's decoder does to a custom resource before any check: pruning,
 * dropping nulls, defaulting, and re-encoding embedded resources; a 400 when an embedded
 * resource's apiVersion or kind is not a string.
 */
export function decodeCustomResource(definition: ResourceDefinition, obj: JsonObject): void {
  const schema = customSchema(definition, obj);
  if (!schema) return;
  pruneAndDefault(obj, schema);
  const problem = coerceEmbeddedResources(schema, obj);
  if (problem) {
    const { kind } = definition;
    const version = versionOf(obj) ?? '';
    throw badRequest(
      `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${problem}`,
    );
  }
}

function scalePaths(definition: ResourceDefinition, obj: JsonObject) {
  const version = versionOf(obj);
  return version === undefined ? undefined : definition.scaleReplicaPaths?.[version];
}

/**
 * The causes for a custom resource on create and update, in kube-apiserver 1.20's order: the
 * schema's, the Scale's replicas (spec, then status), the embedded resources', the set and
 * map lists'.
 */
export function validateCustomResource(
  definition: ResourceDefinition,
  obj: JsonObject,
): FieldError[] {
  const schema = customSchema(definition, obj);
  const scale = scalePaths(definition, obj);
  return [
    ...(schema ? validateCustomObject(schema, obj) : []),
    ...(scale ? replicasErrors(obj, scale.spec) : []),
    // With a status subresource, a create drops the status and an update keeps the old one.
    ...(scale?.status && !definition.status ? replicasErrors(obj, scale.status) : []),
    ...(schema ? validateEmbeddedResources(schema, obj) : []),
    ...(schema ? validateListTypes(schema, obj) : []),
  ];
}

/**
 * The causes for a write to a custom resource's `/status`: kube-apiserver 1.20 validates the
 * whole object against the schema (not its embedded resources or lists), then the Scale's
 * status replicas.
 */
export function validateCustomStatus(
  definition: ResourceDefinition,
  obj: JsonObject,
): FieldError[] {
  const schema = customSchema(definition, obj);
  const statusPath = scalePaths(definition, obj)?.status;
  return [
    ...(schema ? validateCustomObject(schema, obj) : []),
    ...(statusPath ? replicasErrors(obj, statusPath) : []),
  ];
}

/** A Scale path's replica count must be a non-negative int32 (the field keeps its leading dot). */
function replicasErrors(obj: JsonObject, path: string): FieldError[] {
  let value: unknown = obj;
  for (const step of path.split('.').filter((s) => s !== '')) {
    value = typeof value === 'object' && value !== null ? (value as JsonObject)[step] : undefined;
  }
  if (typeof value !== 'number') return [];
  const problem =
    value < 0
      ? 'should be a non-negative integer'
      : value > 2147483647
        ? 'should be less than or equal to 2147483647'
        : undefined;
  return problem
    ? [{ reason: 'FieldValueInvalid', message: `Invalid value: ${value}: ${problem}`, field: path }]
    : [];
}
