/**
 * The uniqueness kube-apiserver 1.20 demands of lists marked `x-kubernetes-list-type: set`
 * (items) or `map` (the `x-kubernetes-list-map-keys` of each item), checked after the schema:
 * the second occurrence of a value gets `<list>[i]: Duplicate value: <value in Go's %#v>`.
 * It follows `properties`, `additionalProperties` and `items`, not `allOf` and the like.
 */

import type { FieldError } from '@kubets/apiextensions';
import { fieldsWithSchemas, itemsSchema, type Schema } from '@kubets/apiextensions';
import { goMarshal } from '../go-decode.js';
import { isObject, type JsonObject, type JsonValue } from '../patch.js';

/** Go's `%#v` of a decoded JSON value, as field.Duplicate prints it. */
export function goSyntax(value: JsonValue): string {
  if (value === null) return '<nil>';
  if (Array.isArray(value)) return `[]interface {}{${value.map(goSyntax).join(', ')}}`;
  if (isObject(value)) {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goSyntax(value[k] as JsonValue)}`);
    return `map[string]interface {}{${entries.join(', ')}}`;
  }
  return JSON.stringify(value);
}

/** A key equal for equal values: compound values by their JSON with sorted keys. */
const identity = (value: JsonValue): string => goMarshal(value);

/** The indices of second occurrences (a third one is not reported again). */
function secondOccurrences(values: readonly JsonValue[]): number[] {
  const seen = new Map<string, number>();
  const indices: number[] = [];
  values.forEach((value, i) => {
    const key = identity(value);
    const times = seen.get(key) ?? 0;
    seen.set(key, times + 1);
    if (times === 1) indices.push(i);
  });
  return indices;
}

const duplicate = (field: string, value: JsonValue): FieldError => ({
  reason: 'FieldValueDuplicate',
  message: `Duplicate value: ${goSyntax(value)}`,
  field,
});

function mapKeysOf(schema: Schema): string[] {
  const keys = schema['x-kubernetes-list-map-keys'];
  return Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [];
}

function checkMapList(schema: Schema, list: JsonValue[], path: string): FieldError[] {
  const notObject = list.findIndex((x) => x !== null && !isObject(x));
  if (notObject >= 0) {
    const value = list[notObject] as JsonValue;
    return [
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${goSyntax(value)}: must be an object for an array of list-type map`,
        field: `${path}[${notObject}]`,
      },
    ];
  }
  const keyFields = mapKeysOf(schema);
  const keys = list.map((x) => {
    const key: JsonObject = {};
    for (const field of keyFields) {
      if (isObject(x) && x[field] !== undefined) key[field] = x[field] as JsonValue;
    }
    return key;
  });
  // With one key field the key's value alone is compared, and quoted with its field's name.
  const compared = keyFields.length === 1 ? keys.map((k) => Object.values(k)[0] ?? {}) : keys;
  return secondOccurrences(compared).map((i) => duplicate(`${path}[${i}]`, keys[i] as JsonValue));
}

function walk(schema: Schema, value: JsonValue, path: string): FieldError[] {
  if (Array.isArray(value)) {
    const errors: FieldError[] = [];
    const listType = schema['x-kubernetes-list-type'];
    if (listType === 'set' && value.length > 1) {
      for (const i of secondOccurrences(value)) {
        errors.push(duplicate(`${path}[${i}]`, value[i] as JsonValue));
      }
    } else if (listType === 'map') {
      errors.push(...checkMapList(schema, value, path));
    }
    const items = itemsSchema(schema);
    if (items) {
      for (const [i, v] of value.entries()) errors.push(...walk(items, v, `${path}[${i}]`));
    }
    return errors;
  }
  if (!isObject(value)) return [];
  const errors: FieldError[] = [];
  for (const [sub, child, at] of fieldsWithSchemas(schema, value, path)) {
    errors.push(...walk(sub, child, at));
  }
  return errors;
}

/** The duplicate-item causes of a custom resource's set and map lists. */
export function validateListTypes(schema: Schema, obj: JsonObject): FieldError[] {
  return walk(schema, obj, '');
}
