/**
 * What kube-apiserver 1.20 does to a custom resource before validating it: drops `null`s
 * of fields that are not `nullable`, fills in `default`s (also inside defaulted values), and
 * prunes fields the schema does not declare (unless `x-kubernetes-preserve-unknown-fields`).
 * `apiVersion`, `kind` and `metadata` at the root (and in embedded resources) are kept.
 */

import { additionalSchema, itemsSchema, propertySchema, type Schema } from '@kubets/apiextensions';
import { clone, isObject, type JsonObject, type JsonValue } from '../patch.js';

const KEPT_AT_ROOT = new Set(['apiVersion', 'kind', 'metadata']);

function walk(value: JsonValue, schema: Schema, root: boolean): JsonValue {
  if (Array.isArray(value)) {
    const items = itemsSchema(schema);
    return items ? value.map((v) => walk(v, items, false)) : value;
  }
  if (!isObject(value)) return value;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = root || schema['x-kubernetes-embedded-resource'] === true;
  const additional = additionalSchema(schema);
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (embedded && KEPT_AT_ROOT.has(key)) {
      out[key] = child;
      continue;
    }
    const prop = propertySchema(schema, key) ?? additional;
    if (prop) {
      if (child === null && prop.nullable !== true) continue;
      out[key] = walk(child, prop, false);
    } else if (preserve || schema.additionalProperties === true) {
      out[key] = child;
    }
  }
  const props = isObject(schema.properties) ? schema.properties : {};
  for (const [key, prop] of Object.entries(props)) {
    if (out[key] !== undefined || !isObject(prop) || prop.default === undefined) continue;
    out[key] = walk(clone(prop.default), prop, false);
  }
  return out;
}

/** Prunes and defaults a custom resource in place against its version's schema. */
export function pruneAndDefault(obj: JsonObject, schema: Schema): void {
  const result = walk(obj, schema, true) as JsonObject;
  for (const key of Object.keys(obj)) if (!(key in result)) delete obj[key];
  Object.assign(obj, result);
}
