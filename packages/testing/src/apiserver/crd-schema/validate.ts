/**
 * Validation of a custom resource against its version's structural schema, with the causes
 * kube-apiserver 1.20 gives: type, required, enum, minimum/maximum (and exclusive), length,
 * pattern, items counts, uniqueness, int-or-string, nullable. kube-apiserver walks properties
 * in Go map order (random), so causes of several fields come in no fixed order.
 */
import { isObject, type JsonValue, jsonEqual } from '../patch.js';
import type { FieldError } from '../validation/names.js';
import {
  additionalSchema,
  goValue,
  itemsSchema,
  jsonType,
  properties,
  type Schema,
} from './schema.js';

const invalid = (field: string, value: string, problem: string): FieldError => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${value}: ${field} in body ${problem}`,
  field,
});

function typeMatches(type: string, value: JsonValue): boolean {
  const actual = jsonType(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

function checkType(schema: Schema, value: JsonValue, path: string): FieldError[] {
  const actual = jsonType(value);
  if (schema['x-kubernetes-int-or-string'] === true) {
    if (actual === 'integer' || actual === 'string') return [];
    return [
      invalid(
        path,
        JSON.stringify(actual),
        `must be of type integer,string: ${JSON.stringify(actual)}`,
      ),
    ];
  }
  if (typeof schema.type !== 'string' || typeMatches(schema.type, value)) return [];
  return [
    invalid(
      path,
      JSON.stringify(actual),
      `must be of type ${schema.type}: ${JSON.stringify(actual)}`,
    ),
  ];
}

function checkNumber(schema: Schema, value: number, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const v = String(value);
  if (typeof schema.maximum === 'number') {
    const exclusive = schema.exclusiveMaximum === true;
    if (exclusive ? value >= schema.maximum : value > schema.maximum) {
      errors.push(
        invalid(path, v, `should be less than ${exclusive ? '' : 'or equal to '}${schema.maximum}`),
      );
    }
  }
  if (typeof schema.minimum === 'number') {
    const exclusive = schema.exclusiveMinimum === true;
    if (exclusive ? value <= schema.minimum : value < schema.minimum) {
      errors.push(
        invalid(
          path,
          v,
          `should be greater than ${exclusive ? '' : 'or equal to '}${schema.minimum}`,
        ),
      );
    }
  }
  if (
    typeof schema.multipleOf === 'number' &&
    schema.multipleOf > 0 &&
    value % schema.multipleOf !== 0
  ) {
    errors.push(invalid(path, v, `should be a multiple of ${schema.multipleOf}`));
  }
  return errors;
}

/** Only the first of maxLength, minLength, pattern that fails is reported (as kube-apiserver does). */
function checkString(schema: Schema, value: string, path: string): FieldError[] {
  const length = [...value].length;
  const v = JSON.stringify(value);
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) {
    return [invalid(path, v, `should be at most ${schema.maxLength} chars long`)];
  }
  if (typeof schema.minLength === 'number' && length < schema.minLength) {
    return [invalid(path, v, `should be at least ${schema.minLength} chars long`)];
  }
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) {
    return [invalid(path, v, `should match '${schema.pattern}'`)];
  }
  return [];
}

function checkArray(schema: Schema, value: JsonValue[], path: string): FieldError[] {
  const errors: FieldError[] = [];
  const n = String(value.length);
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
    errors.push(invalid(path, n, `should have at most ${schema.maxItems} items`));
  }
  if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
    errors.push(invalid(path, n, `should have at least ${schema.minItems} items`));
  }
  if (
    schema.uniqueItems === true &&
    value.some((v, i) => value.findIndex((w) => jsonEqual(v, w)) !== i)
  ) {
    errors.push({
      reason: 'FieldValueDuplicate',
      message: `Duplicate value: ${goValue(value)}`,
      field: path,
    });
  }
  const items = itemsSchema(schema);
  if (items) {
    // kube-apiserver 1.20 names an item's errors by the list's path, not the item's index.
    for (const v of value) errors.push(...validateValue(items, v, path));
  }
  return errors;
}

function checkObject(schema: Schema, value: Record<string, JsonValue>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const prefix = path ? `${path}.` : '';
  for (const key of Array.isArray(schema.required) ? schema.required : []) {
    if (typeof key === 'string' && value[key] === undefined) {
      errors.push({
        reason: 'FieldValueRequired',
        message: 'Required value',
        field: `${prefix}${key}`,
      });
    }
  }
  const props = new Map(properties(schema));
  const additional = additionalSchema(schema);
  for (const [key, child] of Object.entries(value)) {
    const prop = props.get(key) ?? additional;
    if (prop) errors.push(...validateValue(prop, child, `${prefix}${key}`));
  }
  if (
    typeof schema.maxProperties === 'number' &&
    Object.keys(value).length > schema.maxProperties
  ) {
    errors.push(
      invalid(
        path,
        String(Object.keys(value).length),
        `should have at most ${schema.maxProperties} properties`,
      ),
    );
  }
  if (
    typeof schema.minProperties === 'number' &&
    Object.keys(value).length < schema.minProperties
  ) {
    errors.push(
      invalid(
        path,
        String(Object.keys(value).length),
        `should have at least ${schema.minProperties} properties`,
      ),
    );
  }
  return errors;
}

/** The causes for `value` at `path` (dotted, as kube-apiserver names fields) against `schema`. */
export function validateValue(schema: Schema, value: JsonValue, path: string): FieldError[] {
  if (value === null) {
    if (schema.nullable === true) return [];
    return checkType(schema, value, path);
  }
  const errors = checkType(schema, value, path);
  if (typeof value === 'number') errors.push(...checkNumber(schema, value, path));
  if (typeof value === 'string' && schema['x-kubernetes-int-or-string'] !== true) {
    errors.push(...checkString(schema, value, path));
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => jsonEqual(e, value))) {
    errors.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${goValue(value)}: supported values: ${schema.enum.map(goValue).join(', ')}`,
      field: path,
    });
  }
  if (Array.isArray(value)) errors.push(...checkArray(schema, value, path));
  else if (isObject(value)) errors.push(...checkObject(schema, value, path));
  return errors;
}

/** The causes for a custom resource (its root: apiVersion, kind and metadata aside). */
export function validateCustomObject(schema: Schema, obj: Record<string, JsonValue>): FieldError[] {
  const rest: Record<string, JsonValue> = { ...obj };
  delete rest.apiVersion;
  delete rest.kind;
  delete rest.metadata;
  return checkObject(schema, rest, '');
}
