import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCrds } from './crd.js';
import { CodegenError, CodegenSyntaxError } from './errors.js';
import { generateFromCrd } from './generate.js';

const here = dirname(fileURLToPath(import.meta.url));

const mydemoV1 = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: mydemos.crddemo.k8s.io
spec:
  group: crddemo.k8s.io
  names:
    kind: Mydemo
    plural: mydemos
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                ip:
                  type: string
                port:
                  type: integer
`;

async function errorOf(text: string, fileName = 'mydemo.yaml'): Promise<CodegenError> {
  try {
    await generateFromCrd(text, { fileName, format: false });
  } catch (err) {
    expect(err).toBeInstanceOf(CodegenError);
    return err as CodegenError;
  }
  throw new Error('expected generation to fail');
}

describe('invalid input names the file and the path inside it', () => {
  it('accepts the valid CRD these cases are made from', async () => {
    const files = await generateFromCrd(mydemoV1, { fileName: 'mydemo.yaml', format: false });
    expect(files.get('crddemo.k8s.io/v1/types.ts')).toContain('port?: number;');
  });

  it('unknown schema type', async () => {
    const err = await errorOf(mydemoV1.replace('type: integer', 'type: integr'));
    expect(err.message).toBe(
      'mydemo.yaml: spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.port.type: unknown type "integr" (expected one of object, array, string, integer, number, boolean) (line 25)',
    );
    expect(err.path).toBe(
      'spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.port.type',
    );
    expect(err.line).toBe(25);
    expect(err.file).toBe('mydemo.yaml');
  });

  it('not a CRD', async () => {
    const err = await errorOf(
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n',
      'deploy.yaml',
    );
    expect(err.message).toBe(
      'deploy.yaml: kind: not a CustomResourceDefinition: kind is "Deployment" (line 2)',
    );
  });

  it('unsupported apiextensions version', async () => {
    const err = await errorOf(
      mydemoV1.replace('apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v2'),
    );
    expect(err.message).toMatch(
      /^mydemo\.yaml: apiVersion: unsupported apiVersion "apiextensions\.k8s\.io\/v2"/,
    );
  });

  it('missing names.plural', async () => {
    const err = await errorOf(mydemoV1.replace('    plural: mydemos\n', ''));
    expect(err.message).toBe('mydemo.yaml: spec.names: missing "plural" (line 8)');
  });

  it('metadata.name must be <plural>.<group>', async () => {
    const err = await errorOf(
      mydemoV1.replace('name: mydemos.crddemo.k8s.io', 'name: demos.crddemo.k8s.io'),
    );
    expect(err.message).toBe(
      'mydemo.yaml: metadata.name: must be "<plural>.<group>", i.e. "mydemos.crddemo.k8s.io", not "demos.crddemo.k8s.io" (line 4)',
    );
  });

  it('invalid scope, kind and version names', async () => {
    expect((await errorOf(mydemoV1.replace('scope: Namespaced', 'scope: Global'))).message).toBe(
      'mydemo.yaml: spec.scope: invalid scope "Global": expected Namespaced or Cluster (line 10)',
    );
    expect((await errorOf(mydemoV1.replace('kind: Mydemo', 'kind: my-demo'))).path).toBe(
      'spec.names.kind',
    );
    expect((await errorOf(mydemoV1.replace('- name: v1', '- name: V1'))).message).toMatch(
      /^mydemo\.yaml: spec\.versions\[0\]\.name: invalid version name "V1"/,
    );
    // Names as kube-apiserver checks them (@kubets/apimachinery's rules): lengths included.
    const longVersion = `v${'1'.repeat(63)}`;
    expect(
      (await errorOf(mydemoV1.replace('- name: v1', `- name: ${longVersion}`))).message,
    ).toMatch(`invalid version name "${longVersion}"`);
    expect((await errorOf(mydemoV1.replace('- name: v1', '- name: 1v'))).path).toBe(
      'spec.versions[0].name',
    );
    expect((await errorOf(mydemoV1.replace('      served: true\n', ''))).message).toBe(
      'mydemo.yaml: spec.versions[0]: missing "served" (line 12)',
    );
  });

  it('YAML syntax errors carry the line', async () => {
    const err = await errorOf(mydemoV1.replace('    plural: mydemos', '    plural: [mydemos'));
    expect(err).toBeInstanceOf(CodegenSyntaxError);
    // The unterminated flow sequence on line 9 is detected where the next key starts.
    expect(err.message).toBe(
      'mydemo.yaml: line 10, column 3: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]',
    );
    expect(err.line).toBe(10);
    const dup = await errorOf(
      mydemoV1.replace('  scope: Namespaced', '  scope: Namespaced\n  scope: Cluster'),
    );
    expect(dup.message).toMatch(
      /^mydemo\.yaml: line 11, column 3: YAML syntax error: Map keys must be unique/,
    );
  });

  it('schema errors: $ref, tuples, enum values of the wrong type, bad required', async () => {
    const port = 'port:\n                  type: integer';
    const withPort = (replacement: string): string =>
      mydemoV1.replace(port, `port:\n${replacement}`);
    expect((await errorOf(withPort('                  $ref: "#/definitions/Port"'))).message).toBe(
      'mydemo.yaml: spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.port.$ref: "$ref" is not allowed in a CRD schema (line 25)',
    );
    expect(
      (
        await errorOf(
          withPort('                  type: array\n                  items: [{type: string}]'),
        )
      ).path,
    ).toBe('spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.port.items');
    expect(
      (
        await errorOf(
          withPort('                  type: integer\n                  enum: [80, "http"]'),
        )
      ).message,
    ).toBe(
      'mydemo.yaml: spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.port.enum[1]: string "http" is not a valid integer value (line 26)',
    );
    expect(
      (await errorOf(withPort('                  type: integer\n                  enum: [1.5]')))
        .reason,
    ).toBe('number 1.5 is not a valid integer value');
    expect(
      (
        await errorOf(
          mydemoV1.replace(
            '          type: object\n          properties:\n            spec:',
            '          type: object\n          required: spec\n          properties:\n            spec:',
          ),
        )
      ).message,
    ).toBe(
      'mydemo.yaml: spec.versions[0].schema.openAPIV3Schema.required: expected a list of property names, got string "spec" (line 18)',
    );
    expect(
      (
        await errorOf(
          mydemoV1.replace(
            '                ip:\n                  type: string',
            '                ip: string',
          ),
        )
      ).message,
    ).toBe(
      'mydemo.yaml: spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.ip: expected a schema (a mapping), got string "string" (line 22)',
    );
  });

  it('names the document of a multi-document file', async () => {
    const text = `${mydemoV1}---\n${mydemoV1
      .replace(/mydemos/g, 'others')
      .replace('kind: Mydemo', 'kind: Other')
      .replace('type: integer', 'type: int')}`;
    const err = await errorOf(text);
    expect(err.message).toMatch(
      /^mydemo\.yaml: document 2: spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\.spec\.properties\.port\.type: unknown type "int" .*\(line 51\)$/,
    );
    expect(err.document).toBe(2);
  });

  it('rejects two CRDs defining the same kind in one group/version', async () => {
    const err = await errorOf(`${mydemoV1}---\n${mydemoV1.replace(/mydemos/g, 'mydemoz')}`);
    expect(err.message).toMatch(
      /^mydemo\.yaml: document 2: spec\.names: kind "Mydemo" clashes with mydemo\.yaml \(document 1\) in crddemo\.k8s\.io\/v1/,
    );
  });
});

describe('parseCrds', () => {
  it('reads the seed CRD (v1beta1, top-level version, no schema)', () => {
    const text = readFileSync(join(here, '../test/testdata', 'mydemo-v1beta1.yaml'), 'utf8');
    const [crd, ...rest] = parseCrds(text, 'mydemo-v1beta1.yaml');
    expect(rest).toHaveLength(0);
    expect(crd?.model).toMatchObject({
      name: 'mydemos.crddemo.k8s.io',
      group: 'crddemo.k8s.io',
      kind: 'Mydemo',
      listKind: 'MydemoList',
      plural: 'mydemos',
      singular: 'mydemo',
      namespaced: true,
      versions: [{ name: 'v1', storage: true, schema: undefined, subresources: [] }],
    });
  });

  it('reads v1beta1 top-level validation and subresources, skips unserved versions and empty documents', () => {
    const text = `---
apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata:
  name: things.example.com
spec:
  group: example.com
  version: v2
  versions:
    - name: v2
      served: true
      storage: true
    - name: v1
      served: false
      storage: false
  names:
    kind: Thing
    plural: things
  scope: Cluster
  subresources:
    status: {}
  validation:
    openAPIV3Schema:
      type: object
      properties:
        spec:
          type: object
---
`;
    const crds = parseCrds(text, 'things.yaml');
    expect(crds).toHaveLength(1);
    expect(crds[0]?.model.namespaced).toBe(false);
    expect(crds[0]?.model.versions.map((v) => v.name)).toEqual(['v2']);
    expect(crds[0]?.model.versions[0]?.subresources).toEqual(['status']);
    expect(crds[0]?.model.versions[0]?.schemaPath).toEqual([
      'spec',
      'validation',
      'openAPIV3Schema',
    ]);
  });

  it('reads CRDs from a kind: List (kubectl get -o yaml)', () => {
    const item = mydemoV1.replace(/^/gm, '    ').trimStart();
    const crds = parseCrds(`apiVersion: v1\nkind: List\nitems:\n  - ${item}`, 'list.yaml');
    expect(crds.map((c) => c.model.kind)).toEqual(['Mydemo']);
    expect(() =>
      parseCrds(
        `apiVersion: v1\nkind: List\nitems:\n  - ${item.replace('plural: mydemos', 'plural: My_Demos')}`,
        'list.yaml',
      ),
    ).toThrow(
      'list.yaml: items[0].spec.names.plural: invalid plural "My_Demos": must be a lower-case DNS label (line 12)',
    );
  });
});
