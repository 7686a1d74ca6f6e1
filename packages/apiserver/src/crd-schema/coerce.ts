/**
 * What kube-apiserver 1.20's decoder does to the objects a custom resource embeds
 * (`x-kubernetes-embedded-resource: true`) once pruned: `apiVersion` and `kind` must be
 * strings (else the request is a 400), and `metadata` is re-encoded as an ObjectMeta, which
 * drops the fields ObjectMeta does not have, empty ones, and a null `creationTimestamp`.
 */

import { fieldsWithSchemas, itemsSchema, type Schema } from '@kubets/apiextensions';
import { METADATA_ORDER } from '../object-meta.js';
import { isObject, type JsonObject, type JsonValue } from '../patch.js';
import { goSyntax } from './list-type.js';

const OBJECT_META_FIELDS = new Set(METADATA_ORDER);

/** What Go's `omitempty` leaves out when it encodes a field. */
function isEmpty(value: JsonValue): boolean {
  if (value === null || value === '' || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

function normalizeMetadata(metadata: JsonObject): void {
  for (const [key, value] of Object.entries(metadata)) {
    if (!OBJECT_META_FIELDS.has(key) || isEmpty(value)) delete metadata[key];
  }
}

/** The first decoding problem (`<field>: Invalid value: …: must be a string`), if any. */
function walk(schema: Schema, value: JsonValue, path: string): string | undefined {
  if (Array.isArray(value)) {
    const items = itemsSchema(schema);
    if (!items) return undefined;
    for (const [i, v] of value.entries()) {
      const problem = walk(items, v, `${path}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (!isObject(value)) return undefined;
  if (schema['x-kubernetes-embedded-resource'] === true) {
    for (const key of ['apiVersion', 'kind']) {
      const field = value[key];
      if (field !== undefined && typeof field !== 'string') {
        return `${path}.${key}: Invalid value: ${goSyntax(field)}: must be a string`;
      }
    }
    if (isObject(value.metadata)) normalizeMetadata(value.metadata);
  }
  for (const [sub, child, at] of fieldsWithSchemas(schema, value, path)) {
    const problem = walk(sub, child, at);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Applies the decoder's re-encoding of embedded resources' metadata to `obj` in place, and
 * returns the problem that makes kube-apiserver refuse to decode it, if any.
 */
export function coerceEmbeddedResources(schema: Schema, obj: JsonObject): string | undefined {
  return walk(schema, obj, '');
}
