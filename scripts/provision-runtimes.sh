#!/usr/bin/env bash
# Provisions the other JavaScript runtimes kubets is checked on, Bun and Deno, from the npm
# registry's `bun` and `deno` packages (each ships its binary in a per-platform package), at
# pinned versions, cached under ~/.cache/kubets (KUBETS_CACHE_DIR) like Node and pnpm in
# scripts/bootstrap.sh, so a second run returns at once. They stay out of the workspace's
# dependencies: `pnpm install` does not fetch about 200 MB of binaries nobody else needs.
#
# Prints one line per runtime, `<name> <path of its binary>`:
#   bun /root/.cache/kubets/bun-1.4.5/node_modules/.bin/bun
#   deno /root/.cache/kubets/deno-2.9.6/node_modules/.bin/deno
set -euo pipefail

# Bump a version here (and in the README's "Runtimes" section) to move CI to it.
bun_version=1.4.5
deno_version=2.9.6

cache="${KUBETS_CACHE_DIR:-$HOME/.cache/kubets}"

log() { printf '[provision-runtimes] %s\n' "$*" >&2; }

# provision <package> <version>: installs it into its own prefix unless its binary runs.
provision() {
  local name="$1" version="$2"
  local prefix="$cache/$name-$version"
  local binary="$prefix/node_modules/.bin/$name"
  if ! "$binary" --version >/dev/null 2>&1; then
    log "installing $name $version from the npm registry into $prefix"
    rm -rf "$prefix"
    mkdir -p "$prefix"
    # The package's install script moves the platform package's binary into place.
    npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error \
      --fetch-timeout=60000 --fetch-retries=2 "$name@$version" >&2
    if ! "$binary" --version >/dev/null 2>&1; then
      log "$name $version installed, but $binary does not run"
      exit 1
    fi
  fi
  echo "$name $binary"
}

provision bun "$bun_version"
provision deno "$deno_version"
