/**
 * kube-apiserver 1.20's checks of a CustomResourceDefinition created through
 * `apiextensions.k8s.io/v1` (`ValidateCustomResourceDefinition`), in its order: the object's
 * name, then the spec (group, scope, versions, names, the schemas, subresources, printer
 * columns). It validates the internal form, into which a v1 CRD is converted first: a schema,
 * subresources or printer columns that every version shares (or that the only version has)
 * move to `spec.validation`, `spec.subresources` and `spec.additionalPrinterColumns`, and
 * causes name those paths. v1's defaults (`singular`, `listKind`) apply before the checks.
 */
import { dns1035LabelErrors, dns1123SubdomainErrors } from '@kubets/apimachinery';
import type { FieldError } from './field-error.js';
import { isKnownFormat } from './formats.js';
import { isObject, type JsonObject, type JsonValue, jsonEqual } from './json.js';
import { properties, type Schema } from './schema.js';
import { schemaErrors } from './structural.js';

const required = (field: string, why = ''): FieldError => ({
  reason: 'FieldValueRequired',
  message: why ? `Required value: ${why}` : 'Required value',
  field,
});
const invalid = (field: string, value: string, why: string): FieldError => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${JSON.stringify(value)}: ${why}`,
  field,
});
const invalidAny = (field: string, printed: string, why: string): FieldError => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${printed}: ${why}`,
  field,
});

const str = (value: JsonValue | undefined): string => (typeof value === 'string' ? value : '');
const strings = (value: JsonValue | undefined): string[] =>
  Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v : '')) : [];
const objects = (value: JsonValue | undefined): JsonObject[] =>
  Array.isArray(value) ? value.filter(isObject) : [];
const child = (value: JsonObject, key: string): JsonObject | undefined =>
  isObject(value[key]) ? value[key] : undefined;

/** A DNS-1035 label cause at `field` unless `value` is empty or valid (`prefix` before the text). */
function labelErrors(field: string, value: string, shown = value, prefix = ''): FieldError[] {
  const problems = dns1035LabelErrors(value);
  if (value === '' || problems.length === 0) return [];
  return [invalid(field, shown, prefix + problems.join(','))];
}

/** `ValidateCustomResourceDefinitionNames` (with v1's defaults already applied). */
function namesErrors(names: JsonObject, path: string): FieldError[] {
  const kind = str(names.kind);
  const listKind = str(names.listKind);
  const mixedCase = 'may have mixed case, but should otherwise match: ';
  const errors = [
    ...labelErrors(`${path}.plural`, str(names.plural)),
    ...labelErrors(`${path}.singular`, str(names.singular)),
    ...labelErrors(`${path}.kind`, kind.toLowerCase(), kind, mixedCase),
    ...labelErrors(`${path}.listKind`, listKind.toLowerCase(), listKind, mixedCase),
  ];
  strings(names.shortNames).forEach((short, i) => {
    const problems = dns1035LabelErrors(short);
    if (problems.length > 0) {
      errors.push(invalid(`${path}.shortNames[${i}]`, short, problems.join(',')));
    }
  });
  if (kind !== '' && kind === listKind) {
    errors.push(invalid(`${path}.listKind`, listKind, 'kind and listKind may not be the same'));
  }
  strings(names.categories).forEach((category, i) => {
    const problems = dns1035LabelErrors(category);
    if (problems.length > 0) {
      errors.push(invalid(`${path}.categories[${i}]`, category, problems.join(',')));
    }
  });
  return errors;
}

/** `validateSimpleJSONPath`. */
function jsonPathErrors(value: string, field: string): FieldError[] {
  if (value === '') return [invalid(field, value, 'must not be empty')];
  if (!value.startsWith('.')) {
    return [invalid(field, value, 'must be a simple json path starting with .')];
  }
  return [];
}

/** `ValidateCustomResourceDefinitionSubresources`: the scale subresource's paths. */
function subresourceErrors(subresources: JsonObject | undefined, path: string): FieldError[] {
  const scale = subresources && child(subresources, 'scale');
  if (!scale) return [];
  const errors: FieldError[] = [];
  const underPath = (key: string, prefixes: string[], why: string) => {
    const value = str(scale[key]);
    const at = `${path}.scale.${key}`;
    if (value === '') {
      if (key !== 'labelSelectorPath') errors.push(required(at));
      return;
    }
    const pathErrors = jsonPathErrors(value, at);
    if (pathErrors.length > 0) errors.push(...pathErrors);
    else if (!prefixes.some((p) => value.startsWith(p))) errors.push(invalid(at, value, why));
  };
  underPath('specReplicasPath', ['.spec.'], 'should be a json path under .spec');
  underPath('statusReplicasPath', ['.status.'], 'should be a json path under .status');
  underPath(
    'labelSelectorPath',
    ['.spec.', '.status.'],
    'should be a json path under either .spec or .status',
  );
  return errors;
}

