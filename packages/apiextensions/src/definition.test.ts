// The causes of kube-apiserver 1.20's CRD create checks. The texts were read from a real
// kube-apiserver 1.20: packages/crd/src/crd.e2e.test.ts sends such CRDs to one and compares.
import { describe, expect, it } from 'vitest';
import {
  crdInvalidMessage,
  type FieldError,
  type JsonObject,
  unknownFormatErrors,
  validateCustomResourceDefinition,
} from './index.js';

const SCHEMA = {
  type: 'object',
  properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } } },
};

/** A valid CRD of `widgets.example.com`, with `spec` and version overrides. */
function crd(spec: JsonObject = {}, version: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: SCHEMA },
          ...version,
        },
      ],
      ...spec,
    },
  };
}

const lines = (causes: FieldError[]) => causes.map((c) => `${c.field}: ${c.message}`);
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

describe('validateCustomResourceDefinition', () => {
  it('accepts a valid CRD, v1 defaults (singular, listKind) applied first', () => {
    expect(validateCustomResourceDefinition(crd())).toEqual([]);
  });

  it('requires the name to be plural.group', () => {
    const named = { ...crd(), metadata: { name: 'widget.example.com' } };
    expect(lines(validateCustomResourceDefinition(named))).toEqual([
      'metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group',
    ]);
  });

  it('requires a group that is a DNS subdomain with a dot, and a known scope', () => {
    expect(
      lines(
        validateCustomResourceDefinition({
          ...crd({ group: 'example', scope: 'Everywhere' }),
          metadata: { name: 'widgets.example' },
        }),
      ),
    ).toEqual([
      'spec.group: Invalid value: "example": should be a domain with at least one dot',
      'spec.scope: Unsupported value: "Everywhere": supported values: "Cluster", "Namespaced"',
    ]);
  });

  it('checks version names, short names and categories as DNS-1035 labels', () => {
    const causes = validateCustomResourceDefinition(
      crd(
        { names: { plural: 'widgets', kind: 'Widget', shortNames: ['w_1'], categories: ['All'] } },
        { name: 'V1' },
      ),
    );
    expect(lines(causes)).toEqual([
      `spec.versions[0].name: Invalid value: "V1": ${DNS1035}`,
      `spec.version: Invalid value: "V1": ${DNS1035}`,
      `spec.names.shortNames[0]: Invalid value: "w_1": ${DNS1035}`,
      `spec.names.categories[0]: Invalid value: "All": ${DNS1035}`,
    ]);
  });

  it('refuses a kind equal to its list kind', () => {
    const causes = validateCustomResourceDefinition(
      crd({ names: { plural: 'widgets', kind: 'Widget', listKind: 'Widget' } }),
    );
    expect(lines(causes)).toEqual([
      'spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same',
    ]);
  });

  it('checks the scale paths and printer columns shared by every version at the top level', () => {
    const causes = validateCustomResourceDefinition(
      crd(
        {},
        {
          subresources: { scale: { specReplicasPath: '.status.r', statusReplicasPath: '' } },
          additionalPrinterColumns: [{ name: '', type: 'text', format: 'hex', jsonPath: 'x' }],
        },
      ),
    );
    expect(lines(causes)).toEqual([
      'spec.subresources.scale.specReplicasPath: Invalid value: ".status.r": should be a json path under .spec',
      'spec.subresources.scale.statusReplicasPath: Required value',
      'spec.additionalPrinterColumns[0].name: Required value',
      'spec.additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
      'spec.additionalPrinterColumns[0].format: Invalid value: "hex": must be one of byte,date,date-time,double,float,int32,int64,password',
      'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "x": must be a simple json path starting with .',
    ]);
  });

  it('names the version of a schema when versions differ, and the shared path when they agree', () => {
    const bad = { type: 'object', properties: { spec: {} } };
    const shared = validateCustomResourceDefinition(crd({}, { schema: { openAPIV3Schema: bad } }));
    expect(lines(shared)).toEqual([
      'spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
    ]);
    const twoVersions = crd({
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: SCHEMA } },
        { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: bad } },
      ],
    });
    expect(lines(validateCustomResourceDefinition(twoVersions))).toEqual([
      'spec.versions[1].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
    ]);
  });

  it('with the status subresource, allows only an object type at the schema root', () => {
    const causes = validateCustomResourceDefinition(
      crd(
        {},
        {
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'array', items: { type: 'string' } } },
        },
      ),
    );
    expect(lines(causes)[0]).toBe(
      'spec.validation.openAPIV3Schema.type: Invalid value: "array": only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
    );
  });
});

describe('protected groups', () => {
  const inGroup = (group: string, annotations?: JsonObject) => ({
    ...crd({ group }),
    metadata: { name: `widgets.${group}`, ...(annotations ? { annotations } : {}) },
  });

  it('require the api-approved.kubernetes.io annotation under k8s.io and kubernetes.io', () => {
    expect(lines(validateCustomResourceDefinition(inGroup('demo.k8s.io')))).toEqual([
      'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    ]);
    expect(
      lines(
        validateCustomResourceDefinition(
          inGroup('x.kubernetes.io', { 'api-approved.kubernetes.io': 'yes' }),
        ),
      ),
    ).toEqual([
      'metadata.annotations[api-approved.kubernetes.io]: Invalid value: "yes": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
    ]);
  });

  it('accept a URL or a reason starting with unapproved, and leave other groups alone', () => {
    for (const value of [
      'https://github.com/kubernetes/enhancements/pull/1111',
      'unapproved, tests',
    ]) {
      const approved = inGroup('demo.k8s.io', { 'api-approved.kubernetes.io': value });
      expect(validateCustomResourceDefinition(approved)).toEqual([]);
    }
    expect(validateCustomResourceDefinition(inGroup('k8s.example.com'))).toEqual([]);
  });
});

describe('unknownFormatErrors', () => {
  it('names formats kube-apiserver 1.20 would drop, anywhere in a schema', () => {
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            a: { type: 'string', format: 'date-time' },
            b: { type: 'integer', format: 'int32' },
            c: { type: 'array', items: { type: 'string', format: 'ip-address' } },
          },
        },
      },
    };
    expect(
      unknownFormatErrors(crd({}, { schema: { openAPIV3Schema: schema } })).map((c) => c.field),
    ).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[c].items.format',
    ]);
  });
});

describe('crdInvalidMessage', () => {
  const cause = (field: string): FieldError => ({
    reason: 'FieldValueRequired',
    message: 'Required value',
    field,
  });

  it('prints one cause bare and several in brackets, each once', () => {
    expect(crdInvalidMessage('w.example.com', [cause('spec.group')])).toBe(
      'CustomResourceDefinition.apiextensions.k8s.io "w.example.com" is invalid: spec.group: Required value',
    );
    expect(crdInvalidMessage('w.example.com', [cause('a'), cause('b'), cause('a')])).toBe(
      'CustomResourceDefinition.apiextensions.k8s.io "w.example.com" is invalid: [a: Required value, b: Required value]',
    );
  });
});
