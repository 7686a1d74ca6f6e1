/**
 * Validation of a custom resource against its version's structural schema, with the causes
 * kube-apiserver 1.20 gives: type, `allOf`/`anyOf`/`oneOf`/`not`, length and pattern, string
 * formats, minimum/maximum (and exclusive), multipleOf, items counts, enum, min/max
 * properties, required, int-or-string, nullable; in its validators' order for one value.
 * kube-apiserver walks properties in Go map order (random), so causes of several fields come
 * in no fixed order.
 */

import type { FieldError } from './field-error.js';
import { matchesFormat } from './formats.js';
import { isObject, type JsonValue, jsonEqual } from './json.js';
import {
  additionalSchema,
  goValue,
  itemsSchema,
  jsonType,
  properties,
  type Schema,
} from './schema.js';

/** The root object's own causes name no field: kube-apiserver prints its nil path as `<nil>`. */
const invalid = (field: string, value: string, problem: string): FieldError => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${value}: ${field} in body ${problem}`,
  field: field || '<nil>',
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

/** Whether `value / factor` is whole, to the relative precision kube-openapi allows (1e-9). */
function isMultiple(value: number, factor: number): boolean {
  const quotient = value / factor;
  const whole = Math.trunc(quotient);
  if (quotient === whole) return true;
  const diff = Math.abs(quotient - whole);
  return diff / (Math.abs(quotient) + Math.abs(whole)) < 1e-9;
}

/** multipleOf, then maximum, then minimum: kube-openapi's number checks, in its order. */
function checkNumber(schema: Schema, value: number, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const v = String(value);
  if (
    typeof schema.multipleOf === 'number' &&
    schema.multipleOf > 0 &&
    !isMultiple(value, schema.multipleOf)
  ) {
    errors.push(invalid(path, v, `should be a multiple of ${schema.multipleOf}`));
  }
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

function checkArray(
  schema: Schema,
  value: JsonValue[],
  path: string,
  visits: Visits,
): FieldError[] {
  const errors: FieldError[] = [];
  const n = String(value.length);
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
    errors.push(invalid(path, n, `should have at most ${schema.maxItems} items`));
  }
  if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
    errors.push(invalid(path, n, `should have at least ${schema.minItems} items`));
  }
  // No uniqueItems: a CRD that sets it is refused (see structural.ts).
  const items = itemsSchema(schema);
  if (items) {
    // kube-apiserver 1.20 names an item's errors by the list's path, not the item's index.
    for (const v of value) errors.push(...run(items, v, path, visits));
  }
  return errors;
}

/**
 * An object below `minProperties` or above `maxProperties` gets that cause alone (quoting the
 * limit, not the count); otherwise its properties' causes, then the missing required ones.
 */
function checkObject(
  schema: Schema,
  value: Record<string, JsonValue>,
  path: string,
  visits: Visits,
): FieldError[] {
  const count = Object.keys(value).length;
  if (typeof schema.minProperties === 'number' && count < schema.minProperties) {
    const limit = schema.minProperties;
    return [invalid(path, String(limit), `should have at least ${limit} properties`)];
  }
  if (typeof schema.maxProperties === 'number' && count > schema.maxProperties) {
    const limit = schema.maxProperties;
    return [invalid(path, String(limit), `should have at most ${limit} properties`)];
  }
  const errors: FieldError[] = [];
  const prefix = path ? `${path}.` : '';
  const props = new Map(properties(schema));
  const additional = additionalSchema(schema);
  for (const [key, child] of Object.entries(value)) {
    const prop = props.get(key) ?? additional;
    if (prop) errors.push(...run(prop, child, `${prefix}${key}`, visits));
  }
  for (const key of Array.isArray(schema.required) ? schema.required : []) {
    if (typeof key === 'string' && value[key] === undefined) {
      errors.push({
        reason: 'FieldValueRequired',
        message: 'Required value',
        field: `${prefix}${key}`,
      });
    }
  }
  return errors;
}

/** Counts the schema nodes a validation visited: the best failing alternative visited most. */
interface Visits {
  count: number;
}

/** A cause of `allOf`/`anyOf`/`oneOf`/`not`: kube-apiserver gives it no field (`<nil>`). */
const composite = (message: string): FieldError => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: "": ${message}`,
  field: '<nil>',
});

