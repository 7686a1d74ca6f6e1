// Writes src/generated/openapi-builtins.json: the OpenAPI (v2 `definitions`) schemas
// of every built-in kind the in-memory API server serves and of every type they reach, named
// as kube-apiserver names them (`io.k8s.api.core.v1.Pod`), taken from the models of
// @kubernetes/client-node and the descriptions their declarations carry (kube-apiserver 1.20's own
// where scripts/kube-1.20-descriptions.json has them), keys in the order 1.20 writes them. The server loads it
// on the first /openapi request (see openapi-builtins.ts), for `kubectl explain`.
// Run: `pnpm --filter @kubets/apiserver generate:openapi [--check]`.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  classFor,
  modelDeclaration,
  models,
  QUANTITY_FIELDS,
  servedKinds,
} from './client-node-models.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '../src/generated/openapi-builtins.json');

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
// Types of k8s.io/apimachinery's meta/v1, which client-node names like any other V1 model.
const META_TYPES = new Set([
  'V1ObjectMeta',
  'V1ListMeta',
  'V1LabelSelector',
  'V1LabelSelectorRequirement',
  'V1OwnerReference',
  'V1ManagedFieldsEntry',
  'V1Condition',
  'V1Status',
  'V1StatusDetails',
  'V1StatusCause',
  'V1DeleteOptions',
  'V1Preconditions',
]);
const TIME = `${META}.Time`;
const MICRO_TIME = `${META}.MicroTime`;
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

/** The package prefix of a group's types in kube-apiserver's OpenAPI names. */
function groupPackage(prefix) {
  const group = prefix.toLowerCase();
  if (group === '' || group === 'core') return 'io.k8s.api.core';
  if (group.startsWith('apiextensions'))
    return 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions';
  if (group.startsWith('apiregistration')) return 'io.k8s.kube-aggregator.pkg.apis.apiregistration';
  return `io.k8s.api.${group.split('.')[0].toLowerCase()}`;
}

// The core kinds, served or not, and core types no core kind holds: every type they reach is a
// core type.
const CORE_ROOTS = [
  'V1TopologySelectorTerm',
  'V1Binding',
  'V1ComponentStatus',
  'V1ConfigMap',
  'V1Endpoints',
  'CoreV1Event',
  'V1LimitRange',
  'V1Namespace',
  'V1Node',
  'V1PersistentVolume',
  'V1PersistentVolumeClaim',
  'V1Pod',
  'V1PodTemplate',
  'V1ReplicationController',
  'V1ResourceQuota',
  'V1Secret',
  'V1Service',
  'V1ServiceAccount',
];
/** The model classes a type reaches through its fields, itself included. */
function reachable(roots) {
  const seen = new Set(roots);
  const queue = [...roots];
  while (queue.length > 0) {
    for (const a of models[queue.shift()].attributeTypeMap) {
      for (const name of a.type.match(/\w+/g) ?? []) {
        if (models[name]?.attributeTypeMap && !seen.has(name)) {
          seen.add(name);
          queue.push(name);
        }
      }
    }
  }
  return seen;
}
const coreTypes = reachable(CORE_ROOTS);

/**
 * A model's OpenAPI name. client-node drops the group from most names (`V1PodSpec`) and keeps
 * it only where two groups share a name (`CoreV1Event`); the others are core types when a core
 * kind reaches them, else types of the group of the kind that reaches them.
 */
function definitionName(className, inheritedGroup) {
  if (META_TYPES.has(className)) return `${META}.${className.slice(2)}`;
  const m = /^([A-Z][a-z]+)?(V\d+(?:alpha\d+|beta\d+)?)([A-Z].*)$/.exec(className);
  if (!m) throw new Error(`cannot name client-node model ${className}`);
  const group = m[1] ?? (coreTypes.has(className) ? '' : inheritedGroup);
  return `${groupPackage(group)}.${m[2].toLowerCase()}.${m[3]}`;
}