const COLUMN_TYPES = 'boolean,date,integer,number,string';
const COLUMN_FORMATS = 'byte,date,date-time,double,float,int32,int64,password';

/** `ValidateCustomResourceColumnDefinition` of each printer column. */
function columnErrors(columns: JsonObject[], path: string): FieldError[] {
  return columns.flatMap((column, i) => {
    const at = `${path}[${i}]`;
    const errors: FieldError[] = [];
    const type = str(column.type);
    const format = str(column.format);
    const jsonPath = str(column.jsonPath);
    if (str(column.name) === '') errors.push(required(`${at}.name`));
    if (type === '') errors.push(required(`${at}.type`, `must be one of ${COLUMN_TYPES}`));
    else if (!COLUMN_TYPES.split(',').includes(type)) {
      errors.push(invalid(`${at}.type`, type, `must be one of ${COLUMN_TYPES}`));
    }
    if (format !== '' && !COLUMN_FORMATS.split(',').includes(format)) {
      errors.push(invalid(`${at}.format`, format, `must be one of ${COLUMN_FORMATS}`));
    }
    if (jsonPath === '') errors.push(required(`${at}.JSONPath`));
    else errors.push(...jsonPathErrors(jsonPath, `${at}.JSONPath`));
    return errors;
  });
}

/** The root schema fields kube-apiserver allows when the status subresource is enabled. */
const ALLOWED_AT_STATUS_ROOT = new Set([
  'description',
  'type',
  'format',
  'title',
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
  'required',
  'items',
  'properties',
  'externalDocs',
  'example',
  'x-kubernetes-preserve-unknown-fields',
]);
const ALLOWED_AT_STATUS_ROOT_GO =
  '[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields]';

/** Go's zero value test of a schema field: `false`, `""`, empty lists and objects are unset. */
function isSet(value: JsonValue): boolean {
  if (value === false || value === '' || value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isObject(value)) return Object.keys(value).length > 0;
  return true;
}

/**
 * With the status subresource, the root schema is `object` and says nothing that would be
 * lost when `properties.status` is taken out of it. The second cause prints the whole schema
 * as a Go struct in kube-apiserver's text; here it is named, not printed.
 */
function statusRootErrors(schema: Schema, path: string): FieldError[] {
  const type = str(schema.type);
  if (type !== '' && type !== 'object') {
    const why =
      'only "object" is allowed as the type at the root of the schema if the status subresource is enabled';
    return [invalid(`${path}.type`, type, why)];
  }
  const extra = Object.entries(schema).find(
    ([key, value]) => isSet(value) && !ALLOWED_AT_STATUS_ROOT.has(key),
  );
  if (!extra) return [];
  const why = `only ${ALLOWED_AT_STATUS_ROOT_GO} fields are allowed at the root of the schema if the status subresource is enabled`;
  return [invalidAny(path, `apiextensions.JSONSchemaProps{${extra[0]}: ...}`, why)];
}

const hasStatus = (subresources: JsonObject | undefined): boolean =>
  subresources !== undefined && subresources.status !== undefined && subresources.status !== null;

/** The parts of the versions that the internal form keeps at the top level when all agree. */
interface Hoisted {
  schema: Schema | undefined;
  subresources: JsonObject | undefined;
  columns: JsonObject[] | undefined;
}

/** What the v1 → internal conversion moves to the top level (undefined: kept per version). */
function hoisted(versions: JsonObject[]): Hoisted {
  const same = (pick: (v: JsonObject) => JsonValue | undefined): boolean =>
    versions.length > 0 &&
    versions.every((v) => jsonEqual(pick(v) ?? null, pick(versions[0] as JsonObject) ?? null));
  const first = versions[0];
  const schemaOf = (v: JsonObject) => {
    const holder = child(v, 'schema');
    return holder ? child(holder, 'openAPIV3Schema') : undefined;
  };
  return {
    schema: first && same(schemaOf) ? schemaOf(first) : undefined,
    subresources: first && same((v) => v.subresources) ? child(first, 'subresources') : undefined,
    columns:
      first && same((v) => v.additionalPrinterColumns)
        ? objects(first.additionalPrinterColumns)
        : undefined,
  };
}

