import { beforeAll, describe, expect, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
import {
  type Cause,
  expectCrdRefused,
  expectInvalid,
  invalidValue,
} from './contract-crd-schema.js';
import { contractCalls, suffix } from './contract-helpers.js';

/**
 * The schema features of custom resources beyond types and bounds (issue 18 item 4):
 * `allOf`/`anyOf`/`oneOf`/`not`, string formats, multipleOf, min/max properties, set and map
 * lists, embedded resources, and the validation of `/status` and `/scale` writes, as
 * kube-apiserver 1.20 answered. docs/embedded-server.md names these tests.
 */

const GADGET_SCHEMA = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        one: {
          type: 'object',
          properties: { a: { type: 'string' }, b: { type: 'string' } },
          oneOf: [{ required: ['a'] }, { required: ['b'] }],
        },
        any: { type: 'integer', anyOf: [{ minimum: 10 }, { maximum: 2 }] },
        all: { type: 'integer', allOf: [{ minimum: 3 }, { multipleOf: 2 }] },
        not: { type: 'string', not: { enum: ['bad'] } },
        half: { type: 'number', multipleOf: 0.5 },
        props: {
          type: 'object',
          minProperties: 1,
          maxProperties: 2,
          additionalProperties: { type: 'string' },
        },
        i32: { type: 'integer', format: 'int32' },
        unknownFormat: { type: 'string', format: 'whatever' },
        ...Object.fromEntries(
          [
            'date-time',
            'date',
            'byte',
            'uuid',
            'email',
            'hostname',
            'ipv4',
            'ipv6',
            'cidr',
            'mac',
            'uri',
            'duration',
          ].map((format) => [format, { type: 'string', format }]),
        ),
        set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        map: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name', 'proto'],
          items: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string' },
              proto: { type: 'string', default: 'TCP' },
              v: { type: 'integer' },
            },
          },
        },
        byName: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        },
        embedded: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
      },
    },
  },
};

const ROOT_SCHEMA = {
  type: 'object',
  maxProperties: 4,
  required: ['spec'],
  properties: {
    metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } },
    kind: { type: 'string', enum: ['Root'] },
    spec: { type: 'object' },
    other: { type: 'object' },
  },
};

const DIAL_SCHEMA = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { replicas: { type: 'integer', maximum: 10 } } },
    status: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', maximum: 5 },
        phase: { type: 'string', enum: ['A', 'B'], default: 'A' },
      },
    },
  },
};