/** Descriptions and required fields of a model, from the TSDoc of its declaration. */
function readDeclaration(className) {
  const text = modelDeclaration(className);
  const clean = (doc) =>
    doc
      .split('\n')
      .map((line) => line.replace(/^\s*\*\s?/, ''))
      .join('\n')
      .trim()
      .replace(/\\(['"\\])/g, '$1');
  const classDoc = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*export declare class/.exec(text);
  const fields = {};
  const required = [];
  for (const m of text.matchAll(/(?:\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*)?'([^']+)'(\??):/g)) {
    if (m[1] !== undefined) fields[m[2]] = clean(m[1]);
    if (m[3] === '') required.push(m[2]);
  }
  return { description: classDoc ? clean(classDoc[1]) : undefined, fields, required };
}

const definitions = {
  [TIME]: { type: 'string', format: 'date-time' },
  [MICRO_TIME]: { type: 'string', format: 'date-time' },
  [INT_OR_STRING]: { type: 'string', format: 'int-or-string' },
  [QUANTITY]: { type: 'string' },
};
const named = new Map();
const pending = [];
const ref = (name) => ({ $ref: `#/definitions/${name}` });

function schemaOf(type, format, group) {
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return { type: 'array', items: schemaOf(array[1], format, group) };
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) return { type: 'object', additionalProperties: schemaOf(map[1], format, group) };
  if (type === 'string') return format === 'byte' ? { type: 'string', format } : { type };
  if (type === 'boolean') return { type };
  if (type === 'number')
    return format === 'int32' || format === 'int64'
      ? { type: 'integer', format }
      : { type: 'number', format: 'double' };
  if (type === 'IntOrString') return ref(INT_OR_STRING);
  if (type === 'Date') return ref(TIME);
  if (format === 'date-time-micro') return ref(MICRO_TIME);
  if (models[type]?.attributeTypeMap) return ref(nameOf(type, group));
  return { type: 'object' };
}

function nameOf(className, group) {
  if (!named.has(className)) {
    named.set(className, definitionName(className, group));
    pending.push([className, group]);
  }
  return named.get(className);
}

/**
 * kube-apiserver 1.20's own descriptions of the types (extract-1.20-descriptions.mjs), used
 * before client-node's newer ones.
 */
const KUBE_1_20 = JSON.parse(readFileSync(join(here, 'kube-1.20-descriptions.json'), 'utf8'));

function describe(className, group) {
  const declared = readDeclaration(className);
  const texts1_20 = KUBE_1_20[named.get(className)];
  if (texts1_20) {
    for (const [field, text] of Object.entries(texts1_20)) {
      if (field === '') declared.description = text;
      else declared.fields[field] = text;
    }
  }
  const properties = {};
  for (const a of models[className].attributeTypeMap) {
    let schema = schemaOf(a.type, a.format, group);
    if (QUANTITY_FIELDS[className]?.includes(a.baseName))
      schema = schema.additionalProperties
        ? { type: 'object', additionalProperties: ref(QUANTITY) }
        : ref(QUANTITY);
    const description = declared.fields[a.baseName];
    properties[a.baseName] = description ? { ...schema, description } : schema;
  }
  const schema = { type: 'object' };
  if (declared.description) schema.description = declared.description;
  schema.properties = properties;
  if (declared.required.length > 0) schema.required = declared.required;
  return schema;
}

const kinds = new Map();
// Kinds served at a beta version client-node no longer has a model of (batch/v1beta1 CronJob,
// policy/v1beta1 PodDisruptionBudget) are described by their v1 model, under their own name.
const betaKinds = [];
for (const row of servedKinds()) {
  const className = classFor(row);
  if (!className) {
    const v1 = classFor({ ...row, version: 'v1' });
    if (v1) betaKinds.push([row, nameOf(v1, row.group)]);
    continue;
  }
  const name = nameOf(className, row.group);
  const gvks = kinds.get(name) ?? [];
  gvks.push({ group: row.group, version: row.version, kind: row.kind });
  kinds.set(name, gvks);
}
while (pending.length > 0) {
  const [className, group] = pending.shift();
  definitions[named.get(className)] = describe(className, group);
}
for (const [row, v1Name] of betaKinds) {
  const name = v1Name.replace(/\.v1\.([^.]+)$/, `.${row.version}.$1`);
  definitions[name] = definitions[v1Name];
  if (!kinds.has(v1Name)) delete definitions[v1Name];
  kinds.set(name, [{ group: row.group, version: row.version, kind: row.kind }]);
}
for (const [name, gvks] of kinds) definitions[name]['x-kubernetes-group-version-kind'] = gvks;

/**
 * A schema's keys in the order kube-apiserver 1.20 writes them (go-openapi's Schema: its
 * fields in declaration order, then `$ref`, then the `x-` extensions sorted); maps (properties,
 * definitions, extension values) sorted by key.
 */
const SCHEMA_KEYS = [
  'id',
  'description',
  'type',
  'nullable',
  'format',
  'title',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'properties',
  'additionalProperties',
  'patternProperties',
  'dependencies',
  'additionalItems',
  'definitions',
  'discriminator',
  'readOnly',
  'xml',
  'externalDocs',
  'example',
  '$ref',
];
const SCHEMA_VALUED = new Set(['items', 'not', 'additionalProperties', 'additionalItems']);
const SCHEMA_LISTS = new Set(['allOf', 'oneOf', 'anyOf']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions']);

function sortedKeys(value) {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys(value[k])]),
  );
}

function orderedSchema(schema) {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const known = SCHEMA_KEYS.filter((k) => k in schema);
  const extensions = Object.keys(schema)
    .filter((k) => !SCHEMA_KEYS.includes(k))
    .sort();
  const out = {};
  for (const key of [...known, ...extensions]) {
    const value = schema[key];
    if (SCHEMA_VALUED.has(key)) out[key] = orderedSchema(value);
    else if (SCHEMA_LISTS.has(key)) out[key] = value.map(orderedSchema);
    else if (SCHEMA_MAPS.has(key)) {
      out[key] = Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((k) => [k, orderedSchema(value[k])]),
      );
    } else out[key] = sortedKeys(value);
  }
  return out;
}
const sorted = Object.fromEntries(
  Object.keys(definitions)
    .sort()
    .map((k) => [k, orderedSchema(definitions[k])]),
);
/**
 * JSON laid out as the repository's formatter (biome) lays it out, so the file passes lint:
 * two-space indents, objects one key a line, lists of scalars on one line when they fit.
 */
function formatJson(value, indent = '', prefixLength = 0) {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every((v) => v === null || typeof v !== 'object')) {
      const line = `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
      if (indent.length + prefixLength + line.length + 1 <= 100) return line;
    }
    return `[\n${value.map((v) => `${inner}${formatJson(v, inner)}`).join(',\n')}\n${indent}]`;
  }
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const lines = entries.map(([k, v]) => {
    const key = `${JSON.stringify(k)}: `;
    return `${inner}${key}${formatJson(v, inner, key.length)}`;
  });
  return `{\n${lines.join(',\n')}\n${indent}}`;
}

const text = `${formatJson({ definitions: sorted })}\n`;
if (process.argv.includes('--check')) {
  if (readFileSync(out, 'utf8') !== text) {
    console.error(`${out} is out of date: run generate:openapi`);
    process.exit(1);
  }
} else {
  writeFileSync(out, text);
}
