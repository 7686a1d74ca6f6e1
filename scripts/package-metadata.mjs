#!/usr/bin/env node
// Sets the publishable metadata of every package under packages/* (apps/ and tools/ are
// private and left alone). Idempotent: run it again after adding a package.
//   node scripts/package-metadata.mjs          write the fields
//   node scripts/package-metadata.mjs --check  exit 1 if any package.json would change
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const repoUrl = 'git+https://github.com/kubets/kubets.git';
const baseKeywords = ['kubernetes', 'k8s', 'client-go'];

/** Package-specific keywords, appended after the common ones. */
const specificKeywords = {
  apimachinery: ['apimachinery', 'gvk', 'label-selector', 'field-selector', 'status'],
  apiextensions: ['apiextensions', 'crd', 'customresourcedefinition', 'structural-schema'],
  apiserver: ['testing', 'fake-apiserver', 'apiserver', 'test-helpers'],
  cache: ['informer', 'reflector', 'deltafifo', 'indexer', 'controller'],
  clientset: ['clientset', 'typed-client', 'api-client'],
  crd: ['crd', 'customresourcedefinition', 'typebox', 'operator'],
  'create-kubets': ['operator', 'scaffold', 'npm-create', 'kubebuilder', 'crd'],
  codegen: ['codegen', 'code-generator', 'crd', 'customresourcedefinition', 'cli'],
  controller: ['controller-runtime', 'controller', 'operator', 'reconcile'],
  discovery: ['discovery', 'restmapper', 'api-resources'],
  dynamic: ['dynamic-client', 'unstructured', 'crd'],
  envtest: ['testing', 'envtest', 'etcd', 'kube-apiserver'],
  informers: ['informer', 'shared-informer-factory', 'lister'],
  leaderelection: ['leader-election', 'lease', 'high-availability', 'controller'],
  listers: ['lister', 'indexer', 'controller'],
  record: ['events', 'event-recorder', 'controller'],
  rest: ['rest-client', 'kubeconfig', 'watch', 'rate-limiting'],
  webhook: ['webhook', 'admission-webhook', 'conversion-webhook', 'controller-runtime', 'operator'],
  workqueue: ['workqueue', 'rate-limiter', 'controller', 'prometheus'],
};

/** Field order for the written manifest; fields not listed keep their relative order after. */
const order = [
  'name',
  'version',
  'description',
  'keywords',
  'homepage',
  'bugs',
  'license',
  'repository',
  'type',
  'sideEffects',
  'bin',
  'exports',
  'main',
  'types',
  'files',
  'engines',
  'publishConfig',
];

function typesFirst(entry) {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return entry;
  const out = {};
  if ('types' in entry) out.types = typesFirst(entry.types);
  for (const [k, v] of Object.entries(entry)) if (k !== 'types') out[k] = typesFirst(v);
  if ('default' in out) {
    const d = out.default;
    delete out.default;
    out.default = d; // "default" must come last
  }
  return out;
}

function apply(dir, pkg) {
  const name = dir;
  const next = { ...pkg };
  if (!next.description) throw new Error(`packages/${dir}: missing "description"`);
  next.license = 'Apache-2.0';
  next.homepage = `https://github.com/kubets/kubets/tree/main/packages/${name}#readme`;
  next.bugs = { url: 'https://github.com/kubets/kubets/issues' };
  next.repository = { type: 'git', url: repoUrl, directory: `packages/${name}` };
  const kw = [...baseKeywords, ...(specificKeywords[name] ?? [])];
  for (const k of pkg.keywords ?? []) if (!kw.includes(k)) kw.push(k);
  next.keywords = kw;
  next.sideEffects = false;
  const files = new Set(['dist', 'README.md', ...(pkg.files ?? [])]);
  next.files = [...files];
  next.engines = { ...(pkg.engines ?? {}), node: '>=22' };
  next.publishConfig = { ...(pkg.publishConfig ?? {}), access: 'public' };
  if (next.exports) next.exports = typesFirst(next.exports);
  if (next.exports && typeof next.exports === 'object' && !next.exports['./package.json']) {
    next.exports = { ...next.exports, './package.json': './package.json' };
  }
  const out = {};
  for (const k of order) if (k in next) out[k] = next[k];
  for (const k of Object.keys(next)) if (!(k in out)) out[k] = next[k];
  return out;
}

const check = process.argv.includes('--check');
let changed = 0;
for (const dir of readdirSync(join(root, 'packages')).sort()) {
  const file = join(root, 'packages', dir, 'package.json');
  if (!existsSync(file)) continue;
  const before = readFileSync(file, 'utf8');
  const pkg = JSON.parse(before);
  if (pkg.private) continue;
  if (!specificKeywords[dir]) console.warn(`packages/${dir}: no specific keywords listed`);
  const after = `${JSON.stringify(apply(dir, pkg), null, 2)}\n`;
  if (after !== before) {
    changed++;
    if (check) console.error(`packages/${dir}/package.json: metadata out of date`);
    else writeFileSync(file, after);
  }
}
if (check && changed) {
  console.error('run: node scripts/package-metadata.mjs');
  process.exit(1);
}
console.log(
  `${check ? 'checked' : 'updated'} package metadata (${changed} file(s) ${check ? 'out of date' : 'changed'})`,
);
