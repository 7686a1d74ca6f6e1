#!/usr/bin/env bash
# The one command to see kubets run (README): on a fresh machine it installs Node 24 and pnpm
# (scripts/bootstrap.sh), the dependencies, builds the packages, then runs each example app
# in demo mode — on the embedded in-memory API server, with a short scripted scenario — one
# after the other. No cluster and no kube-apiserver binary needed. Exits non-zero if any demo
# fails. What the output means: apps/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/bootstrap.sh
pnpm install --frozen-lockfile
pnpm build --output-logs=errors-only

demo() {
  local app="$1"
  shift
  printf '\n\033[1m=== %s: node src/main.ts --demo %s\033[0m\n' "$app" "$*"
  (cd "apps/$app" && node src/main.ts --demo "$@")
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
