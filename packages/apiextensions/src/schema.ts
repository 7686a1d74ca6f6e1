import { isObject, type JsonObject, type JsonValue } from './json.js';

/** An OpenAPI v3 schema node of a CustomResourceDefinition (structural, as 1.20 requires). */
export type Schema = JsonObject;

/** The schema of `properties[key]`, if declared. */
export function propertySchema(schema: Schema, key: string): Schema | undefined {
  const props = isObject(schema.properties) ? schema.properties : undefined;
  const prop = props?.[key];
  return isObject(prop) ? prop : undefined;
}

/** The schema of `additionalProperties`, if it is one (not `true`/`false`). */
export function additionalSchema(schema: Schema): Schema | undefined {
  return isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
}

/** The schema of `items`, if declared. */
export function itemsSchema(schema: Schema): Schema | undefined {
  return isObject(schema.items) ? schema.items : undefined;
}

/**
 * The fields of an object value with the schema each falls under and its field path: a
 * declared property (`path.key`) or an `additionalProperties` entry (`path[key]`).
 */
export function fieldsWithSchemas(
  schema: Schema,
  value: JsonObject,
  path: string,
): Array<[Schema, JsonValue, string]> {
  const additional = additionalSchema(schema);
  const out: Array<[Schema, JsonValue, string]> = [];
  for (const [key, child] of Object.entries(value)) {
    const prop = propertySchema(schema, key);
    if (prop) out.push([prop, child, path ? `${path}.${key}` : key]);
    else if (additional) out.push([additional, child, `${path}[${key}]`]);
  }
  return out;
}

/** `properties` as a list of [name, schema]. */
export function properties(schema: Schema): Array<[string, Schema]> {
  const props = isObject(schema.properties) ? schema.properties : {};
  return Object.entries(props).filter((e): e is [string, Schema] => isObject(e[1]));
}

/** The OpenAPI type name of a JSON value: what "must be of type" messages quote. */
export function jsonType(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

/** Go's `%v` of a value in a message: strings quoted, numbers as they are. */
export function goValue(value: JsonValue): string {
  return typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value);
}
