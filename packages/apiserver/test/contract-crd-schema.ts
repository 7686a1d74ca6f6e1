import { beforeAll, describe, expect, it } from 'vitest';
import type { ContractEndpoint, RawResponse } from './contract-client.js';
import { contractCalls, expectFailure, suffix } from './contract-helpers.js';

/**
 * Custom resources against their CRD's structural schema (issue 18 item 4): pruning,
 * defaulting, validation causes, and CRDs refused for their schema, as kube-apiserver 1.20
 * answered. It walks a schema's properties in Go map order (random), so where several fields
 * fail the causes are compared in any order. docs/embedded-server.md names these tests.
 */

const SCHEMA = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'integer', minimum: 1, maximum: 10 },
        color: { type: 'string', enum: ['red', 'blue'], default: 'red' },
        name: { type: 'string', pattern: '^[a-z]+$', maxLength: 5 },
        ratio: { type: 'number' },
        on: { type: 'boolean', default: false },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
        port: { 'x-kubernetes-int-or-string': true },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        nested: { type: 'object', default: {}, properties: { a: { type: 'integer', default: 3 } } },
      },
    },
  },
};

/** A Status cause. */
export type Cause = { reason: string; message: string; field: string };
const typeError = (field: string, actual: string, type: string): Cause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: "${actual}": ${field} in body must be of type ${type}: "${actual}"`,
  field,
});
/** A schema cause: `Invalid value: <value>: <field> in body <problem>`. */
export const invalidValue = (field: string, value: string, problem: string): Cause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${value}: ${field} in body ${problem}`,
  field,
});

/** `value` with every object's keys sorted, as Go's encoding/json writes a map. */
const sortedKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]),
  );
};

const sortCauses = (causes: Cause[]): Cause[] =>
  [...causes].sort((a, b) => `${a.field}${a.message}`.localeCompare(`${b.field}${b.message}`));

/** Expects a 422 for `kind "name"` whose causes are `causes`, in order unless `anyOrder`. */
export function expectInvalid(
  res: RawResponse,
  kind: string,
  name: string,
  causes: Cause[],
  anyOrder = false,
): void {
  expectFailure(res, 422, { reason: 'Invalid' });
  expect(res.json.message).toMatch(
    new RegExp(`^${kind.replace(/\./g, '\\.')} "${name}" is invalid: `),
  );
  const got = res.json.details.causes as Cause[];
  expect(anyOrder ? sortCauses(got) : got).toEqual(anyOrder ? sortCauses(causes) : causes);
  if (causes.length === 1) {
    expect(res.json.message).toBe(
      `${kind} "${name}" is invalid: ${causes[0]?.field}: ${causes[0]?.message}`,
    );
  }
}

/** Expects the 422 refusing CustomResourceDefinition `name` with `causes`. */
export function expectCrdRefused(
  res: RawResponse,
  name: string,
  causes: Cause[],
  anyOrder = false,
): void {
  expectInvalid(res, 'CustomResourceDefinition.apiextensions.k8s.io', name, causes, anyOrder);
}