/** A cause of allOf/anyOf/oneOf/not: kube-apiserver names no field (`<nil>`). */
const composite = (message: string): Cause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: "": ${message}`,
  field: '<nil>',
});
const formatError = (field: string, format: string, value: string): Cause =>
  invalidValue(field, JSON.stringify(value), `must be of type ${format}: ${JSON.stringify(value)}`);
const duplicate = (field: string, value: string): Cause => ({
  reason: 'FieldValueDuplicate',
  message: `Duplicate value: ${value}`,
  field,
});

/** Defines the contract tests of the schema features against `getTarget()`. */
export function defineCrdSchemaFeaturesContract(getTarget: () => ContractEndpoint): void {
  const { call, create, newNamespace, eventually } = contractCalls(getTarget);
  const group = `features-${suffix()}.contract.kubets.io`;
  const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const crd = (plural: string, kind: string, schema: unknown, subresources?: unknown) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, kind },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          ...(subresources === undefined ? {} : { subresources }),
        },
      ],
    },
  });
  let gadgets = '';
  let dials = '';
  let roots = '';
  beforeAll(async () => {
    const ns = await newNamespace('crdfeatures');
    await create(crdPath, crd('gadgets', 'Gadget', GADGET_SCHEMA));
    await create(
      crdPath,
      crd('dials', 'Dial', DIAL_SCHEMA, {
        status: {},
        scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
      }),
    );
    await create(crdPath, crd('roots', 'Root', ROOT_SCHEMA));
    roots = `/apis/${group}/v1/namespaces/${ns}/roots`;
    await eventually(async () => (await call('GET', roots)).status === 200, true);
    gadgets = `/apis/${group}/v1/namespaces/${ns}/gadgets`;
    dials = `/apis/${group}/v1/namespaces/${ns}/dials`;
    await eventually(async () => (await call('GET', gadgets)).status === 200, true);
    await eventually(async () => (await call('GET', dials)).status === 200, true);
  });
  const gadget = (name: string, spec: unknown) => ({
    apiVersion: `${group}/v1`,
    kind: 'Gadget',
    metadata: { name },
    spec,
  });
  /** Expects creating a Gadget with `spec` to be refused with `causes`. */
  const refused = async (spec: unknown, causes: Cause[], anyOrder = false) => {
    const res = await call('POST', gadgets, { body: gadget('g', spec) });
    expectInvalid(res, `Gadget.${group}`, 'g', causes, anyOrder);
  };

  describe('schema composition, formats and counts', () => {
    it('lists oneOf, anyOf, allOf and not failures as kube-openapi words them, with the best alternative’s causes', async () => {
      const oneOf = '"spec.one" must validate one and only one schema (oneOf).';
      await refused({ one: { a: 'x', b: 'y' } }, [
        composite(`${oneOf} Found 2 valid alternatives`),
      ]);
      await refused({ one: {} }, [
        composite(`${oneOf} Found none valid`),
        { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.one.a' },
      ]);
      await refused({ any: 5 }, [
        composite('"spec.any" must validate at least one schema (anyOf)'),
        invalidValue('spec.any', '5', 'should be greater than or equal to 10'),
      ]);
      await refused({ all: 1 }, [
        invalidValue('spec.all', '1', 'should be greater than or equal to 3'),
        invalidValue('spec.all', '1', 'should be a multiple of 2'),
        composite('"spec.all" must validate all the schemas (allOf). None validated'),
      ]);
      await refused({ all: 5 }, [
        invalidValue('spec.all', '5', 'should be a multiple of 2'),
        composite('"spec.all" must validate all the schemas (allOf)'),
      ]);
      await refused({ not: 'bad' }, [composite('"spec.not" must not validate the schema (not)')]);
      const res = await create(gadgets, gadget('composed', { one: { a: 'x' }, any: 1, all: 4 }));
      expect(res.json.spec).toEqual({ one: { a: 'x' }, any: 1, all: 4 });
    });

    it('checks multipleOf, and min/maxProperties quoting the limit', async () => {
      await refused({ half: 0.7 }, [
        invalidValue('spec.half', '0.7', 'should be a multiple of 0.5'),
      ]);
      await refused({ props: {} }, [
        invalidValue('spec.props', '1', 'should have at least 1 properties'),
      ]);
      await refused({ props: { a: '1', b: '2', c: '3' } }, [
        invalidValue('spec.props', '2', 'should have at most 2 properties'),
      ]);
      expect(
        (await create(gadgets, gadget('counted', { half: 1.5, props: { a: '1' } }))).status,
      ).toBe(201);
    });

    it('checks the string formats 1.20 knows, and ignores int32 and unknown formats', async () => {
      const bad: Record<string, string> = {
        'date-time': '2020-01-01',
        date: '2020-13-01',
        byte: '###',
        uuid: 'x',
        email: 'nope',
        hostname: 'a.b',
        ipv4: '1.2.3',
        ipv6: '1.2.3.4',
        cidr: '10.0.0.0',
        mac: 'zz',
        uri: 'rel',
        duration: 'xx',
      };
      await refused(
        bad,
        Object.entries(bad).map(([format, value]) => formatError(`spec.${format}`, format, value)),
        true,
      );
      const good = {
        'date-time': '2020-01-01T00:00:00Z',
        date: '2020-12-01',
        byte: 'aGk=',
        uuid: '123e4567-e89b-12d3-a456-426614174000',
        email: 'a@b.c',
        hostname: 'example.com',
        ipv4: '1.2.3.4',
        ipv6: '::1',
        cidr: '10.0.0.0/8',
        mac: '00:11:22:33:44:55',
        uri: 'http://x',
        duration: '3s',
        i32: 3000000000,
        unknownFormat: 'x',
      };
      const res = await create(gadgets, gadget('formatted', good));
      expect(res.json.spec).toEqual(good);
    });
  });

  describe('the root of a custom resource', () => {
    it('validates the whole object: its metadata’s name, kind, and its own property count (no field)', async () => {
      const root = (name: string, extra: Record<string, unknown>) => ({
        apiVersion: `${group}/v1`,
        kind: 'Root',
        metadata: { name },
        ...extra,
      });
      const kind = `Root.${group}`;
      let res = await call('POST', roots, { body: root('toolongname', { spec: {} }) });
      expectInvalid(res, kind, 'toolongname', [
        invalidValue('metadata.name', '"toolongname"', 'should be at most 5 chars long'),
      ]);
      res = await call('POST', roots, { body: root('ok', { spec: {}, other: {} }) });
      expectInvalid(res, kind, 'ok', [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 4:  in body should have at most 4 properties',
          field: '<nil>',
        },
      ]);
      res = await call('POST', roots, { body: root('ok', {}) });
      expectInvalid(res, kind, 'ok', [
        { reason: 'FieldValueRequired', message: 'Required value', field: 'spec' },
      ]);
      expect((await create(roots, root('ok', { spec: {} }))).status).toBe(201);
    });
  });

  describe('set and map lists, embedded resources', () => {
    it('refuses duplicates in x-kubernetes-list-type set and map lists (after defaulting)', async () => {
      await refused({ set: ['a', 'b', 'a', 'a', 'b'] }, [
        duplicate('spec.set[2]', '"a"'),
        duplicate('spec.set[4]', '"b"'),
      ]);
      await refused(
        {
          map: [
            { name: 'a' },
            { name: 'a', proto: 'UDP' },
            { name: 'a' },
            { name: 'b', proto: 'TCP', v: 1 },
            { name: 'b', v: 2 },
          ],
        },
        [
          duplicate('spec.map[2]', 'map[string]interface {}{"name":"a", "proto":"TCP"}'),
          duplicate('spec.map[4]', 'map[string]interface {}{"name":"b", "proto":"TCP"}'),
        ],
      );
      await refused({ byName: [{ name: 'x' }, { name: 'x' }] }, [
        duplicate('spec.byName[1]', 'map[string]interface {}{"name":"x"}'),
      ]);
      const res = await create(
        gadgets,
        gadget('listed', { set: ['a', 'b'], map: [{ name: 'a' }] }),
      );
      expect(res.json.spec.map).toEqual([{ name: 'a', proto: 'TCP' }]);
    });

    it('checks an embedded resource’s apiVersion, kind and metadata', async () => {
      const required = (field: string): Cause => ({
        reason: 'FieldValueRequired',
        message: 'Required value: must not be empty',
        field,
      });
      await refused({ embedded: {} }, [
        required('spec.embedded.apiVersion'),
        required('spec.embedded.kind'),
      ]);
      const empty = (field: string): Cause => ({
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "": must not be empty',
        field,
      });
      await refused(
        { embedded: { apiVersion: '', kind: '' } },
        [empty('spec.embedded.apiVersion'), empty('spec.embedded.kind')],
        true,
      );
      await refused(
        {
          embedded: {
            apiVersion: 'a/b/c',
            kind: 'Bad_Kind',
            metadata: { annotations: { 'a b': 'c' } },
          },
        },
        [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
            field: 'spec.embedded.apiVersion',
          },
          {
            reason: 'FieldValueInvalid',
            message:
              "Invalid value: \"Bad_Kind\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
            field: 'spec.embedded.kind',
          },
          {
            reason: 'FieldValueInvalid',
            message:
              "Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            field: 'spec.embedded.metadata.annotations',
          },
        ],
        true,
      );
      // Its metadata's name is not required, nor checked as a DNS subdomain.
      const embedded = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' } };
      const res = await create(gadgets, gadget('embedding', { embedded }));
      expect(res.json.spec.embedded).toEqual(embedded);
    });

    it('decodes an embedded resource: its metadata re-encoded, a kind that is not a string a 400', async () => {
      const res = await create(
        gadgets,
        gadget('normalized', {
          embedded: {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: 'x', foo: 1, creationTimestamp: null, labels: { a: 'b' } },
            x: 1,
          },
        }),
      );
      expect(res.json.spec.embedded).toEqual({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'x', labels: { a: 'b' } },
        x: 1,
      });
      const refusedKind = await call('POST', gadgets, {
        body: gadget('g', { embedded: { apiVersion: 'v1', kind: 5 } }),
      });
      expect(refusedKind.status).toBe(400);
      expect(refusedKind.json).toMatchObject({
        reason: 'BadRequest',
        message:
          'Gadget in version "v1" cannot be handled as a Gadget: spec.embedded.kind: Invalid value: 5: must be a string',
      });
    });
  });

  describe('CustomResourceDefinition schemas: composition, lists and embedded resources', () => {
    const ROOT = 'spec.validation.openAPIV3Schema';
    const SPEC = `${ROOT}.properties[spec]`;
    /** A cause builder: `reason`, and a message of `prefix` then the why. */
    const causeOf =
      (reason: string, prefix: (value: string) => string) =>
      (field: string, why: string, value = ''): Cause => ({
        reason,
        message: `${prefix(value)}${why}`,
        field,
      });
    const forbidden = causeOf('FieldValueForbidden', () => 'Forbidden: ');
    const required = causeOf('FieldValueRequired', () => 'Required value: ');
    const invalidAs = causeOf('FieldValueInvalid', (value) => `Invalid value: ${value}: `);
    const invalid = (field: string, value: string, why: string) => invalidAs(field, why, value);
    const refuseCrd = async (
      plural: string,
      schema: unknown,
      causes: Cause[],
      anyOrder = false,
    ) => {
      const res = await call('POST', crdPath, { body: crd(plural, 'Refused', schema) });
      expectCrdRefused(res, `${plural}.${group}`, causes, anyOrder);
    };
    const withSpec = (spec: unknown) => ({ type: 'object', properties: { spec } });

    it('forbids all but value validations inside allOf, anyOf, oneOf and not (sorted), after the generic rules', async () => {
      await refuseCrd(
        'nesteds',
        withSpec({
          type: 'object',
          properties: { a: { type: 'string' } },
          allOf: [
            {
              type: 'string',
              title: 't',
              description: 'd',
              nullable: true,
              default: 'x',
              additionalProperties: { type: 'string' },
              'x-kubernetes-preserve-unknown-fields': true,
              properties: { b: { minimum: 1 }, metadata: {} },
            },
          ],
          anyOf: [{ 'x-kubernetes-list-type': 'atomic', 'x-kubernetes-int-or-string': true }],
          oneOf: [{ 'x-kubernetes-embedded-resource': true }],
          not: { 'x-kubernetes-map-type': 'atomic', 'x-kubernetes-list-map-keys': ['a'] },
        }),
        [
          required(`${SPEC}.not.type`, 'must be object if x-kubernetes-map-type is specified'),
          required(
            `${SPEC}.not.x-kubernetes-list-type`,
            'must be map if x-kubernetes-list-map-keys is non-empty',
          ),
          forbidden(
            `${SPEC}.allOf[0].additionalProperties`,
            'additionalProperties and properties are mutual exclusive',
          ),
          required(`${SPEC}.anyOf[0].type`, 'must be array if x-kubernetes-list-type is specified'),
          forbidden(`${SPEC}.allOf[0].additionalProperties`, 'must be undefined to be structural'),
          forbidden(`${SPEC}.allOf[0].default`, 'must be undefined to be structural'),
          forbidden(`${SPEC}.allOf[0].description`, 'must be empty to be structural'),
          forbidden(`${SPEC}.allOf[0].nullable`, 'must be false to be structural'),
          forbidden(
            `${SPEC}.allOf[0].properties[metadata]`,
            'must not be specified in a nested context',
          ),
          forbidden(`${SPEC}.allOf[0].title`, 'must be empty to be structural'),
          forbidden(`${SPEC}.allOf[0].type`, 'must be empty to be structural'),
          forbidden(
            `${SPEC}.allOf[0].x-kubernetes-preserve-unknown-fields`,
            'must be false to be structural',
          ),
          forbidden(
            `${SPEC}.anyOf[0].x-kubernetes-int-or-string`,
            'must be false to be structural',
          ),
          forbidden(
            `${SPEC}.anyOf[0].x-kubernetes-list-type`,
            'must be undefined to be structural',
          ),
          forbidden(`${SPEC}.not.x-kubernetes-list-map-keys`, 'must be empty to be structural'),
          forbidden(`${SPEC}.not.x-kubernetes-map-type`, 'must be undefined to be structural'),
          forbidden(
            `${SPEC}.oneOf[0].x-kubernetes-embedded-resource`,
            'must be false to be structural',
          ),
        ],
      );
    });

    it('requires what the root’s allOf names to be specified outside it, and an object root', async () => {
      await refuseCrd(
        'incompletes',
        {
          type: 'object',
          properties: { spec: { type: 'object' } },
          allOf: [
            {
              properties: {
                spec: { properties: { b: { minimum: 1 } } },
                other: { maxLength: 3 },
              },
            },
          ],
        },
        [
          required(
            `${ROOT}.properties[other]`,
            `because it is defined in ${ROOT}.allOf[0].properties[other]`,
          ),
          required(
            `${SPEC}.properties[b]`,
            `because it is defined in ${ROOT}.allOf[0].properties[spec].properties[b]`,
          ),
        ],
      );
      await refuseCrd('strings', { type: 'string' }, [
        invalid(`${ROOT}.type`, '"string"', 'must be object at the root'),
      ]);
    });

    it('forbids uniqueItems, and checks array items and embedded resources', async () => {
      await refuseCrd(
        'uniques',
        withSpec({
          type: 'object',
          properties: {
            u: { type: 'array', uniqueItems: true, items: { type: 'string' } },
            n: { type: 'array' },
            e: { type: 'string', 'x-kubernetes-embedded-resource': true },
            f: { type: 'object', 'x-kubernetes-embedded-resource': true },
          },
        }),
        [
          forbidden(
            `${SPEC}.properties[u].uniqueItems`,
            'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
          ),
          required(
            `${SPEC}.properties[e].properties`,
            'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
          ),
          invalid(
            `${SPEC}.properties[e].type`,
            '"string"',
            'must be object if x-kubernetes-embedded-resource is true',
          ),
          required(
            `${SPEC}.properties[f].properties`,
            'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
          ),
          required(`${SPEC}.properties[n].items`, 'must be specified'),
        ],
      );
    });

    it('forbids JSON-Schema keywords CRDs do not support, and a nullable root', async () => {
      const P = (key: string) => `${SPEC}.properties[${key}]`;
      await refuseCrd(
        'unsupporteds',
        {
          type: 'object',
          nullable: true,
          properties: {
            spec: {
              type: 'object',
              properties: {
                a: { type: 'string', id: 'x' },
                b: {
                  type: 'array',
                  items: { type: 'string' },
                  additionalItems: { type: 'string' },
                },
                c: { type: 'object', patternProperties: { '^x': { type: 'string' } } },
                d: { type: 'object', definitions: { q: { type: 'string' } } },
                e: { type: 'object', dependencies: { a: ['b'] } },
                f: { $ref: '#/x' },
                g: { type: 'null' },
                h: { type: 'array', items: [{ type: 'string' }] },
              },
            },
          },
        },
        [
          forbidden(`${ROOT}.nullable`, 'nullable cannot be true at the root'),
          forbidden(`${P('a')}.id`, 'id is not supported'),
          forbidden(`${P('b')}.additionalItems`, 'additionalItems is not supported'),
          forbidden(`${P('c')}.patternProperties`, 'patternProperties is not supported'),
          forbidden(`${P('d')}.definitions`, 'definitions is not supported'),
          forbidden(`${P('e')}.dependencies`, 'dependencies is not supported'),
          forbidden(`${P('f')}.$ref`, '$ref is not supported'),
          {
            reason: 'FieldValueNotSupported',
            message:
              'Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"',
            field: `${P('g')}.type`,
          },
          forbidden(`${P('g')}.type`, 'type cannot be set to null, use nullable as an alternative'),
          forbidden(`${P('h')}.items`, 'items must be a schema object and not an array'),
        ],
        // The properties come in Go map order; no structural cause follows (none can be built).
        true,
      );
    });

    it('checks x-kubernetes-list-type, -list-map-keys and -map-type', async () => {
      const keyDefault =
        'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property';
      const keyNullable =
        'this property is in x-kubernetes-list-map-keys, so it cannot be nullable';
      const M = `${SPEC}.properties[m]`;
      await refuseCrd(
        'listtypes',
        withSpec({
          type: 'object',
          properties: {
            s: {
              type: 'array',
              'x-kubernetes-list-type': 'set',
              items: { type: 'object', nullable: true },
            },
            m: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['k', 'z', 'k'],
              items: {
                type: 'object',
                properties: { k: { type: 'string', nullable: true }, o: { type: 'object' } },
              },
            },
            m2: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'string' } },
            bad: { type: 'array', 'x-kubernetes-list-type': 'list', items: { type: 'string' } },
            mk: { type: 'array', 'x-kubernetes-list-map-keys': ['a'], items: { type: 'string' } },
            mt: { type: 'string', 'x-kubernetes-map-type': 'weird' },
          },
        }),
        [
          invalid(
            `${SPEC}.properties[s].items.x-kubernetes-map-type`,
            '"null"',
            'must be atomic as item of a list with x-kubernetes-list-type=set',
          ),
          forbidden(
            `${SPEC}.properties[s].items.nullable`,
            'cannot be nullable when x-kubernetes-list-type is set',
          ),
          invalid(
            `${M}.x-kubernetes-list-map-keys`,
            '[]string{"k", "z", "k"}',
            'entries must all be names of item properties',
          ),
          invalid(
            `${M}.x-kubernetes-list-map-keys`,
            '[]string{"k", "z", "k"}',
            'must not contain duplicate entries',
          ),
          required(`${M}.items.properties[k].default`, keyDefault),
          forbidden(`${M}.items.properties[k].nullable`, keyNullable),
          required(`${M}.items.properties[k].default`, keyDefault),
          forbidden(`${M}.items.properties[k].nullable`, keyNullable),
          required(
            `${SPEC}.properties[m2].x-kubernetes-list-map-keys`,
            'must not be empty if x-kubernetes-list-type is map',
          ),
          invalid(
            `${SPEC}.properties[m2].items.type`,
            '"string"',
            "must be object if parent array's x-kubernetes-list-type is map",
          ),
          {
            reason: 'FieldValueNotSupported',
            message: 'Unsupported value: "list": supported values: "atomic", "set", "map"',
            field: `${SPEC}.properties[bad].x-kubernetes-list-type`,
          },
          required(
            `${SPEC}.properties[mk].x-kubernetes-list-type`,
            'must be map if x-kubernetes-list-map-keys is non-empty',
          ),
          invalid(
            `${SPEC}.properties[mt].type`,
            '"string"',
            'must be object if x-kubernetes-map-type is specified',
          ),
          {
            reason: 'FieldValueNotSupported',
            message: 'Unsupported value: "weird": supported values: "atomic", "granular"',
            field: `${SPEC}.properties[mt].x-kubernetes-map-type`,
          },
        ],
        // kube-apiserver walks the properties in Go map order.
        true,
      );
    });
  });

  describe('status and scale writes', () => {
    const patchStatus = (name: string, status: unknown) =>
      call('PATCH', `${dials}/${name}/status`, {
        body: { status },
        headers: { 'content-type': 'application/merge-patch+json' },
      });

    it('validates, prunes and defaults a /status write against the schema', async () => {
      await create(dials, {
        apiVersion: `${group}/v1`,
        kind: 'Dial',
        metadata: { name: 'd1' },
        spec: { replicas: 1 },
      });
      expectInvalid(
        await patchStatus('d1', { replicas: 7, phase: 'C' }),
        `Dial.${group}`,
        'd1',
        [
          invalidValue('status.replicas', '7', 'should be less than or equal to 5'),
          {
            reason: 'FieldValueNotSupported',
            message: 'Unsupported value: "C": supported values: "A", "B"',
            field: 'status.phase',
          },
        ],
        true,
      );
      expectInvalid(await patchStatus('d1', { replicas: -1 }), `Dial.${group}`, 'd1', [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: -1: should be a non-negative integer',
          field: '.status.replicas',
        },
      ]);
      const res = await patchStatus('d1', { replicas: 2, extra: 1 });
      expect(res.status).toBe(200);
      expect(res.json.status).toEqual({ replicas: 2, phase: 'A' });
    });

    it('refuses a negative spec replicas on create, and a Scale beyond the schema’s maximum (422)', async () => {
      const res = await call('POST', dials, {
        body: {
          apiVersion: `${group}/v1`,
          kind: 'Dial',
          metadata: { name: 'd2' },
          spec: { replicas: -1 },
          // The status of a create is dropped before validation.
          status: { replicas: -5 },
        },
      });
      expectInvalid(res, `Dial.${group}`, 'd2', [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: -1: should be a non-negative integer',
          field: '.spec.replicas',
        },
      ]);
      await create(dials, {
        apiVersion: `${group}/v1`,
        kind: 'Dial',
        metadata: { name: 'd3' },
        spec: { replicas: 1 },
      });
      const scaled = await call('PUT', `${dials}/d3/scale`, {
        body: {
          apiVersion: 'autoscaling/v1',
          kind: 'Scale',
          metadata: { name: 'd3' },
          spec: { replicas: 20 },
        },
      });
      expectInvalid(scaled, `Dial.${group}`, 'd3', [
        invalidValue('spec.replicas', '20', 'should be less than or equal to 10'),
      ]);
    });
  });
}
