import type { JsonObject } from '../patch.js';
import type { ResourceDefinition } from '../resources.js';
import type { FieldError } from '../validation/names.js';
import type { Schema } from './schema.js';
import { validateCustomObject } from './validate.js';

/** The schema of the version a custom resource is written at (its `apiVersion`'s). */
export function customSchema(definition: ResourceDefinition, obj: JsonObject): Schema | undefined {
  const version = typeof obj.apiVersion === 'string' ? obj.apiVersion.split('/').pop() : undefined;
  return version === undefined ? undefined : definition.schemas?.[version];
}

/** The schema causes for a custom resource (none when its version has no schema). */
export function validateCustomResource(
  definition: ResourceDefinition,
  obj: JsonObject,
): FieldError[] {
  const schema = customSchema(definition, obj);
  return schema ? validateCustomObject(schema, obj) : [];
}