/** Defines the CRD schema contract tests against `getTarget()`. */
export function defineCrdSchemaContract(getTarget: () => ContractEndpoint): void {
  const { call, create, newNamespace, eventually } = contractCalls(getTarget);
  const group = `schema-${suffix()}.contract.kubets.io`;
  const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const crd = (plural: string, versions: unknown[]) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: { group, scope: 'Namespaced', names: { plural, kind: 'Widget' }, versions },
  });
  const version = (name: string, schema: unknown) => ({
    name,
    served: true,
    storage: name === 'v1',
    ...(schema === undefined ? {} : { schema: { openAPIV3Schema: schema } }),
  });
  let path = '';
  const widget = (name: string, spec: unknown, extra: Record<string, unknown> = {}) => ({
    apiVersion: `${group}/v1`,
    kind: 'Widget',
    metadata: { name },
    spec,
    ...extra,
  });
  beforeAll(async () => {
    const ns = await newNamespace('crdschema');
    await create(crdPath, crd('widgets', [version('v1', SCHEMA)]));
    path = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    await eventually(async () => (await call('GET', path)).status === 200, true);
  });
  const kind = () => `Widget.${group}`;

  describe('custom resources against their structural schema', () => {
    it('prunes unknown fields, keeps preserved ones, drops nulls and fills in defaults', async () => {
      const res = await create(
        path,
        widget(
          'pruned',
          { size: 3, unknown: 1, extra: { x: { y: 1 } }, port: 'http', tags: null },
          { top: 1 },
        ),
      );
      expect(res.json.top).toBeUndefined();
      expect(res.json.spec).toEqual({
        size: 3,
        color: 'red',
        on: false,
        extra: { x: { y: 1 } },
        nested: { a: 3 },
        port: 'http',
      });
      // An update is pruned and defaulted again.
      const updated = await call('PUT', `${path}/pruned`, {
        body: { ...res.json, spec: { size: 4, unknown: 2 } },
      });
      expect(updated.status).toBe(200);
      expect(updated.json.spec).toEqual({ size: 4, color: 'red', on: false, nested: { a: 3 } });
    });

    it('refuses wrong types, missing required fields and bad patterns (422)', async () => {
      let res = await call('POST', path, { body: widget('w', { size: '3' }) });
      expectInvalid(res, kind(), 'w', [typeError('spec.size', 'string', 'integer')]);
      res = await call('POST', path, { body: widget('w', {}) });
      expectInvalid(res, kind(), 'w', [
        { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.size' },
      ]);
      res = await call('POST', path, { body: widget('w', 'x') });
      expectInvalid(res, kind(), 'w', [typeError('spec', 'string', 'object')]);
      res = await call('POST', path, { body: widget('w', { size: 0.5 }) });
      expectInvalid(res, kind(), 'w', [
        typeError('spec.size', 'number', 'integer'),
        invalidValue('spec.size', '0.5', 'should be greater than or equal to 1'),
      ]);
      res = await call('POST', path, { body: widget('w', { size: 2, name: 'AB' }) });
      expectInvalid(res, kind(), 'w', [
        invalidValue('spec.name', '"AB"', "should match '^[a-z]+$'"),
      ]);
      res = await call('POST', path, { body: widget('w', { size: 2, tags: ['a', 1] }) });
      expectInvalid(res, kind(), 'w', [typeError('spec.tags', 'integer', 'string')]);
    });

    it('checks enum, bounds, lengths, item counts, int-or-string and additionalProperties', async () => {
      const res = await call('POST', path, {
        body: widget('w', {
          size: 11,
          color: 'green',
          name: 'ABCDEFG',
          tags: ['a', 'b', 'c'],
          ratio: 'x',
          on: 'yes',
          port: true,
          labels: { a: 1 },
        }),
      });
      expectInvalid(
        res,
        kind(),
        'w',
        [
          {
            reason: 'FieldValueNotSupported',
            message: 'Unsupported value: "green": supported values: "red", "blue"',
            field: 'spec.color',
          },
          invalidValue('spec.tags', '3', 'should have at most 2 items'),
          typeError('spec.on', 'string', 'boolean'),
          typeError('spec.ratio', 'string', 'number'),
          typeError('spec.labels.a', 'integer', 'string'),
          typeError('spec.port', 'boolean', 'integer,string'),
          invalidValue('spec.name', '"ABCDEFG"', 'should be at most 5 chars long'),
          invalidValue('spec.size', '11', 'should be less than or equal to 10'),
        ],
        true,
      );
    });
  });

  describe('patches that break a custom resource', () => {
    it('answers a patch that removes kind with the 422 quoting the decoder, and one that removes apiVersion with 500', async () => {
      await create(path, widget('unkinded', { size: 1 }));
      const stored = (await call('GET', `${path}/unkinded`)).json as Record<string, unknown>;
      delete stored.kind;
      // kube-apiserver re-encodes the patched object (keys sorted) and decodes it again.
      const raw = JSON.stringify(sortedKeys(stored));
      const bytes = Buffer.from(raw, 'utf8');
      const tail = (n: number) => bytes.subarray(bytes.length - n).toString('utf8');
      const message = `Invalid value: ${JSON.stringify(raw)}: unmarshalerDecoder: Object 'Kind' is missing in '${raw}', error found in #10 byte of ...|${tail(10)}|..., bigger context ...|${tail(50)}|...`;
      for (const [type, patch] of [
        ['application/merge-patch+json', { kind: null }],
        ['application/json-patch+json', [{ op: 'remove', path: '/kind' }]],
      ] as const) {
        const res = await call('PATCH', `${path}/unkinded`, {
          body: patch,
          headers: { 'content-type': type },
        });
        expectFailure(res, 422, { reason: 'Invalid' });
        expect(res.json.message).toBe(` "" is invalid: patch: ${message}`);
        expect(res.json.details).toEqual({
          causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }],
        });
      }
      expectFailure(
        await call('PATCH', `${path}/unkinded`, {
          body: { apiVersion: null },
          headers: { 'content-type': 'application/merge-patch+json' },
        }),
        500,
        {
          reason: 'InternalError',
          message:
            "Internal error occurred: Object 'apiVersion' is missing in 'object has no apiVersion field'",
        },
      );
    });
  });

  describe('CustomResourceDefinition schemas', () => {
    const refuse = async (
      plural: string,
      versions: unknown[],
      causes: Cause[],
      anyOrder = false,
    ) => {
      const res = await call('POST', crdPath, { body: crd(plural, versions) });
      expectCrdRefused(res, `${plural}.${group}`, causes, anyOrder);
    };
    const required = (field: string, why: string): Cause => ({
      reason: 'FieldValueRequired',
      message: `Required value: ${why}`,
      field,
    });
    const ROOT = 'spec.validation.openAPIV3Schema';
    /** The field `spec.x` of a one-version schema, and its path in the causes. */
    const withField = (x: unknown) =>
      version('v1', {
        type: 'object',
        properties: { spec: { type: 'object', properties: { x } } },
      });
    const X = `${ROOT}.properties[spec].properties[x]`;

    it('requires a schema for every version (422)', async () => {
      await refuse(
        'noschemas',
        [version('v1', undefined)],
        [required('spec.versions[0].schema.openAPIV3Schema', 'schemas are required')],
      );
    });

    it('refuses schemas that are not structural, or whose defaults have the wrong type (422)', async () => {
      await refuse(
        'notyped',
        [version('v1', { type: 'object', properties: { spec: { properties: { x: {} } } } })],
        [
          required(
            `${ROOT}.properties[spec].properties[x].type`,
            'must not be empty for specified object fields',
          ),
          required(
            `${ROOT}.properties[spec].type`,
            'must not be empty for specified object fields',
          ),
        ],
      );
      await refuse(
        'noroottype',
        [version('v1', { properties: { spec: { type: 'object' } } })],
        [required(`${ROOT}.type`, 'must not be empty at the root')],
      );
      await refuse(
        'badtype',
        [withField({ type: 'strin' })],
        [
          {
            reason: 'FieldValueNotSupported',
            message:
              'Unsupported value: "strin": supported values: "array", "boolean", "integer", "number", "object", "string"',
            field: `${X}.type`,
          },
        ],
      );
      await refuse(
        'both',
        [
          withField({
            type: 'object',
            additionalProperties: { type: 'string' },
            properties: { a: { type: 'string' } },
          }),
        ],
        [
          {
            reason: 'FieldValueForbidden',
            message: 'Forbidden: additionalProperties and properties are mutual exclusive',
            field: `${X}.additionalProperties`,
          },
        ],
      );
      await refuse(
        'baddefault',
        [withField({ type: 'string', default: 5 })],
        [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: "integer":  in body must be of type string: "integer"',
            field: `${X}.default`,
          },
        ],
      );
    });

    it('names the version when versions have different schemas (422)', async () => {
      await refuse(
        'twoversions',
        [
          version('v1', { type: 'object' }),
          { ...version('v2', { type: 'object', properties: { spec: {} } }), storage: false },
        ],
        [
          required(
            'spec.versions[1].schema.openAPIV3Schema.properties[spec].type',
            'must not be empty for specified object fields',
          ),
        ],
      );
    });
  });
}