/** The schema checks of one schema at `path` (status rules first, as kube-apiserver runs them). */
function validationErrors(schema: Schema, statusEnabled: boolean, path: string): FieldError[] {
  return [
    ...(statusEnabled ? statusRootErrors(schema, `${path}.openAPIV3Schema`) : []),
    ...schemaErrors(schema, `${path}.openAPIV3Schema`),
  ];
}

/** Options of {@link validateCustomResourceDefinition}. */
export interface CrdValidationOptions {
  /**
   * The caller has already checked `metadata.name` as a DNS subdomain (as an API server does
   * for every object): leave that out, keep only the rule that it is `plural.group`.
   */
  readonly nameFormatChecked?: boolean;
}

/**
 * The causes kube-apiserver 1.20 answers a `create` of `crd` (an `apiextensions.k8s.io/v1`
 * CustomResourceDefinition) with, in its order; empty when it would accept it. Each cause names
 * the field (`spec.group`, `spec.validation.openAPIV3Schema.properties[spec].type`) and the rule
 * in kube-apiserver's words. Not checked: labels and annotations of its metadata, conversion
 * webhooks, deprecation warnings, and the CRD's status (which the server sets).
 */
export function validateCustomResourceDefinition(
  crd: JsonObject,
  options: CrdValidationOptions = {},
): FieldError[] {
  const metadata = child(crd, 'metadata') ?? {};
  const spec = child(crd, 'spec') ?? {};
  const names = { ...(child(spec, 'names') ?? {}) };
  const kind = str(names.kind);
  if (str(names.singular) === '' && kind !== '') names.singular = kind.toLowerCase();
  if (str(names.listKind) === '' && kind !== '') names.listKind = `${kind}List`;
  const group = str(spec.group);
  const errors: FieldError[] = [];

  const name = str(metadata.name);
  if (name === '') {
    if (!options.nameFormatChecked) {
      errors.push(required('metadata.name', 'name or generateName is required'));
    }
  } else {
    if (!options.nameFormatChecked) {
      for (const problem of dns1123SubdomainErrors(name)) {
        errors.push(invalid('metadata.name', name, problem));
      }
    }
    if (name !== `${str(names.plural)}.${group}`) {
      errors.push(invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
    }
  }

  if (group === '') errors.push(required('spec.group'));
  else if (dns1123SubdomainErrors(group).length > 0) {
    errors.push(invalid('spec.group', group, dns1123SubdomainErrors(group).join(',')));
  } else if (!group.includes('.')) {
    errors.push(invalid('spec.group', group, 'should be a domain with at least one dot'));
  }

  const scope = str(spec.scope);
  if (scope === '') errors.push(required('spec.scope'));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') {
    errors.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(scope)}: supported values: "Cluster", "Namespaced"`,
      field: 'spec.scope',
    });
  }

  const versions = objects(spec.versions);
  const top = hoisted(versions);
  const schemaOf = (v: JsonObject): Schema | undefined => {
    const holder = child(v, 'schema');
    return holder ? child(holder, 'openAPIV3Schema') : undefined;
  };
  const missingSchema = top.schema === undefined && versions.some((v) => !schemaOf(v));
  if (top.schema === undefined) {
    versions.forEach((v, i) => {
      if (!schemaOf(v)) {
        errors.push(required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
      }
    });
  }
  const anyStatus = versions.some((v) => hasStatus(child(v, 'subresources')));
  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    const at = `spec.versions[${i}]`;
    const versionName = str(v.name);
    if (v.storage === true) storageCount++;
    if (seen.has(versionName)) unique = false;
    seen.add(versionName);
    const problems = dns1035LabelErrors(versionName);
    if (problems.length > 0) errors.push(invalid(`${at}.name`, versionName, problems.join(',')));
    const subresources = child(v, 'subresources');
    const schema = schemaOf(v);
    if (top.schema === undefined && schema && !missingSchema) {
      const statusEnabled = hasStatus(top.subresources ?? subresources);
      errors.push(...validationErrors(schema, statusEnabled, `${at}.schema`));
    }
    if (top.subresources === undefined) {
      errors.push(...subresourceErrors(subresources, `${at}.subresources`));
    }
    if (top.columns === undefined) {
      errors.push(
        ...columnErrors(objects(v.additionalPrinterColumns), `${at}.additionalPrinterColumns`),
      );
    }
  });
  const printedVersions = '[]apiextensions.CustomResourceDefinitionVersion{...}';
  if (!unique)
    errors.push(invalidAny('spec.versions', printedVersions, 'must contain unique version names'));
  if (storageCount !== 1) {
    errors.push(
      invalidAny(
        'spec.versions',
        printedVersions,
        'must have exactly one version marked as storage version',
      ),
    );
  }
  const firstVersion = versions[0] ? str(versions[0].name) : '';
  if (firstVersion !== '') {
    const problems = dns1035LabelErrors(firstVersion);
    if (problems.length > 0) errors.push(invalid('spec.version', firstVersion, problems.join(',')));
  }

  for (const key of ['plural', 'singular', 'kind', 'listKind']) {
    if (str(names[key]) === '') errors.push(required(`spec.names.${key}`));
  }
  errors.push(...namesErrors(names, 'spec.names'));
  if (top.schema !== undefined)
    errors.push(...validationErrors(top.schema, anyStatus, 'spec.validation'));
  if (top.subresources !== undefined)
    errors.push(...subresourceErrors(top.subresources, 'spec.subresources'));
  if (top.columns !== undefined) {
    errors.push(...columnErrors(top.columns, 'spec.additionalPrinterColumns'));
  }
  errors.push(...approvalErrors(group, child(metadata, 'annotations') ?? {}));
  return errors;
}

const APPROVAL = 'api-approved.kubernetes.io';
const APPROVAL_PR = 'see https://github.com/kubernetes/enhancements/pull/1111';

/** Whether `value` is a URL with a scheme and a host, as Go's `url.ParseRequestURI` reads one. */
function isApprovalUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol !== ':' && url.host !== '';
  } catch {
    return false;
  }
}

/**
 * A group under `k8s.io` or `kubernetes.io` is the community's: its CRD needs the
 * `api-approved.kubernetes.io` annotation, a URL or a reason starting with `unapproved`.
 */
function approvalErrors(group: string, annotations: JsonObject): FieldError[] {
  const isProtected = ['k8s.io', 'kubernetes.io'].some(
    (domain) => group === domain || group.endsWith(`.${domain}`),
  );
  if (!isProtected) return [];
  const field = `metadata.annotations[${APPROVAL}]`;
  const value = str(annotations[APPROVAL]);
  if (value === '') {
    return [
      required(
        field,
        `protected groups must have approval annotation "${APPROVAL}", ${APPROVAL_PR}`,
      ),
    ];
  }
  if (value.startsWith('unapproved') || isApprovalUrl(value)) return [];
  const why = `protected groups must have approval annotation "${APPROVAL}" with either a URL or a reason starting with "unapproved", ${APPROVAL_PR}`;
  return [invalid(field, value, why)];
}

/**
 * Formats named in a CRD's schemas that kube-apiserver 1.20 does not know. It accepts them and
 * drops them, so a value the author meant to be checked (`format: ipv4-address`) is not: kubets
 * refuses them before the CRD is written (its own rule, not kube-apiserver's).
 */
export function unknownFormatErrors(crd: JsonObject): FieldError[] {
  const spec = child(crd, 'spec') ?? {};
  const errors: FieldError[] = [];
  const walk = (schema: Schema, path: string) => {
    const format = schema.format;
    if (typeof format === 'string' && format !== '' && !isKnownFormat(format)) {
      errors.push(
        invalid(
          `${path}.format`,
          format,
          'unknown format: kube-apiserver 1.20 would drop it and check nothing (kubets refuses it)',
        ),
      );
    }
    for (const [key, prop] of properties(schema)) walk(prop, `${path}.properties[${key}]`);
    for (const key of ['items', 'additionalProperties', 'not']) {
      const sub = child(schema, key);
      if (sub) walk(sub, `${path}.${key}`);
    }
    for (const key of ['allOf', 'anyOf', 'oneOf']) {
      for (const [i, sub] of objects(schema[key]).entries()) walk(sub, `${path}.${key}[${i}]`);
    }
  };
  objects(spec.versions).forEach((v, i) => {
    const holder = child(v, 'schema');
    const schema = holder && child(holder, 'openAPIV3Schema');
    if (schema) walk(schema, `spec.versions[${i}].schema.openAPIV3Schema`);
  });
  return errors;
}

/**
 * kube-apiserver's 422 message for `causes` on a CustomResourceDefinition named `name`:
 * `CustomResourceDefinition.apiextensions.k8s.io "x" is invalid: <field>: <message>`, the causes
 * in brackets when there are several (a repeated one once, as Go's `ToAggregate` does).
 */
export function crdInvalidMessage(name: string, causes: readonly FieldError[]): string {
  const lines = [...new Set(causes.map((c) => `${c.field}: ${c.message}`))];
  const summary = lines.length === 1 ? lines[0] : `[${lines.join(', ')}]`;
  return `CustomResourceDefinition.apiextensions.k8s.io "${name}" is invalid: ${summary}`;
}
