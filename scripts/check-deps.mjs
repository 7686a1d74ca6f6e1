#!/usr/bin/env node
// Fails when the package graph leaves client-go's shape:
//   apimachinery ← rest ← discovery / clientset / dynamic;  cache ← listers / informers;
//   envtest ← apiserver (the test servers, which every other package's tests use).
// Checks, for every workspace package:
//   1. each @kubets dependency (package.json and every import in src/, tests excluded) is one
//      the layer table below allows — a back-edge such as rest → cache fails;
//   2. an import names the package's public entry or an `exports` subpath, never a deep path;
//   3. no cycle between packages (dependencies and devDependencies: turbo builds in that order);
//   4. no import cycle between the source files of one package (tests excluded).
// Usage: node scripts/check-deps.mjs   (exit 1 with one line per problem)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');

// What each published package may depend on at run time. A new package gets a row here.
const allowed = {
  '@kubets/apimachinery': [],
  '@kubets/workqueue': ['@kubets/apimachinery'],
  '@kubets/rest': ['@kubets/apimachinery'],
  '@kubets/discovery': ['@kubets/apimachinery', '@kubets/rest'],
  '@kubets/clientset': ['@kubets/apimachinery', '@kubets/rest'],
  '@kubets/cache': ['@kubets/apimachinery', '@kubets/rest'],
  '@kubets/listers': ['@kubets/apimachinery', '@kubets/cache'],
  '@kubets/dynamic': ['@kubets/apimachinery', '@kubets/rest', '@kubets/cache', '@kubets/listers'],
  '@kubets/informers': [
    '@kubets/apimachinery',
    '@kubets/rest',
    '@kubets/clientset',
    '@kubets/cache',
    '@kubets/listers',
  ],
  '@kubets/record': ['@kubets/apimachinery', '@kubets/rest', '@kubets/clientset'],
  '@kubets/leaderelection': ['@kubets/apimachinery', '@kubets/rest', '@kubets/clientset'],
  // Webhooks serve the API server; they never call it. The controller depends on them.
  '@kubets/webhook': ['@kubets/apimachinery'],
  '@kubets/controller': [
    '@kubets/apimachinery',
    '@kubets/rest',
    '@kubets/clientset',
    '@kubets/dynamic',
    '@kubets/cache',
    '@kubets/listers',
    '@kubets/informers',
    '@kubets/workqueue',
    '@kubets/record',
    '@kubets/leaderelection',
    '@kubets/webhook',
  ],
  // envtest owns the certificates, kubeconfig and temp dirs both test servers need.
  '@kubets/envtest': [],
  '@kubets/apiserver': ['@kubets/apimachinery', '@kubets/apiextensions', '@kubets/envtest'],
  // kube-apiserver's CRD rules, shared by the in-memory server and @kubets/crd.
  '@kubets/apiextensions': ['@kubets/apimachinery'],
  '@kubets/crd': ['@kubets/apimachinery', '@kubets/apiextensions', '@kubets/clientset'],
  '@kubets/codegen': ['@kubets/apimachinery'],
  // npm create kubets: checks names with the rules the new project's CRD declaration meets.
  'create-kubets': ['@kubets/apimachinery', '@kubets/crd'],
};

// Packages a published package may import only from a test-support subpath, as an optional
// peer dependency: never from a file its main entry (src/index.ts) loads, so a user of the
// main entry neither installs nor loads them.
const subpathOnlyPeers = {
  '@kubets/controller': ['@kubets/apiserver'],
};

function workspacePackages() {
  const found = [];
  for (const group of ['packages', 'tools', 'apps']) {
    const dir = join(root, group);
    for (const name of readdirSync(dir)) {
      const manifest = join(dir, name, 'package.json');
      try {
        found.push({ dir: join(dir, name), manifest: JSON.parse(readFileSync(manifest, 'utf8')) });
      } catch {
        // not a package
      }
    }
  }
  return found;
}

function sourceFiles(dir) {
  const files = [];
  const walk = (d) => {
    for (const entry of readdirSync(d)) {
      if (entry === 'node_modules' || entry === 'dist' || entry === 'generated-fixtures') continue;
      const path = join(d, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry) && !entry.endsWith('.d.ts')) files.push(path);
    }
  };
  walk(dir);
  return files;
}

// Test support code lives in each package's test/ folder, outside src/; in src/ only the
// test and benchmark files themselves.
const isTestFile = (path) => /\.(test|bench)\.ts$/.test(path);

// TypeScript's own scanner: imports, re-exports and dynamic imports, not the examples in
// doc comments or the code a generator writes into template strings.
function importsOf(file) {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((f) => f.fileName);
}

const problems = [];
const packages = workspacePackages();
const byName = new Map(packages.map((p) => [p.manifest.name, p]));

