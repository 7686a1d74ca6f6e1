// Writes src/wire-order.generated.ts: for every struct of src/wire-types.generated.ts, its JSON
// fields in the order of kube-apiserver 1.20's Go struct (Go's encoding/json writes a struct's
// fields in declaration order, so this is the key order of what kube-apiserver returns), which
// of them are pointers to structs, the list-map keys of its lists, and whether the struct is
// atomic (`+structType=atomic`). Read from the Kubernetes 1.20 source that
// scripts/provision-envtest.sh unpacks to build kube-apiserver (or $KUBETS_KUBERNETES_SRC).
// Run: `pnpm --filter @kubets/apiserver generate:wire-order [--check]`.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '../src/wire-order.generated.ts');

/** The Kubernetes source tree: $KUBETS_KUBERNETES_SRC, else the one provisioning unpacked. */
export function kubernetesSource() {
  if (process.env.KUBETS_KUBERNETES_SRC) return process.env.KUBETS_KUBERNETES_SRC;
  const parent = join(homedir(), '.cache/kubets/build/src');
  if (!existsSync(parent)) return undefined;
  const dir = readdirSync(parent).find((d) => /^kubernetes-1\.20\./.test(d));
  return dir ? join(parent, dir) : undefined;
}

// Which Go package a client-node model prefix names; plain `V1…` models are looked up in order.
const PREFIXED = {
  CoreV1: ['api/core/v1'],
  EventsV1: ['api/events/v1'],
  AdmissionregistrationV1: ['api/admissionregistration/v1'],
  ApiextensionsV1: ['apiextensions-apiserver/pkg/apis/apiextensions/v1'],
  RbacV1: ['api/rbac/v1'],
  StorageV1: ['api/storage/v1'],
};
const PLAIN = [
  'api/core/v1',
  'apimachinery/pkg/apis/meta/v1',
  'api/apps/v1',
  'api/batch/v1',
  'api/autoscaling/v1',
  'apiextensions-apiserver/pkg/apis/apiextensions/v1',
  'api/admissionregistration/v1',
  'api/networking/v1',
  'api/rbac/v1',
  'api/storage/v1',
  'api/coordination/v1',
  'api/authorization/v1',
  'api/events/v1',
];

