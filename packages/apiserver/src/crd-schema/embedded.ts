/**
 * What kube-apiserver 1.20 checks of the objects a custom resource embeds
 * (`x-kubernetes-embedded-resource: true`), after the schema: `apiVersion` and `kind` present,
 * strings, not empty, a parsable group/version and a kind that is a DNS-1035 label in lower
 * case, and the metadata's labels and annotations as an object's (its name is not required).
 */

import type { FieldError } from '@kubets/apiextensions';
import { fieldsWithSchemas, itemsSchema, type Schema } from '@kubets/apiextensions';
import { isObject, type JsonObject, type JsonValue } from '../patch.js';
import { validateAnnotations, validateLabels } from '../validation/metadata.js';
import { nameProblems } from '../validation/names.js';
import { goSyntax } from './list-type.js';

const required = (field: string): FieldError => ({
  reason: 'FieldValueRequired',
  message: 'Required value: must not be empty',
  field,
});
const invalid = (field: string, value: JsonValue, problem: string): FieldError => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${goSyntax(value)}: ${problem}`,
  field,
});

function groupVersionProblem(apiVersion: string): string | undefined {
  if (apiVersion === '/') return undefined;
  const parts = apiVersion.split('/');
  if (parts.length <= 2) return undefined;
  return `unexpected GroupVersion string: ${apiVersion}`;
}

function checkEmbedded(obj: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const at = (key: string) => (path ? `${path}.${key}` : key);
  if (obj.apiVersion === undefined) errors.push(required(at('apiVersion')));
  if (obj.kind === undefined) errors.push(required(at('kind')));
  const { apiVersion, kind, metadata } = obj;
  if (apiVersion !== undefined) {
    if (typeof apiVersion !== 'string')
      errors.push(invalid(at('apiVersion'), apiVersion, 'must be a string'));
    else if (apiVersion === '')
      errors.push(invalid(at('apiVersion'), apiVersion, 'must not be empty'));
    else {
      const problem = groupVersionProblem(apiVersion);
      if (problem) errors.push(invalid(at('apiVersion'), apiVersion, problem));
    }
  }
  if (kind !== undefined) {
    if (typeof kind !== 'string') errors.push(invalid(at('kind'), kind, 'must be a string'));
    else if (kind === '') errors.push(invalid(at('kind'), kind, 'must not be empty'));
    else {
      const problems = nameProblems(kind.toLowerCase(), 'dns1035');
      if (problems.length > 0)
        errors.push(
          invalid(
            at('kind'),
            kind,
            `may have mixed case, but should otherwise match: ${problems.join(',')}`,
          ),
        );
    }
  }
  if (isObject(metadata)) {
    errors.push(
      ...validateLabels(metadata.labels, at('metadata.labels')),
      ...validateAnnotations(metadata.annotations, at('metadata.annotations')),
    );
  }
  return errors;
}

function walk(schema: Schema, value: JsonValue, path: string): FieldError[] {
  if (Array.isArray(value)) {
    const items = itemsSchema(schema);
    return items ? value.flatMap((v, i) => walk(items, v, `${path}[${i}]`)) : [];
  }
  if (!isObject(value)) return [];
  const errors =
    schema['x-kubernetes-embedded-resource'] === true ? checkEmbedded(value, path) : [];
  for (const [sub, child, at] of fieldsWithSchemas(schema, value, path)) {
    errors.push(...walk(sub, child, at));
  }
  return errors;
}

/** The causes of the resources a custom resource embeds (not of the custom resource itself). */
export function validateEmbeddedResources(schema: Schema, obj: JsonObject): FieldError[] {
  return walk(schema, obj, '');
}
