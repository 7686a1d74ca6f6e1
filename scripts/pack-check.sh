#!/usr/bin/env bash
# Pack-and-install check for every publishable package under packages/*.
#
#   1. builds the packages (turbo, cached) unless --no-build;
#   2. `pnpm pack`s each into a temp dir (scripts/pack-tarballs.mjs) and checks the packed manifests: no `workspace:`
#      range left, and every file named by exports/main/types/bin is in the tarball;
#   3. `npm install`s all tarballs into a fresh scratch project outside the workspace
#      (plain npm, no workspace links; third-party deps come from the registry);
#   4. there: imports every package (and subpath export) from ESM, require()s each from
#      CommonJS (Node >= 22 require(esm)), checks that a known export is present, and
#      type-checks a consumer file with tsc (strict) under module/moduleResolution
#      nodenext and under module esnext + moduleResolution bundler;
#   5. type-checks every ```ts block of every installed package README (what npm shows) as a
#      module of its own, as a user pasting it would: strict, exactOptionalPropertyTypes,
#      noUncheckedIndexedAccess (codegen's README imports code kubets-gen generates first);
#      docs/guide.md is followed as a whole project by scripts/guide-check.mjs;
#   6. runs publint (--strict) and @arethetypeswrong/cli (--profile esm-only: the packages are
#      ESM-only, which Node >= 22 can require()) on every tarball.
# Exits non-zero with a message naming the failing step. KEEP_TMP=1 keeps the temp dir;
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
start=$SECONDS
TS_VERSION=6.0.3
PUBLINT_VERSION=0.3.25
ATTW_VERSION=0.18.5
VITEST_VERSION="$(node -p 'require("./package.json").devDependencies.vitest')"

# Package dir -> an export that must exist (value) in its main entry.
declare -A known=(
  [apiextensions]=validateCustomResourceDefinition
  [apimachinery]=Backoff
  [apiserver]=startApiServer
  [cache]=Reflector
  [clientset]=Clientset
  [codegen]=CodegenError
  [controller]=Manager
  [create-kubets]=createProject
  [crd]=defineCustomResource
  [discovery]=DiscoveryClient
  [dynamic]=DynamicClient
  [envtest]=startEnvtest
  [informers]=SharedInformerFactory
  [leaderelection]=LeaderElector
  [listers]=newGenericLister
  [record]=EventAggregator
  [rest]=RESTClient
  [webhook]=WebhookServer
  [workqueue]=DelayingQueue
)
# Subpath exports: "specifier export".
subpaths=("@kubets/workqueue/prometheus PrometheusMetricsProvider" "@kubets/cache/prometheus PrometheusInformerMetricsProvider" "@kubets/cache/testing setCacheMutationDetectorDefault" "@kubets/cache/compat DeltaFIFO" "@kubets/apimachinery/testing FakeClock" "@kubets/apimachinery/prometheus perNameMetricsProvider" "@kubets/controller/testing newTestContext" "@kubets/controller/manifests writeManifests" "@kubets/webhook/prometheus PrometheusWebhookMetricsProvider")

