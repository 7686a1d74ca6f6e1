#!/usr/bin/env bash
# The one command to see kubets run (README): on a fresh machine it installs Node 24 and pnpm
# (scripts/bootstrap.sh), the dependencies, builds the packages, then runs each example app
# in demo mode — on the embedded in-memory API server, with a short scripted scenario — one
# after the other. No cluster and no kube-apiserver binary needed. Exits non-zero if any demo
# fails. What the output means: apps/README.md.
#
#   bash scripts/demo.sh                  # on Node
#   bash scripts/demo.sh --runtime bun    # on Bun (or deno), installed by scripts/provision-runtimes.sh
#   bash scripts/demo.sh --no-build       # skip the install and the build (done already)
#
# On Bun and Deno every klog line's caller is checked too: Deno names the `file:line` as Node
# does, Bun leaves it out (`???:1`, see stackKeepsEveryCaller in @kubets/apimachinery).
set -euo pipefail
cd "$(dirname "$0")/.."

runtime=node
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --runtime) runtime="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    *) echo "demo.sh: unknown argument $1 (--runtime node|bun|deno, --no-build)" >&2; exit 2 ;;
  esac
done

. scripts/bootstrap.sh
if [ "$build" -eq 1 ]; then
  pnpm install --frozen-lockfile
  pnpm build --output-logs=errors-only
fi

# The command that runs an app's TypeScript source on the runtime.
case "$runtime" in
  node) run=(node) ;;
  bun | deno)
    binary="${KUBETS_RUNTIME_BINARY:-$(bash scripts/provision-runtimes.sh | awk -v name="$runtime" '$1 == name { print $2 }')}"
    if [ "$runtime" = bun ]; then run=("$binary"); else run=("$binary" run -A); fi
    ;;
  *) echo "demo.sh: no runtime $runtime (node, bun or deno)" >&2; exit 2 ;;
esac
output="$(mktemp -d)"
trap 'rm -rf "$output"' EXIT

demo() {
  local app="$1"
  shift
  printf '\n\033[1m=== %s: %s src/main.ts --demo %s\033[0m\n' "$app" "${run[*]##*/}" "$*"
  (cd "apps/$app" && "${run[@]}" src/main.ts --demo "$@") 2>&1 | tee "$output/$app.log"
  [ "$runtime" = node ] || node scripts/check-klog-callers.mjs "$runtime" "$output/$app.log"
}

# --demo: run on the embedded API server even when a cluster is configured (KUBECONFIG,
# ~/.kube/config); without it the apps would connect to that cluster instead.
demo client-tour
demo pod-controller
demo deployment-watcher
demo dynamic-watcher deployments.v1.apps
demo crd-controller
demo mydemo-operator

printf '\n\033[1mAll demos done.\033[0m Point an app at a real cluster with --kubeconfig (and --master): see apps/README.md.\n'
