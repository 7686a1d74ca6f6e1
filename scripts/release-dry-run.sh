#!/usr/bin/env bash
# Proves the release flow (`pnpm release` = build + `changeset publish`) without publishing,
# in a scratch copy of the repository (the working tree is never touched):
#
#   1. copies the repository (sources, built dist/ and the packages' node_modules links) to a
#      temp dir and links the workspace's root node_modules into it, so no install is needed;
#   2. replaces the pending changesets with one throwaway patch changeset for
#      @kubets/apimachinery, the package every other one depends on;
#   3. runs `changeset version` and checks the result with a node script: apimachinery got a
#      patch bump and a CHANGELOG.md holding the throwaway entry; the published packages are
#      one `fixed` group (.changeset/config.json: released together, at one version, which
#      create-kubets writes into a new project as its @kubets range), so every other one got
#      the same bump and a CHANGELOG.md, with an "Updated dependencies" entry in those that
#      depend on apimachinery; and the `workspace:` ranges are still there;
#   4. runs `pnpm publish -r --dry-run --no-git-checks` (what `changeset publish` runs for a
#      pnpm workspace, minus the upload) and checks that every one of the 19 packages would
#      be published, from a tarball whose package.json has no `workspace:` range left and
#      whose internal dependency ranges name the bumped versions.
#
#   bash scripts/release-dry-run.sh [--no-build]
#
# Exits non-zero with a message naming the failed check. KEEP_TMP=1 keeps the temp dir.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
start=$SECONDS
fail() {
  echo "release-dry-run: FAIL: $*" >&2
  exit 1
}
step() { echo "release-dry-run: [$((SECONDS - start))s] $*"; }

if [[ "${1:-}" != "--no-build" ]]; then
  step "building (turbo, cached)"
  pnpm build >/dev/null
