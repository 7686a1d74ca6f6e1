#!/usr/bin/env bash
# Makes Node 24 and the pinned pnpm available on a machine that may have neither,
# using only the npm registry: Node comes from the registry's `node` package (the
# binary ships inside it), pnpm from the `pnpm` package, both cached under
# ~/.cache/kubets so the second run is instant.
#
# Source it to get them on PATH:   . scripts/bootstrap.sh
# It leaves the calling shell's options (set -e and friends) as they were.

kubets_bootstrap() {
  local cache="${KUBETS_CACHE_DIR:-$HOME/.cache/kubets}"
  local node_major=24
  local repo_root pnpm_version
  repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  pnpm_version="$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' "$repo_root/package.json")"

  local current_major
  current_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  if [ "$current_major" != "$node_major" ]; then
    local node_prefix="$cache/node$node_major"
    if [ ! -x "$node_prefix/node_modules/node/bin/node" ]; then
      echo "[bootstrap] installing Node $node_major from the npm registry into $node_prefix" >&2
      mkdir -p "$node_prefix" &&
        npm install --prefix "$node_prefix" --no-save --no-audit --no-fund "node@$node_major" >&2 ||
        return 1
    fi
    export PATH="$node_prefix/node_modules/node/bin:$PATH"
  fi

  if [ "$(pnpm --version 2>/dev/null)" != "$pnpm_version" ]; then
    local pnpm_prefix="$cache/pnpm-$pnpm_version"
    if [ ! -x "$pnpm_prefix/node_modules/.bin/pnpm" ]; then
      echo "[bootstrap] installing pnpm $pnpm_version into $pnpm_prefix" >&2
      mkdir -p "$pnpm_prefix" &&
        npm install --prefix "$pnpm_prefix" --no-save --no-audit --no-fund "pnpm@$pnpm_version" >&2 ||
        return 1
    fi
    export PATH="$pnpm_prefix/node_modules/.bin:$PATH"
  fi

  echo "[bootstrap] node $(node --version), pnpm $(pnpm --version)" >&2
}

kubets_bootstrap
