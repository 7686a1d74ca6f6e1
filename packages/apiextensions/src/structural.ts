/**
 * The CRD checks kube-apiserver 1.20 makes of `apiextensions.k8s.io/v1` schemas, in its three
 * passes: every version needs a schema; then the generic rules, node by node (known types,
 * no `uniqueItems`, not both `properties` and `additionalProperties`, the list and map type
 * extensions); then the structural rules, listed sorted (a `type` on every specified field and
 * array item unless int-or-string or preserving unknown fields, an object root, `items` on
 * arrays, embedded resources, nothing but value validations inside `allOf`/`anyOf`/`oneOf`/
 * `not`, and whatever those name at the root also specified outside them); and only when the
 * schema is structural, defaults of their type. Field paths start at
 * `spec.validation.openAPIV3Schema` when every version has the same schema (1.20 checks it
 * once, in its internal form), else at each version's.
 */

import type { FieldError } from './field-error.js';
import { isObject, type JsonObject, type JsonValue, jsonEqual } from './json.js';
import { properties, type Schema } from './schema.js';
import { validateValue } from './validate.js';

const TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const COMPOSITIONS = ['allOf', 'anyOf', 'oneOf'] as const;

type Level = 'root' | 'item' | 'field';

const KEY_NOT_NULLABLE = 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable';
const EMBEDDED_NEEDS_PROPERTIES =
  'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields';