fi
for dir in packages/*/; do
  [[ -f "$dir/dist/index.js" ]] || fail "$dir has no dist/index.js: build first"
done

tmp="$(mktemp -d "${TMPDIR:-/tmp}/kubets-release-dry-run.XXXXXX")"
case "$tmp" in "$root"/*) fail "temp dir $tmp is inside the workspace" ;; esac
if [[ "${KEEP_TMP:-}" == 1 ]]; then echo "release-dry-run: keeping $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi
work="$tmp/repo"

step "copying the repository to $work"
mkdir -p "$work"
tar -C "$root" \
  --exclude=./node_modules --exclude=.turbo \
  --exclude=./.git --exclude=./docs/api --exclude=.vitest-results --exclude=coverage \
  -cf - . | tar -C "$work" -xf -
ln -s "$root/node_modules" "$work/node_modules"
cd "$work"

step "adding a throwaway changeset for @kubets/apimachinery"
find .changeset -name '*.md' ! -name README.md -delete
cat >.changeset/release-dry-run.md <<'EOF'
---
'@kubets/apimachinery': patch
---

Throwaway change made by scripts/release-dry-run.sh.
EOF
node -e '
  const fs = require("node:fs");
  const before = {};
  for (const dir of fs.readdirSync("packages")) {
    const pkg = JSON.parse(fs.readFileSync(`packages/${dir}/package.json`, "utf8"));
    before[pkg.name] = pkg.version;
  }
  fs.writeFileSync(process.argv[1], JSON.stringify(before));
' "$tmp/versions-before.json"

step "changeset version"
pnpm exec changeset version >"$tmp/version.log" 2>&1 || {
  cat "$tmp/version.log" >&2
  fail "changeset version failed"
}

step "checking versions, CHANGELOGs and internal ranges"
node - "$tmp/versions-before.json" <<'EOF' || fail "changeset version did not produce the expected versions and changelogs"
const fs = require('node:fs');
const before = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const problems = [];
const pkgs = {};
for (const dir of fs.readdirSync('packages')) {
  const pkg = JSON.parse(fs.readFileSync(`packages/${dir}/package.json`, 'utf8'));
  pkgs[pkg.name] = { dir, pkg };
}
const bumpPatch = (v) => v.replace(/(\d+)$/, (n) => String(Number(n) + 1));
const target = '@kubets/apimachinery';
const dependsOnTarget = (pkg) =>
  Object.entries({ ...pkg.dependencies, ...pkg.peerDependencies }).some(([n]) => n === target);
let bumped = 0;
for (const [name, { dir, pkg }] of Object.entries(pkgs)) {
  const changelog = `packages/${dir}/CHANGELOG.md`;
  const text = fs.existsSync(changelog) ? fs.readFileSync(changelog, 'utf8') : '';
  // One fixed group: every published package moves with the throwaway change.
  const expectBump = !pkg.private;
  const want = expectBump ? bumpPatch(before[target]) : before[name];
  if (pkg.version !== want) problems.push(`${name}: version ${pkg.version}, expected ${want}`);
  if (expectBump) {
    bumped++;
    if (!text.includes(`## ${want}`)) problems.push(`${name}: CHANGELOG.md has no "## ${want}"`);
    if (name === target && !text.includes('Throwaway change made by scripts/release-dry-run.sh'))
      problems.push(`${name}: CHANGELOG.md lacks the changeset's summary`);
    if (name !== target && dependsOnTarget(pkg) && !text.includes(`${target}@${pkgs[target].pkg.version}`))
      problems.push(`${name}: CHANGELOG.md does not mention ${target}@${pkgs[target].pkg.version}`);
  } else if (text) {
    problems.push(`${name}: got a CHANGELOG.md without a bump`);
  }
  for (const [dep, range] of Object.entries(pkg.dependencies ?? {})) {
    if (dep.startsWith('@kubets/') && !range.startsWith('workspace:'))
      problems.push(`${name}: dependency ${dep} lost its workspace: range (${range})`);
  }
}
if (problems.length > 0) {
  console.error(problems.map((p) => `  - ${p}`).join('\n'));
  process.exit(1);
}
console.log(`  ${bumped} packages bumped together (${target} and the rest of the fixed group), CHANGELOG.md written for each`);
EOF

step "pnpm publish -r --dry-run --no-git-checks"
pnpm publish -r --dry-run --no-git-checks --report-summary >"$tmp/publish.log" 2>&1 || {
  cat "$tmp/publish.log" >&2
  fail "pnpm publish --dry-run failed"
}

step "checking what would be published"
mkdir -p "$tmp/packed"
pnpm -r --filter './packages/*' pack --pack-destination "$tmp/packed" >/dev/null
node - "$tmp/packed" <<'EOF' || fail "the dry-run publish does not match the versioned workspace"
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');
const packedDir = process.argv[2];
const problems = [];
const summary = JSON.parse(fs.readFileSync('pnpm-publish-summary.json', 'utf8'));
const published = new Map(summary.publishedPackages.map((p) => [p.name, p.version]));
const versions = {};
for (const dir of fs.readdirSync('packages')) {
  const pkg = JSON.parse(fs.readFileSync(`packages/${dir}/package.json`, 'utf8'));
  versions[pkg.name] = pkg.version;
  if (pkg.private) continue;
  if (published.get(pkg.name) !== pkg.version)
    problems.push(`${pkg.name}@${pkg.version} would not be published (summary: ${published.get(pkg.name)})`);
}
if (published.size !== 19) problems.push(`${published.size} packages would be published, expected 19`);
for (const file of fs.readdirSync(packedDir)) {
  const manifest = JSON.parse(
    execFileSync('tar', ['-xzOf', `${packedDir}/${file}`, 'package/package.json'], { encoding: 'utf8' }),
  );
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
      if (range.startsWith('workspace:'))
        problems.push(`${manifest.name}: ${field}.${dep} is still ${range}`);
      else if (dep in versions && range !== `^${versions[dep]}`)
        problems.push(`${manifest.name}: ${field}.${dep} is ${range}, expected ^${versions[dep]}`);
    }
  }
}
if (problems.length > 0) {
  console.error(problems.map((p) => `  - ${p}`).join('\n'));
  process.exit(1);
}
for (const [name, version] of [...published].sort()) console.log(`  + ${name}@${version}`);
EOF

step "OK: changeset version + publish --dry-run would release 19 packages"
