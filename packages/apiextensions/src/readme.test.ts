// The README's example, run as a test: scripts/readme-examples.mjs checks that
// packages/apiextensions/README.md shows this code verbatim, with `from './index.js'` written
// as `from '@kubets/apiextensions'`. No server: the checks are pure functions.
import { afterAll, expect, it } from 'vitest';

const logged: unknown[][] = [];
const log = console.log;
console.log = (...args: unknown[]) => logged.push(args);
afterAll(() => {
  console.log = log;
});

// readme:start
import {
  crdInvalidMessage,
  validateCustomObject,
  validateCustomResourceDefinition,
} from './index.js';

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'websites.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'websites', kind: 'Website' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { properties: { replicas: { type: 'integer', minimum: 0 } } } },
          },
        },
      },
    ],
  },
};

// What kube-apiserver 1.20 would answer `kubectl apply` with: spec has no type.
const causes = validateCustomResourceDefinition(crd);
if (causes.length > 0) console.log(crdInvalidMessage(crd.metadata.name, causes));

// A custom resource against a (structural) schema, as the API server validates it.
const schema = { type: 'object', properties: { replicas: { type: 'integer', minimum: 0 } } };
for (const cause of validateCustomObject(schema, { replicas: -1 })) {
  console.log(`${cause.field}: ${cause.message}`);
}
// readme:end

it('runs the README example: the refusal and the value causes in kube-apiserver words', () => {
  expect(logged).toEqual([
    [
      'CustomResourceDefinition.apiextensions.k8s.io "websites.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
    ],
    ['replicas: Invalid value: -1: replicas in body should be greater than or equal to 0'],
  ]);
});