const forbidden = (field: string, why: string): FieldError => ({
  reason: 'FieldValueForbidden',
  message: `Forbidden: ${why}`,
  field,
});
const required = (field: string, why: string): FieldError => ({
  reason: 'FieldValueRequired',
  message: `Required value: ${why}`,
  field,
});
/** Go's `%v`-style value in an `Invalid value:` message: strings quoted, string lists as Go. */
const invalid = (field: string, value: JsonValue | undefined, why: string): FieldError => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${goValue(value)}: ${why}`,
  field,
});
const notSupported = (field: string, value: string, supported: string[]): FieldError => ({
  reason: 'FieldValueNotSupported',
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  field,
});

function goValue(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '"null"';
  if (Array.isArray(value)) return `[]string{${value.map((v) => JSON.stringify(v)).join(', ')}}`;
  return JSON.stringify(value);
}

const typeOf = (schema: Schema): string => (typeof schema.type === 'string' ? schema.type : '');
const stringOf = (value: JsonValue | undefined): string | undefined =>
  typeof value === 'string' ? value : undefined;
const subSchemas = (schema: Schema, key: string): Schema[] =>
  Array.isArray(schema[key]) ? (schema[key] as JsonValue[]).filter(isObject) : [];
const child = (schema: Schema, key: string): Schema | undefined =>
  isObject(schema[key]) ? (schema[key] as Schema) : undefined;

/** `type` is `want`, else required (when empty) or invalid, for `extension`'s sake. */
function typeMustBe(schema: Schema, path: string, want: string, why: string): FieldError[] {
  const type = typeOf(schema);
  if (type === want) return [];
  return [type === '' ? required(`${path}.type`, why) : invalid(`${path}.type`, type, why)];
}

function mapListErrors(schema: Schema, path: string, keys: string[]): FieldError[] {
  const errors: FieldError[] = [];
  if (keys.length === 0) {
    errors.push(
      required(
        `${path}.x-kubernetes-list-map-keys`,
        'must not be empty if x-kubernetes-list-type is map',
      ),
    );
  }
  const items = child(schema, 'items');
  if (!items) {
    errors.push(required(`${path}.items`, 'must have a schema if x-kubernetes-list-type is map'));
    return errors;
  }
  if (typeOf(items) !== 'object') {
    const why = "must be object if parent array's x-kubernetes-list-type is map";
    errors.push(invalid(`${path}.items.type`, typeOf(items), why));
    return errors;
  }
  const props = new Map(properties(items));
  const seen = new Set<string>();
  for (const key of keys) {
    const prop = props.get(key);
    if (!prop) {
      const why = 'entries must all be names of item properties';
      errors.push(invalid(`${path}.x-kubernetes-list-map-keys`, keys, why));
    } else if (typeOf(prop) === 'array' || typeOf(prop) === 'object') {
      const why = "must be a scalar type if parent array's x-kubernetes-list-type is map";
      errors.push(invalid(`${path}.items.properties[${key}].type`, typeOf(items), why));
    }
    if (seen.has(key)) {
      const why = 'must not contain duplicate entries';
      errors.push(invalid(`${path}.x-kubernetes-list-map-keys`, keys, why));
    }
    seen.add(key);
  }
  return errors;
}

/** The list and map type extensions of one node, as the generic pass checks them last. */
function listAndMapErrors(schema: Schema, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const mapType = stringOf(schema['x-kubernetes-map-type']);
  const listType = stringOf(schema['x-kubernetes-list-type']);
  const keys = Array.isArray(schema['x-kubernetes-list-map-keys'])
    ? schema['x-kubernetes-list-map-keys'].filter((k): k is string => typeof k === 'string')
    : [];
  const items = child(schema, 'items');
  if (mapType !== undefined) {
    errors.push(
      ...typeMustBe(schema, path, 'object', 'must be object if x-kubernetes-map-type is specified'),
    );
    if (mapType !== 'atomic' && mapType !== 'granular') {
      errors.push(notSupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
    }
  }
  if (listType !== undefined && typeOf(schema) !== 'array') {
    errors.push(
      ...typeMustBe(schema, path, 'array', 'must be array if x-kubernetes-list-type is specified'),
    );
  } else if (listType === 'set' && items) {
    const why = 'must be atomic as item of a list with x-kubernetes-list-type=set';
    const itemList = stringOf(items['x-kubernetes-list-type']);
    if (typeOf(items) === 'array' && itemList !== undefined && itemList !== 'atomic') {
      errors.push(invalid(`${path}.items.x-kubernetes-list-type`, itemList, why));
    }
    if (typeOf(items) === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      errors.push(invalid(`${path}.items.x-kubernetes-map-type`, itemList, why));
    }
  }
  if (listType !== undefined && !['atomic', 'set', 'map'].includes(listType)) {
    errors.push(notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  }
  if (keys.length > 0 && listType !== 'map') {
    const why = 'must be map if x-kubernetes-list-map-keys is non-empty';
    errors.push(
      listType === undefined
        ? required(`${path}.x-kubernetes-list-type`, why)
        : invalid(`${path}.x-kubernetes-list-type`, listType, why),
    );
  }
  if (listType === 'map') errors.push(...mapListErrors(schema, path, keys));
  if (items && (listType === 'set' || listType === 'map')) {
    if (items.nullable === true) {
      errors.push(
        forbidden(
          `${path}.items.nullable`,
          `cannot be nullable when x-kubernetes-list-type is ${listType}`,
        ),
      );
    }
    if (listType === 'map') {
      const props = new Map(properties(items));
      const isRequired = new Set(Array.isArray(items.required) ? items.required : []);
      for (const key of keys) {
        const prop = props.get(key);
        if (!prop) continue;
        const at = `${path}.items.properties[${key}]`;
        if (!isRequired.has(key) && prop.default === undefined) {
          errors.push(
            required(
              `${at}.default`,
              'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
            ),
          );
        }
        if (prop.nullable === true) errors.push(forbidden(`${at}.nullable`, KEY_NOT_NULLABLE));
      }
    }
  }
  return errors;
}

const nonEmpty = (value: JsonValue | undefined): boolean =>
  isObject(value) ? Object.keys(value).length > 0 : typeof value === 'string' && value !== '';

/** JSON-Schema keywords a CRD may not use (nor can kube-apiserver build a structural schema). */
const UNSUPPORTED: ReadonlyArray<[string, (s: Schema) => boolean]> = [
  ['id', (s) => nonEmpty(s.id)],
  ['additionalItems', (s) => s.additionalItems !== undefined && s.additionalItems !== null],
  ['patternProperties', (s) => nonEmpty(s.patternProperties)],
  ['definitions', (s) => nonEmpty(s.definitions)],
  ['dependencies', (s) => s.dependencies !== undefined && s.dependencies !== null],
  ['$ref', (s) => nonEmpty(s.$ref)],
];

/** Whether kube-apiserver can build a structural schema from `schema` at all. */
function convertible(schema: Schema): boolean {
  if (UNSUPPORTED.some(([, present]) => present(schema)) || Array.isArray(schema.items)) {
    return false;
  }
  if (nonEmpty(schema.$schema)) return false;
  const children = [
    ...properties(schema).map(([, prop]) => prop),
    ...[child(schema, 'items'), child(schema, 'additionalProperties'), child(schema, 'not')],
    ...COMPOSITIONS.flatMap((key) => subSchemas(schema, key)),
  ];
  return children.every((c) => c === undefined || convertible(c));
}

/** The generic pass over one node and everything under it, in kube-apiserver's order. */
function generic(schema: Schema, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const type = typeOf(schema);
  if (type !== '' && !TYPES.includes(type)) errors.push(notSupported(`${path}.type`, type, TYPES));
  for (const [key, present] of UNSUPPORTED) {
    if (present(schema)) errors.push(forbidden(`${path}.${key}`, `${key} is not supported`));
  }
  if (type === 'null') {
    errors.push(
      forbidden(`${path}.type`, 'type cannot be set to null, use nullable as an alternative'),
    );
  }
  if (Array.isArray(schema.items)) {
    errors.push(forbidden(`${path}.items`, 'items must be a schema object and not an array'));
  }
  if (schema.uniqueItems === true) {
    errors.push(
      forbidden(
        `${path}.uniqueItems`,
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  }
  if (
    schema.properties !== undefined &&
    schema.additionalProperties !== undefined &&
    schema.additionalProperties !== false
  ) {
    errors.push(
      forbidden(
        `${path}.additionalProperties`,
        'additionalProperties and properties are mutual exclusive',
      ),
    );
  }
  const additional = child(schema, 'additionalProperties');
  if (additional) errors.push(...generic(additional, `${path}.additionalProperties`));
  for (const [key, prop] of properties(schema)) {
    errors.push(...generic(prop, `${path}.properties[${key}]`));
  }
  const not = child(schema, 'not');
  if (not) errors.push(...generic(not, `${path}.not`));
  for (const key of COMPOSITIONS) {
    for (const [i, sub] of subSchemas(schema, key).entries()) {
      errors.push(...generic(sub, `${path}.${key}[${i}]`));
    }
  }
  const items = child(schema, 'items');
  if (items) errors.push(...generic(items, `${path}.items`));
  errors.push(...listAndMapErrors(schema, path));
  return errors;
}

/** What a schema inside allOf/anyOf/oneOf/not may not say (it only validates values). */
const NESTED_FORBIDDEN: ReadonlyArray<[string, (s: Schema) => boolean, string]> = [
  ['type', (s) => typeOf(s) !== '', 'must be empty to be structural'],
  [
    'additionalProperties',
    (s) => s.additionalProperties !== undefined,
    'must be undefined to be structural',
  ],
  [
    'default',
    (s) => s.default !== undefined && s.default !== null,
    'must be undefined to be structural',
  ],
  ['title', (s) => typeof s.title === 'string' && s.title !== '', 'must be empty to be structural'],
  [
    'description',
    (s) => typeof s.description === 'string' && s.description !== '',
    'must be empty to be structural',
  ],
  ['nullable', (s) => s.nullable === true, 'must be false to be structural'],
  [
    'x-kubernetes-preserve-unknown-fields',
    (s) => s['x-kubernetes-preserve-unknown-fields'] === true,
    'must be false to be structural',
  ],
  [
    'x-kubernetes-embedded-resource',
    (s) => s['x-kubernetes-embedded-resource'] === true,
    'must be false to be structural',
  ],
  [
    'x-kubernetes-int-or-string',
    (s) => s['x-kubernetes-int-or-string'] === true,
    'must be false to be structural',
  ],
  [
    'x-kubernetes-list-map-keys',
    (s) =>
      Array.isArray(s['x-kubernetes-list-map-keys']) && s['x-kubernetes-list-map-keys'].length > 0,
    'must be empty to be structural',
  ],
  [
    'x-kubernetes-list-type',
    (s) => s['x-kubernetes-list-type'] !== undefined,
    'must be undefined to be structural',
  ],
  [
    'x-kubernetes-map-type',
    (s) => s['x-kubernetes-map-type'] !== undefined,
    'must be undefined to be structural',
  ],
];

/** The int-or-string pattern controller-gen writes: `anyOf: [{type: integer}, {type: string}]`. */
function isIntOrStringAnyOf(anyOf: Schema[]): boolean {
  return (
    anyOf.length === 2 &&
    jsonEqual(anyOf[0] ?? null, { type: 'integer' }) &&
    jsonEqual(anyOf[1] ?? null, { type: 'string' })
  );
}

/** The value validations of a node (its allOf/anyOf/oneOf/not), checked as nested schemas. */
function valueValidation(
  schema: Schema,
  path: string,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  if (!skipAnyOf) {
    for (const [i, sub] of subSchemas(schema, 'anyOf').entries()) {
      errors.push(...nested(sub, `${path}.anyOf[${i}]`, false));
    }
  }
  for (const [i, sub] of subSchemas(schema, 'allOf').entries()) {
    errors.push(...nested(sub, `${path}.allOf[${i}]`, skipFirstAllOfAnyOf && i === 0));
  }
  for (const [i, sub] of subSchemas(schema, 'oneOf').entries()) {
    errors.push(...nested(sub, `${path}.oneOf[${i}]`, false));
  }
  const not = child(schema, 'not');
  if (not) errors.push(...nested(not, `${path}.not`, false));
  return errors;
}

function nested(schema: Schema, path: string, skipAnyOf: boolean): FieldError[] {
  const errors = valueValidation(schema, path, skipAnyOf, false);
  const items = child(schema, 'items');
  if (items) errors.push(...nested(items, `${path}.items`, false));
  for (const [key, prop] of properties(schema)) {
    errors.push(...nested(prop, `${path}.properties[${key}]`, false));
  }
  for (const [key, present, why] of NESTED_FORBIDDEN) {
    if (present(schema)) errors.push(forbidden(`${path}.${key}`, why));
  }
  if (properties(schema).some(([key]) => key === 'metadata')) {
    errors.push(
      forbidden(`${path}.properties[metadata]`, 'must not be specified in a nested context'),
    );
  }
  return errors;
}

const WHERE: Readonly<Record<Level, string>> = {
  root: 'at the root',
  item: 'for specified array items',
  field: 'for specified object fields',
};

/** The structural invariants of one node and everything under it (sorted by the caller). */
function invariants(schema: Schema, level: Level, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const type = typeOf(schema);
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const items = child(schema, 'items');
  if (type === 'array' && !items) errors.push(required(`${path}.items`, 'must be specified'));
  if (items) errors.push(...invariants(items, 'item', `${path}.items`));
  for (const [key, prop] of properties(schema)) {
    errors.push(...invariants(prop, 'field', `${path}.properties[${key}]`));
  }
  const additional = child(schema, 'additionalProperties');
  if (schema.additionalProperties !== undefined && level === 'root') {
    errors.push(forbidden(`${path}.additionalProperties`, 'must not be used at the root'));
  }
  if (additional) errors.push(...invariants(additional, 'field', `${path}.additionalProperties`));
  if (intOrString && preserve) {
    errors.push(
      invalid(
        `${path}.x-kubernetes-preserve-unknown-fields`,
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  if (intOrString && embedded) {
    errors.push(
      invalid(
        `${path}.x-kubernetes-embedded-resource`,
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  const anyOf = subSchemas(schema, 'anyOf');
  const firstAllOf = subSchemas(schema, 'allOf')[0];
  errors.push(
    ...valueValidation(
      schema,
      path,
      isIntOrStringAnyOf(anyOf),
      firstAllOf !== undefined && isIntOrStringAnyOf(subSchemas(firstAllOf, 'anyOf')),
    ),
  );
  if (embedded && type !== 'object') {
    errors.push(
      ...typeMustBe(
        schema,
        path,
        'object',
        'must be object if x-kubernetes-embedded-resource is true',
      ),
    );
  } else if (type === '' && !intOrString && !preserve) {
    errors.push(required(`${path}.type`, `must not be empty ${WHERE[level]}`));
  }
  if (embedded && schema.additionalProperties !== undefined) {
    errors.push(
      forbidden(
        `${path}.additionalProperties`,
        'must not be used if x-kubernetes-embedded-resource is set',
      ),
    );
  }
  if (level === 'root' && type !== '' && type !== 'object') {
    errors.push(invalid(`${path}.type`, type, 'must be object at the root'));
  }
  if (level === 'root' || embedded) {
    const props = new Map(properties(schema));
    for (const [key, want] of [
      ['kind', 'string'],
      ['apiVersion', 'string'],
      ['metadata', 'object'],
    ] as const) {
      const prop = props.get(key);
      if (prop && typeOf(prop) !== want) {
        errors.push(invalid(`${path}.properties[${key}].type`, typeOf(prop), `must be ${want}`));
      }
    }
  }
  if (level === 'root') errors.push(...rootMetadataErrors(schema, path));
  if (embedded && !preserve && properties(schema).length === 0) {
    errors.push(required(`${path}.properties`, EMBEDDED_NEEDS_PROPERTIES));
  }
  return errors;
}

/** At the root, `metadata` may only restrict `name` and `generateName`. */
function rootMetadataErrors(schema: Schema, path: string): FieldError[] {
  const metadata = new Map(properties(schema)).get('metadata');
  if (!metadata) return [];
  const { type: _type, default: _default, properties: props, ...rest } = metadata;
  const names = isObject(props) ? Object.keys(props) : [];
  const onlyNames = names.every((n) => n === 'name' || n === 'generateName');
  if (onlyNames && Object.keys(rest).length === 0) return [];
  return [
    forbidden(
      `${path}.properties[metadata]`,
      'must not specify anything other than name and generateName, but metadata is implicitly specified',
    ),
  ];
}

/** Whatever the root's allOf/anyOf/oneOf/not name must also be specified outside them. */
function completeness(
  schema: Schema,
  structural: Schema | undefined,
  sPath: string,
  vPath: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const walkValue = (value: Schema, at: string) => {
    const not = child(value, 'not');
    if (not) errors.push(...nestedCompleteness(not, structural, sPath, `${at}.not`));
    for (const key of COMPOSITIONS) {
      for (const [i, sub] of subSchemas(value, key).entries()) {
        errors.push(...nestedCompleteness(sub, structural, sPath, `${at}.${key}[${i}]`));
      }
    }
  };
  walkValue(schema, vPath);
  return errors;
}

function nestedCompleteness(
  value: Schema,
  structural: Schema | undefined,
  sPath: string,
  vPath: string,
): FieldError[] {
  if (!structural) return [required(sPath, `because it is defined in ${vPath}`)];
  const errors = completeness(value, structural, sPath, vPath);
  const items = child(value, 'items');
  if (items)
    errors.push(
      ...nestedCompleteness(items, child(structural, 'items'), `${sPath}.items`, `${vPath}.items`),
    );
  const specified = new Map(properties(structural));
  for (const [key, prop] of properties(value)) {
    const sAt = `${sPath}.properties[${key}]`;
    const vAt = `${vPath}.properties[${key}]`;
    const match = specified.get(key);
    if (!match) errors.push(required(sAt, `because it is defined in ${vAt}`));
    else errors.push(...nestedCompleteness(prop, match, sAt, vAt));
  }
  return errors;
}

/** Each default must pass its own schema (causes quote an empty field path in the text). */
function defaultErrors(schema: Schema, path: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, prop] of properties(schema)) {
    errors.push(...defaultErrors(prop, `${path}.properties[${key}]`));
  }
  const items = child(schema, 'items');
  if (items) errors.push(...defaultErrors(items, `${path}.items`));
  const additional = child(schema, 'additionalProperties');
  if (additional) errors.push(...defaultErrors(additional, `${path}.additionalProperties`));
  if (schema.default !== undefined) {
    const { default: value, ...rest } = schema;
    for (const e of validateValue(rest, value, '')) errors.push({ ...e, field: `${path}.default` });
  }
  return errors;
}

/** The causes for one version's schema (or the shared one) at `path`. */
export function schemaErrors(schema: Schema, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (schema.nullable === true) {
    errors.push(forbidden(`${path}.nullable`, 'nullable cannot be true at the root'));
  }
  errors.push(...generic(schema, path));
  // Without a structural schema the later passes do not run (their failure is not reported
  // when the generic pass found something).
  if (!convertible(schema)) return errors;
  const structural = [
    ...invariants(schema, 'root', path),
    ...completeness(schema, schema, path, path),
  ];
  // kube-apiserver sorts the structural causes by their text (field, then message).
  const text = (e: FieldError) => `${e.field}: ${e.message}`;
  structural.sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
  errors.push(...structural);
  if (structural.length === 0) errors.push(...defaultErrors(schema, path));
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
      errors.push(required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
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
    errors.push(...schemaErrors(schema, path));
  });
  return errors;
}