fail() {
  echo "pack-check: FAIL: $*" >&2
  exit 1
}
step() { echo "pack-check: [$((SECONDS - start))s] $*"; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/kubets-pack-check.XXXXXX")"
case "$tmp" in "$root"/*) fail "temp dir $tmp is inside the workspace" ;; esac
if [[ "${KEEP_TMP:-}" == 1 ]]; then echo "pack-check: keeping $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi

# Publishable packages: packages/* without "private": true; spec_of: dir -> package name.
pkgs=()
declare -A spec_of=()
for dir in packages/*/; do
  dir="${dir%/}"
  name="${dir#packages/}"
  [[ -f "$dir/package.json" ]] || continue
  node -e 'process.exit(require(process.argv[1]).private ? 1 : 0)' "$root/$dir/package.json" || continue
  [[ -n "${known[$name]:-}" ]] || fail "$dir has no known export listed in scripts/pack-check.sh"
  pkgs+=("$name")
  spec_of[$name]="$(node -p 'require(process.argv[1]).name' "$root/$dir/package.json")"
done
[[ ${#pkgs[@]} -gt 0 ]] || fail "no publishable packages found"

node scripts/package-metadata.mjs --check || fail "package metadata out of date"

step "packing ${#pkgs[@]} packages$([[ "${1:-}" == --no-build ]] || echo ", after a build (turbo)")"
# shellcheck disable=SC2046 # the flag, or nothing
node scripts/pack-tarballs.mjs "$tmp/tarballs" $([[ "${1:-}" == --no-build ]] && echo --no-build) >"$tmp/pack.log" 2>&1 ||
  { cat "$tmp/pack.log" >&2; fail "packing failed"; }

step "checking packed manifests"
export TGZ_DIR="$tmp/tarballs"
for tgz in "$tmp"/tarballs/*.tgz; do
  tar -tzf "$tgz" >"$tmp/list.txt"
  tar -xzOf "$tgz" package/package.json >"$tmp/manifest.json"
  node - "$tmp/manifest.json" "$tmp/list.txt" "$(basename "$tgz")" <<'JS' || fail "bad packed manifest in $(basename "$tgz")"
const fs = require('node:fs');
const [manifestFile, listFile, tgz] = process.argv.slice(2);
const text = fs.readFileSync(manifestFile, 'utf8');
const pkg = JSON.parse(text);
const files = new Set(fs.readFileSync(listFile, 'utf8').split('\n').filter(Boolean).map((f) => f.replace(/^package\//, '')));
const errors = [];
if (text.includes('workspace:')) errors.push('a "workspace:" range is left in package.json');
for (const f of ['name', 'version', 'description', 'license', 'repository', 'keywords', 'files', 'exports', 'engines', 'publishConfig']) {
  if (pkg[f] === undefined) errors.push(`missing "${f}"`);
}
if (pkg.sideEffects !== false) errors.push('"sideEffects" is not false');
if (!files.has('README.md')) errors.push('README.md not packed');
if (!files.has('LICENSE')) errors.push('LICENSE not packed');
const targets = [];
const walk = (v, where) => {
  if (typeof v === 'string') targets.push([where, v]);
  else if (v && typeof v === 'object') {
    const keys = Object.keys(v);
    if (!where.startsWith('exports[".') || keys.some((k) => !k.startsWith('.'))) {
      if (keys.includes('types') && keys[0] !== 'types') errors.push(`${where}: "types" is not the first condition`);
      if (keys.includes('default') && keys.at(-1) !== 'default') errors.push(`${where}: "default" is not the last condition`);
    }
    for (const k of keys) walk(v[k], `${where}[${JSON.stringify(k)}]`);
  }
};
walk(pkg.exports, 'exports');
for (const f of ['main', 'types', 'module']) if (pkg[f]) targets.push([f, pkg[f]]);
if (typeof pkg.bin === 'string') targets.push(['bin', pkg.bin]);
else for (const [k, v] of Object.entries(pkg.bin ?? {})) targets.push([`bin.${k}`, v]);
for (const [where, target] of targets) {
  if (!files.has(target.replace(/^\.\//, ''))) errors.push(`${where} -> ${target} is not in the tarball`);
}
for (const bin of Object.values(typeof pkg.bin === 'string' ? { x: pkg.bin } : (pkg.bin ?? {}))) {
  const f = bin.replace(/^\.\//, '');
  if (files.has(f)) {
    const { execFileSync } = require('node:child_process');
    const head = execFileSync('tar', ['-xzOf', process.env.TGZ_DIR + '/' + tgz, `package/${f}`]).toString().split('\n')[0];
    if (!head.startsWith('#!')) errors.push(`bin ${bin} has no shebang`);
  }
}
if (errors.length) {
  for (const e of errors) console.error(`  ${tgz}: ${e}`);
  process.exit(1);
}
JS
done

step "installing tarballs into a scratch project (npm)"
app="$tmp/consumer"
mkdir -p "$app"
cd "$app"
cat >package.json <<'JSON'
{ "name": "kubets-pack-check-consumer", "version": "0.0.0", "private": true, "type": "module" }
JSON
# prom-client: optional peer of the prometheus subpaths (apimachinery, workqueue, cache);
# @types/node: what a Node consumer has; vitest: what @kubets/apiserver's and @kubets/envtest's
# README examples are written for.
npm install --no-audit --no-fund --loglevel=error \
  "$tmp"/tarballs/*.tgz "typescript@$TS_VERSION" "@types/node@24" "prom-client@15" "vitest@$VITEST_VERSION" \
  "publint@$PUBLINT_VERSION" "@arethetypeswrong/cli@$ATTW_VERSION" >"$tmp/npm.log" 2>&1 ||
  { cat "$tmp/npm.log" >&2; fail "npm install of the tarballs failed"; }
installed_manifests=()
for name in "${pkgs[@]}"; do
  spec="${spec_of[$name]}"
  [[ -f "node_modules/$spec/package.json" ]] || fail "$spec not installed"
  installed_manifests+=("$app/node_modules/$spec/package.json")
  # Installed from the tarball, not from the registry, and only once (no nested registry copy).
  nested=$(find node_modules -path "*/node_modules/$spec/package.json" -not -path "node_modules/$spec/package.json" | head -1)
  [[ -z "$nested" ]] || fail "a second copy of $spec was installed at $nested (internal range not satisfied by the tarball?)"
done
for b in $(node -e 'for (const f of process.argv.slice(1)) { const p = require(f); for (const k of Object.keys(typeof p.bin === "string" ? {[p.name]: 1} : p.bin ?? {})) console.log(k) }' "${installed_manifests[@]}"); do
  [[ -x "node_modules/.bin/$b" ]] || fail "bin $b not linked"
done

# Generate the consumer files.
esm="import assert from 'node:assert/strict';"$'\n'
cjs="'use strict';"$'\n'"const assert = require('node:assert/strict');"$'\n'
ts=""
i=0
for name in "${pkgs[@]}"; do
  spec="${spec_of[$name]}"
  exp="${known[$name]}"
  esm+="{ const m = await import('$spec'); assert.ok(m.$exp !== undefined, '$spec: export $exp missing (ESM)'); }"$'\n'
  cjs+="{ const m = require('$spec'); assert.ok(m.$exp !== undefined, '$spec: export $exp missing (CJS)'); }"$'\n'
  ts+="import { $exp as e$i } from '$spec';"$'\n'"export const v$i: typeof e$i = e$i;"$'\n'
  i=$((i + 1))
done
for sp in "${subpaths[@]}"; do
  spec="${sp% *}"
  exp="${sp#* }"
  esm+="{ const m = await import('$spec'); assert.ok(m.$exp !== undefined, '$spec: export $exp missing (ESM)'); }"$'\n'
  cjs+="{ const m = require('$spec'); assert.ok(m.$exp !== undefined, '$spec: export $exp missing (CJS)'); }"$'\n'
  ts+="import { $exp as e$i } from '$spec';"$'\n'"export const v$i: typeof e$i = e$i;"$'\n'
  i=$((i + 1))
done
printf '%sconsole.log("esm ok");\n' "$esm" >check-esm.mjs
printf '%sconsole.log("cjs ok");\n' "$cjs" >check-cjs.cjs
printf '%s' "$ts" >consumer.ts

step "importing every package from ESM"
node check-esm.mjs >"$tmp/esm.log" 2>&1 || { cat "$tmp/esm.log" >&2; fail "ESM import failed"; }
step "require()-ing every package from CommonJS"
node check-cjs.cjs >"$tmp/cjs.log" 2>&1 || { cat "$tmp/cjs.log" >&2; fail "CommonJS require() failed"; }

tsconfig() { # module moduleResolution
  cat <<JSON
{
  "compilerOptions": {
    "strict": true,
    "noEmit": true,
    "target": "es2023",
    "module": "$1",
    "moduleResolution": "$2",
    "types": ["node"],
    "skipLibCheck": false,
    "noUncheckedIndexedAccess": true,
    "exactOptionalPropertyTypes": true
  },
  "files": ["consumer.ts"]
}
JSON
}
for mode in "nodenext nodenext" "esnext bundler"; do
  set -- $mode
  step "tsc --strict, module $1, moduleResolution $2"
  tsconfig "$1" "$2" >"tsconfig.$2.json"
  if ! npx --no-install tsc -p "tsconfig.$2.json" >"$tmp/tsc.log" 2>&1; then
    # Every error fails, those in third-party declarations our types pull in too: a consumer
    # type-checking with skipLibCheck off sees them.
    sed 's/^/  /' "$tmp/tsc.log" >&2
    fail "type-check failed (module $1, moduleResolution $2)"
  fi
done

step "tsc --strict --exactOptionalPropertyTypes on every README's ts blocks"
readmes=()
for name in "${pkgs[@]}"; do readmes+=("node_modules/${spec_of[$name]}/README.md"); done
node "$root/scripts/readme-snippets.mjs" snippets "${readmes[@]}" >"$tmp/snippets.txt" ||
  fail "could not extract the README examples"
npx --no-install kubets-gen --crd "$root/apps/crd-controller/crd/mydemo.yaml" --out snippets/generated \
  --no-format >"$tmp/kubets-gen.log" 2>&1 || { cat "$tmp/kubets-gen.log" >&2; fail "kubets-gen failed"; }
cat >tsconfig.snippets.json <<'JSON'
{
  "compilerOptions": {
    "strict": true,
    "noEmit": true,
    "target": "es2023",
    "module": "esnext",
    "moduleResolution": "bundler",
    "types": ["node"],
    "skipLibCheck": true,
    "noUncheckedIndexedAccess": true,
    "exactOptionalPropertyTypes": true
  },
  "include": ["snippets/**/*.ts"]
}
JSON
if ! npx --no-install tsc -p tsconfig.snippets.json >"$tmp/tsc-snippets.log" 2>&1; then
  # Name the README and line of each failing block, not just the scratch file.
  sed 's/^/  /' "$tmp/tsc-snippets.log" >&2
  echo "  (module -> README block:)" >&2
  sed 's/^/    /' "$tmp/snippets.txt" >&2
  fail "a README example does not type-check"
fi
[[ $(wc -l <"$tmp/snippets.txt") -gt 0 ]] || fail "no README examples found"

step "publint --strict and attw --profile esm-only on every tarball"
for tgz in "$tmp"/tarballs/*.tgz; do
  npx --no-install publint run "$tgz" --strict >"$tmp/publint.log" 2>&1 ||
    { cat "$tmp/publint.log" >&2; fail "publint reported problems in $(basename "$tgz")"; }
  npx --no-install attw "$tgz" --profile esm-only --format ascii >"$tmp/attw.log" 2>&1 ||
    { cat "$tmp/attw.log" >&2; fail "arethetypeswrong reported problems in $(basename "$tgz")"; }
done

step "OK: ${#pkgs[@]} packages packed, installed, imported (ESM + CJS), type-checked, README examples ($(wc -l <"$tmp/snippets.txt")) type-checked, publint + attw clean"