for (const { dir, manifest } of packages) {
  const name = manifest.name;
  const deps = Object.keys(manifest.dependencies ?? {}).filter((d) => byName.has(d));
  const devDeps = Object.keys(manifest.devDependencies ?? {}).filter((d) => byName.has(d));
  const rules = allowed[name];
  if (!manifest.private && rules === undefined) {
    problems.push(`${name}: published but missing from the layer table in scripts/check-deps.mjs`);
  }
  if (rules) {
    for (const dep of deps) {
      if (!rules.includes(dep))
        problems.push(`${name} depends on ${dep}: not allowed by the layer table`);
    }
  }
  const srcDir = join(dir, 'src');
  let files = [];
  try {
    files = sourceFiles(srcDir);
  } catch {
    continue;
  }
  const peers = subpathOnlyPeers[name] ?? [];
  for (const peer of peers) {
    if (!manifest.peerDependencies?.[peer] || !manifest.peerDependenciesMeta?.[peer]?.optional) {
      problems.push(`${name}: ${peer} must be an optional peer dependency (subpath only)`);
    }
  }
  const mainEntry = reachableFrom(join(srcDir, 'index.ts'), files);
  for (const file of files) {
    const test = isTestFile(relative(srcDir, file));
    for (const specifier of importsOf(file)) {
      const match = /^(@kubets(?:-apps)?\/[^/]+)(\/.*)?$/.exec(specifier);
      if (!match) continue;
      const [, target, subpath] = match;
      const where = relative(root, file);
      if (target === name) {
        // A README example test imports the package as a user would.
        if (test) continue;
        problems.push(`${where}: imports its own package "${specifier}"; use a relative path`);
        continue;
      }
      const targetPackage = byName.get(target);
      if (!targetPackage) continue;
      if (!test && peers.includes(target)) {
        if (mainEntry.has(file)) {
          problems.push(`${where}: imports ${target}, which the main entry must not load`);
        }
        continue;
      }
      const declared = test ? [...deps, ...devDeps] : deps;
      if (!declared.includes(target)) {
        problems.push(`${where}: imports ${target}, which ${name} does not declare`);
      }
      if (!test && rules && !rules.includes(target)) {
        problems.push(`${where}: imports ${target}: not allowed by the layer table`);
      }
      const exportsMap = targetPackage.manifest.exports ?? { '.': '' };
      if (!(`.${subpath ?? ''}` in exportsMap)) {
        problems.push(`${where}: deep import "${specifier}" is not in ${target}'s exports`);
      }
    }
  }

  // 4. file-level cycles inside the package (runtime sources only).
  const runtime = files.filter((f) => !isTestFile(relative(srcDir, f)));
  const edges = new Map();
  for (const file of runtime) {
    const targets = [];
    for (const specifier of importsOf(file)) {
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
      if (runtime.includes(target)) targets.push(target);
    }
    edges.set(file, targets);
  }
  for (const cycle of findCycles(edges)) {
    problems.push(`${name}: import cycle ${cycle.map((f) => relative(srcDir, f)).join(' → ')}`);
  }
}

// 3. package-level cycles over dependencies and devDependencies.
const packageEdges = new Map(
  packages.map(({ manifest }) => [
    manifest.name,
    [
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.devDependencies ?? {}),
    ].filter((d) => byName.has(d)),
  ]),
);
for (const cycle of findCycles(packageEdges)) {
  problems.push(`package cycle ${cycle.join(' → ')}`);
}

/** The source files `entry` loads, itself included, through relative imports. */
function reachableFrom(entry, files) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file) || !files.includes(file)) return;
    seen.add(file);
    for (const specifier of importsOf(file)) {
      if (specifier.startsWith('.'))
        visit(resolve(dirname(file), specifier).replace(/\.js$/, '.ts'));
    }
  };
  visit(entry);
  return seen;
}

/** Each cycle once, as the list of nodes from its first node back to it. */
function findCycles(edges) {
  const cycles = [];
  const state = new Map(); // undefined: new, 1: on the stack, 2: done
  const stack = [];
  const seen = new Set();
  const visit = (node) => {
    state.set(node, 1);
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === 1) {
        const cycle = [...stack.slice(stack.indexOf(next)), next];
        const key = [...cycle.slice(0, -1)].sort().join('|');
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push(cycle);
        }
      } else if (state.get(next) === undefined) {
        visit(next);
      }
    }
    stack.pop();
    state.set(node, 2);
  };
  for (const node of edges.keys()) if (state.get(node) === undefined) visit(node);
  return cycles;
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`check-deps: ${problem}`);
  console.error(`check-deps: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log(`check-deps: ${packages.length} packages follow the layer table, no cycles`);