function schemasOf(value: JsonValue | undefined): Schema[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** One alternative's causes and how much of the value it matched. */
function attempt(schema: Schema, value: JsonValue, path: string) {
  const visits = { count: 0 };
  const errors = run(schema, value, path, visits);
  return { errors, visits: visits.count };
}

function checkComposition(
  schema: Schema,
  value: JsonValue,
  path: string,
  visits: Visits,
): FieldError[] {
  const errors: FieldError[] = [];
  const quoted = JSON.stringify(path);
  const anyOf = schemasOf(schema.anyOf);
  if (anyOf.length > 0) {
    let best: ReturnType<typeof attempt> | undefined;
    let passed = false;
    for (const alternative of anyOf) {
      const result = attempt(alternative, value, path);
      visits.count += result.visits;
      if (result.errors.length === 0) {
        passed = true;
        best = undefined;
        break;
      }
      if (!best || result.visits > best.visits) best = result;
    }
    if (!passed) errors.push(composite(`${quoted} must validate at least one schema (anyOf)`));
    if (best) errors.push(...best.errors);
  }
  const oneOf = schemasOf(schema.oneOf);
  if (oneOf.length > 0) {
    let best: ReturnType<typeof attempt> | undefined;
    let valid = 0;
    for (const alternative of oneOf) {
      const result = attempt(alternative, value, path);
      visits.count += result.visits;
      if (result.errors.length === 0) {
        valid++;
        best = undefined;
      } else if (valid === 0 && (!best || result.visits > best.visits)) {
        best = result;
      }
    }
    if (valid !== 1) {
      const found = valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`;
      errors.push(composite(`${quoted} must validate one and only one schema (oneOf). ${found}`));
      if (best) errors.push(...best.errors);
    }
  }
  const allOf = schemasOf(schema.allOf);
  if (allOf.length > 0) {
    let valid = 0;
    for (const part of allOf) {
      const result = attempt(part, value, path);
      visits.count += result.visits;
      if (result.errors.length === 0) valid++;
      errors.push(...result.errors);
    }
    if (valid !== allOf.length) {
      const none = valid === 0 ? '. None validated' : '';
      errors.push(composite(`${quoted} must validate all the schemas (allOf)${none}`));
    }
  }
  if (isObject(schema.not) && attempt(schema.not, value, path).errors.length === 0) {
    errors.push(composite(`${quoted} must not validate the schema (not)`));
  }
  return errors;
}

function run(schema: Schema, value: JsonValue, path: string, visits: Visits): FieldError[] {
  visits.count++;
  if (value === null) {
    if (schema.nullable === true) return [];
    return checkType(schema, value, path);
  }
  const errors = checkType(schema, value, path);
  errors.push(...checkComposition(schema, value, path, visits));
  if (typeof value === 'string' && schema['x-kubernetes-int-or-string'] !== true) {
    errors.push(...checkString(schema, value, path));
    if (typeof schema.format === 'string' && !matchesFormat(schema.format, value)) {
      const v = JSON.stringify(value);
      errors.push(invalid(path, v, `must be of type ${schema.format}: ${v}`));
    }
  }
  if (typeof value === 'number') errors.push(...checkNumber(schema, value, path));
  if (Array.isArray(value)) errors.push(...checkArray(schema, value, path, visits));
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => jsonEqual(e, value))) {
    errors.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${goValue(value)}: supported values: ${schema.enum.map(goValue).join(', ')}`,
      field: path,
    });
  }
  if (isObject(value)) errors.push(...checkObject(schema, value, path, visits));
  return errors;
}

/** The causes for `value` at `path` (dotted, as kube-apiserver names fields) against `schema`. */
export function validateValue(schema: Schema, value: JsonValue, path: string): FieldError[] {
  return run(schema, value, path, { count: 0 });
}

/** The causes for a custom resource: the whole object, apiVersion, kind and metadata included. */
export function validateCustomObject(schema: Schema, obj: Record<string, JsonValue>): FieldError[] {
  return checkObject(schema, obj, '', { count: 0 });
}