/** Every struct of a Go package: name → { fields: [json, goType, inline][], atomic }. */
function parsePackage(dir) {
  const structs = new Map();
  for (const file of readdirSync(dir)) {
    if (!/^types.*\.go$/.test(file) || file.includes('swagger') || file.endsWith('_test.go'))
      continue;
    const lines = readFileSync(join(dir, file), 'utf8').split('\n');
    let current;
    let markers = [];
    for (const line of lines) {
      const trimmed = line.trim();
      if (!current) {
        const start = /^type (\w+) struct \{$/.exec(trimmed);
        if (start) {
          current = { name: start[1], fields: [], atomic: markers.includes('+structType=atomic') };
          markers = [];
          continue;
        }
        if (trimmed.startsWith('//')) markers.push(trimmed.slice(2).trim());
        else markers = [];
        continue;
      }
      if (line === '}') {
        structs.set(current.name, current);
        current = undefined;
        markers = [];
        continue;
      }
      if (trimmed.startsWith('//')) {
        markers.push(trimmed.slice(2).trim());
        continue;
      }
      const field = /^([^`]+?)\s+`json:"([^"]*)"/.exec(trimmed);
      if (!field) {
        markers = [];
        continue;
      }
      const [, declaration, tag] = field;
      // `Name Type` or an embedded `Type` alone.
      const [goName, goType] = declaration.includes(' ')
        ? declaration.split(/\s+/)
        : [undefined, declaration];
      const json = tag.split(',')[0];
      const omitEmpty = tag.split(',').includes('omitempty') && /^(\[\]|map\[)/.test(goType);
      const inline = tag.split(',').includes('inline') || (goName === undefined && json === '');
      const mapKeys = markers.filter((m) => m.startsWith('+listMapKey=')).map((m) => m.slice(12));
      current.fields.push({ json, goType, inline, mapKeys, omitEmpty });
      markers = [];
    }
  }
  return structs;
}

const source = kubernetesSource();
const check = process.argv.includes('--check');
if (!source) {
  const message = 'no Kubernetes 1.20 source (scripts/provision-envtest.sh unpacks one)';
  if (check) {
    process.stdout.write(`skipped: ${message}\n`);
    process.exit(0);
  }
  throw new Error(message);
}
const staging = join(source, 'staging/src/k8s.io');
const packages = new Map();
const packageOf = (path) => {
  if (!packages.has(path)) packages.set(path, parsePackage(join(staging, path)));
  return packages.get(path);
};

const { wireTypes } = await import(join(here, '../src/wire-types.generated.ts'));

/** The struct a model names, with the package it was found in. */
function findStruct(model) {
  const go = wireTypes[model].go.split('.')[1];
  const prefix = Object.keys(PREFIXED).find((p) => model.startsWith(p));
  for (const path of prefix ? PREFIXED[prefix] : PLAIN) {
    const found = packageOf(path).get(go);
    if (found) return { struct: found, path };
  }
  return undefined;
}

/** A struct's JSON fields with inline (embedded) structs expanded in place. */
function expand(struct, path) {
  const fields = [];
  for (const field of struct.fields) {
    if (field.inline) {
      const name = field.goType.replace(/^\*/, '').split('.').pop();
      if (name === 'TypeMeta' || name === 'ListMeta') continue;
      const inner = packageOf(path).get(name) ?? packageOf('api/core/v1').get(name);
      if (inner) fields.push(...expand(inner, path));
      continue;
    }
    if (field.json === '' || field.json === '-') continue;
    fields.push(field);
  }
  return fields;
}

const table = {};
for (const model of Object.keys(wireTypes).sort()) {
  const found = findStruct(model);
  if (!found) continue;
  const fields = expand(found.struct, found.path);
  const entry = { fields: fields.map((f) => f.json) };
  // Pointers to structs (not to scalars): absent from a zero struct, so new when set.
  const pointers = fields
    .filter((f) => f.goType.startsWith('*') && /^\*([a-z]\w*\.)?[A-Z]/.test(f.goType))
    .filter((f) => !/^\*(int|bool|string|float|metav1\.Time$|Time$)/.test(f.goType.slice(1)))
    .map((f) => f.json);
  if (pointers.length > 0) entry.pointers = pointers;
  const keyed = fields.filter((f) => f.mapKeys.length > 0);
  if (keyed.length > 0)
    entry.listMapKeys = Object.fromEntries(keyed.map((f) => [f.json, f.mapKeys]));
  const omitted = fields.filter((f) => f.omitEmpty).map((f) => f.json);
  if (omitted.length > 0) entry.omitEmpty = omitted;
  if (found.struct.atomic) entry.atomic = true;
  table[model] = entry;
}

const text = `// biome-ignore-all format: generated, one line keeps it small
// Code generated by packages/apiserver/scripts/generate-wire-order.mjs from the Kubernetes 1.20 source. DO NOT EDIT.

/** A Go struct as kube-apiserver 1.20 declares it. */
export interface WireOrder {
  /** JSON field names in declaration order (embedded structs expanded in place). */
  readonly fields: readonly string[];
  /** Fields that are pointers to structs. */
  readonly pointers?: readonly string[];
  /** Lists keyed by several fields (\`+listMapKey\`), by field. */
  readonly listMapKeys?: Readonly<Record<string, readonly string[]>>;
  /** Slices and maps tagged \`omitempty\`: Go leaves them out when empty. */
  readonly omitEmpty?: readonly string[];
  /** \`+structType=atomic\`: set, changed and owned as one value. */
  readonly atomic?: true;
}

/** Every struct of \`wire-types.generated.ts\` found in 1.20's source, by model name. */
export const wireOrder: Readonly<Record<string, WireOrder>> = ${JSON.stringify(table)};
`;

if (check) {
  if (readFileSync(out, 'utf8') !== text) {
    process.stderr.write(`${out} is out of date: run generate:wire-order\n`);
    process.exit(1);
  }
} else {
  writeFileSync(out, text);
}
