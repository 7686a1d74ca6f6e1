// Writes src/apiserver/wire-types.generated.ts: the JSON field types of every built-in kind
// the in-memory API server serves, and of every type they reach, taken from the models of
// @kubernetes/client-node (generated from Kubernetes' OpenAPI spec). The server checks request
// bodies against them as kube-apiserver's decoder does (see wire-decode.ts).
// Run: `pnpm --filter @kubets/testing generate:wire-types [--check]`.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '../src/apiserver/wire-types.generated.ts');
const require = createRequire(import.meta.url);
const clientDir = dirname(require.resolve('@kubernetes/client-node/package.json'));
const models = await import(pathToFileURL(join(clientDir, 'dist/gen/models/all.js')).href);

/** The kinds served (group, version, kind), read from the generated resource table. */
const table = readFileSync(join(here, '../src/apiserver/generated/builtin-resources.ts'), 'utf8');
const rows = [
  ...table.matchAll(/group: '([^']*)',\s*version: '([^']*)',[\s\S]*?kind: '([^']*)'/g),
].map((m) => ({ group: m[1], version: m[2], kind: m[3] }));

const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

function classFor({ group, version, kind }) {
  const prefix = cap((group || 'core').split('.')[0]);
  for (const name of [`${prefix}${cap(version)}${kind}`, `${cap(version)}${kind}`]) {
    if (models[name]?.attributeTypeMap) return name;
  }
  return undefined;
}

// Go's spelling of initialisms in field names, as Kubernetes' types use them.
const INITIALISMS = new Set([
  'api',
  'cidr',
  'cpu',
  'dns',
  'http',
  'https',
  'id',
  'ip',
  'ips',
  'ipc',
  'pid',
  'tcp',
  'tls',
  'ttl',
  'udp',
  'uid',
  'url',
  'uri',
  'uuid',
  'wwn',
  'wwns',
  'fs',
  'iqn',
  'sctp',
  'gmsa',
  'ca',
]);
/** Go field names that are not their JSON name capitalised word by word. */
const GO_FIELD_NAMES = {
  metadata: 'ObjectMeta',
  seLinuxOptions: 'SELinuxOptions',
  iscsi: 'ISCSI',
  iscsiInterface: 'ISCSIInterface',
  chapAuthDiscovery: 'DiscoveryCHAPAuth',
  chapAuthSession: 'SessionCHAPAuth',
  cephfs: 'CephFS',
  nfs: 'NFS',
  rbd: 'RBD',
  fc: 'FC',
  scaleIO: 'ScaleIO',
  pdName: 'PDName',
  lun: 'Lun',
  wwids: 'WWIDs',
  targetWWNs: 'TargetWWNs',
};

function goFieldName(json, type) {
  if (json === 'metadata') return type === 'V1ListMeta' ? 'ListMeta' : 'ObjectMeta';
  if (GO_FIELD_NAMES[json]) return GO_FIELD_NAMES[json];
  const words = json.split(/(?=[A-Z])/);
  return words
    .map((w) =>
      INITIALISMS.has(w.toLowerCase())
        ? w.toLowerCase().endsWith('s') &&
          w.length > 2 &&
          INITIALISMS.has(w.toLowerCase().slice(0, -1))
          ? `${w.slice(0, -1).toUpperCase()}s`
          : w.toUpperCase()
        : cap(w),
    )
    .join('');
}

/** `V1DeploymentSpec` → `v1.DeploymentSpec`, `CoreV1EventSeries` → `v1.EventSeries`. */
function goTypeName(className) {
  const m = /^(?:[A-Z][a-z]+)?(V\d+(?:alpha\d+|beta\d+)?)([A-Z].*)$/.exec(className);
  return m ? `${m[1].toLowerCase()}.${m[2]}` : className;
}

// client-node types resource quantities as plain strings; kube-apiserver decodes them as
// resource.Quantity (its OpenAPI spec names that type), which has its own decoding errors.
const QUANTITY_FIELDS = {
  V1ResourceRequirements: ['limits', 'requests'],
  V1PodSpec: ['overhead'],
  V1NodeStatus: ['capacity', 'allocatable'],
  V1EmptyDirVolumeSource: ['sizeLimit'],
};

const types = {};
const pending = [];
function wireType(type, format) {
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return `[]${wireType(array[1], format)}`;
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) return `map[string]${wireType(map[1], format)}`;
  if (type === 'string') return format === 'byte' ? 'bytes' : 'string';
  if (type === 'boolean') return 'bool';
  if (type === 'number') return format === 'int32' || format === 'int64' ? format : 'float64';
  if (type === 'IntOrString') return 'intstr';
  if (type === 'Date') return 'time';
  if (models[type]?.attributeTypeMap) {
    if (!(type in types)) {
      types[type] = null;
      pending.push(type);
    }
    return type;
  }
  return 'any';
}

function describe(className) {
  const fields = {};
  for (const a of models[className].attributeTypeMap) {
    if (a.baseName === 'kind' || a.baseName === 'apiVersion') continue;
    let type = wireType(a.type, a.format);
    if (QUANTITY_FIELDS[className]?.includes(a.baseName))
      type = type.replace(/string$/, 'quantity');
    fields[a.baseName] = [goFieldName(a.baseName, a.type), type];
  }
  types[className] = { go: goTypeName(className), fields };
}

const roots = {};
for (const row of rows) {
  const name = classFor(row);
  if (!name) continue;
  roots[`${row.group}/${row.version}/${row.kind}`] = name;
  if (!(name in types)) {
    types[name] = null;
    pending.push(name);
  }
}
while (pending.length > 0) describe(pending.shift());

const sorted = Object.fromEntries(
  Object.keys(types)
    .sort()
    .map((k) => [k, types[k]]),
);
const text = `// biome-ignore-all format: generated, one line per table keeps it small
// Code generated by packages/testing/scripts/generate-wire-types.mjs from @kubernetes/client-node's OpenAPI-derived models. DO NOT EDIT.

/** A field's JSON type: Go's scalar names, \`[]T\`, \`map[string]T\`, or a type of {@link wireTypes}. */
export type WireType = string;

/** One Go struct: its Go name and its fields by JSON name: [Go field name, type]. */
export interface WireStruct {
  readonly go: string;
  readonly fields: Readonly<Record<string, readonly [string, WireType]>>;
}

/** The struct each served kind decodes into, by \`group/version/kind\`. */
export const wireRoots: Readonly<Record<string, string>> = ${JSON.stringify(roots, null, 2)};

/** Every struct those kinds reach, by model name. */
export const wireTypes: Readonly<Record<string, WireStruct>> = ${JSON.stringify(sorted)};
`;
if (process.argv.includes('--check')) {
  if (readFileSync(out, 'utf8') !== text) {
    console.error(`${out} is out of date: run generate:wire-types`);
    process.exit(1);
  }
} else {
  writeFileSync(out, text);
}
