// Reads @kubernetes/client-node's models (generated from Kubernetes' OpenAPI spec) for the
// generators beside it: the model classes, and which of them each served built-in kind is.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const clientDir = dirname(require.resolve('@kubernetes/client-node/package.json'));

/** Every model class by name (`V1Pod`, `CoreV1Event`, ...); each has an `attributeTypeMap`. */
export const models = await import(pathToFileURL(join(clientDir, 'dist/gen/models/all.js')).href);

/** The text of a model's `.d.ts`, which carries the OpenAPI descriptions as TSDoc. */
export function modelDeclaration(className) {
  return readFileSync(join(clientDir, `dist/gen/models/${className}.d.ts`), 'utf8');
}

/** The kinds served (group, version, kind), read from the generated resource table. */
export function servedKinds() {
  const table = readFileSync(join(here, '../src/generated/builtin-resources.ts'), 'utf8');
  return [...table.matchAll(/group: '([^']*)',\s*version: '([^']*)',[\s\S]*?kind: '([^']*)'/g)].map(
    (m) => ({ group: m[1], version: m[2], kind: m[3] }),
  );
}

/** `s` with its first letter upper-cased. */
export const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** The model class of a served kind, or undefined when client-node has none for it. */
export function classFor({ group, version, kind }) {
  const prefix = cap((group || 'core').split('.')[0]);
  for (const name of [`${prefix}${cap(version)}${kind}`, `${cap(version)}${kind}`]) {
    if (models[name]?.attributeTypeMap) return name;
  }
  return undefined;
}

// client-node types resource quantities as plain strings; kube-apiserver's OpenAPI spec names
// them resource.Quantity.
export const QUANTITY_FIELDS = {
  V1ResourceRequirements: ['limits', 'requests'],
  V1PodSpec: ['overhead'],
  V1NodeStatus: ['capacity', 'allocatable'],
  V1EmptyDirVolumeSource: ['sizeLimit'],
  V1VolumeResourceRequirements: ['limits', 'requests'],
  V1PersistentVolumeSpec: ['capacity'],
  V1PersistentVolumeClaimStatus: ['capacity', 'allocatedResources'],
  V1ResourceFieldSelector: ['divisor'],
};
