/**
 * The CRD checks kube-apiserver 1.20 makes of `apiextensions.k8s.io/v1` schemas: every
 * version needs one, and each must be structural (a `type` at the root and on every
 * specified field and array item, unless int-or-string or preserving unknown fields; known
 * types only; not both `properties` and `additionalProperties`), with defaults of their type.
 * Field paths start at `spec.validation.openAPIV3Schema` when every version has the same
 * schema (1.20 checks it once, in its internal form), else at each version's.
 */
import { isObject, type JsonObject, jsonEqual } from '../patch.js';
import type { FieldError } from '../validation/names.js';
import { properties, type Schema } from './schema.js';
import { validateValue } from './validate.js';

const TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];

function typeRequired(schema: Schema, path: string, where: string): FieldError[] {
  if (typeof schema.type === 'string' && schema.type !== '') return [];
  if (schema['x-kubernetes-int-or-string'] === true) return [];
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) return [];
  return [
    {
      reason: 'FieldValueRequired',
      message: `Required value: must not be empty ${where}`,
      field: `${path}.type`,
    },
  ];
}

function checkNode(schema: Schema, path: string, where: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, prop] of properties(schema).sort(([a], [b]) => a.localeCompare(b))) {
    errors.push(...checkNode(prop, `${path}.properties[${key}]`, 'for specified object fields'));
  }
  if (isObject(schema.items)) {
    errors.push(...checkNode(schema.items, `${path}.items`, 'for specified array items'));
  }
  if (isObject(schema.additionalProperties)) {
    errors.push(
      ...checkNode(
        schema.additionalProperties,
        `${path}.additionalProperties`,
        'for specified additionalProperties',
      ),
    );
  }
  errors.push(...typeRequired(schema, path, where));
  if (typeof schema.type === 'string' && schema.type !== '' && !TYPES.includes(schema.type)) {
    errors.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(schema.type)}: supported values: ${TYPES.map((t) => JSON.stringify(t)).join(', ')}`,
      field: `${path}.type`,
    });
  }
  if (
    schema.properties !== undefined &&
    schema.additionalProperties !== undefined &&
    schema.additionalProperties !== false
  ) {
    errors.push({
      reason: 'FieldValueForbidden',
      message: 'Forbidden: additionalProperties and properties are mutual exclusive',
      field: `${path}.additionalProperties`,
    });
  }
  if (schema.default !== undefined) {
    // The default is validated against its own schema, with an empty field path in the text.
    const { default: value, ...rest } = schema;
    for (const e of validateValue(rest, value, '')) {
      errors.push({ ...e, field: `${path}.default` });
    }
  }
  return errors;
}

/** The causes for a CustomResourceDefinition's schemas, as kube-apiserver 1.20 lists them. */
export function validateCrdSchemas(crd: JsonObject): FieldError[] {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
  const schemaOf = (v: JsonObject): Schema | undefined => {
    const holder = isObject(v.schema) ? v.schema : undefined;
    return holder && isObject(holder.openAPIV3Schema) ? holder.openAPIV3Schema : undefined;
  };
  const errors: FieldError[] = [];
  versions.forEach((v, i) => {
    if (!schemaOf(v)) {
      errors.push({
        reason: 'FieldValueRequired',
        message: 'Required value: schemas are required',
        field: `spec.versions[${i}].schema.openAPIV3Schema`,
      });
    }
  });
  if (errors.length > 0) return errors;
  const schemas = versions.map((v) => schemaOf(v) as Schema);
  const same = schemas.every((s) => jsonEqual(s, schemas[0]));
  const roots = same ? schemas.slice(0, 1) : schemas;
  roots.forEach((schema, i) => {
    const path = same
      ? 'spec.validation.openAPIV3Schema'
      : `spec.versions[${i}].schema.openAPIV3Schema`;
    errors.push(...checkNode(schema, path, 'at the root'));
  });
  return errors;
}
