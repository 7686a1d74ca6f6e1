#!/usr/bin/env bash
# The project's one test command (README, CI): on a fresh machine it installs what it
# needs — Node 24 and pnpm from the npm registry, etcd and kube-apiserver from Debian, Bun and
# Deno from the npm registry — then builds, type-checks, lints, and runs the unit and
# end-to-end tests, on Node and (scripts/test-runtimes.sh) on Bun and Deno.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/bootstrap.sh
pnpm install --frozen-lockfile

KUBEBUILDER_ASSETS="$(bash scripts/provision-envtest.sh | tail -n1)"
export KUBEBUILDER_ASSETS
# CI shares 2 cores with other work: envtest's control plane may take longer than its usual
# 60 s to become ready there (seen: kube-apiserver's RBAC bootstrap at load 40+). A safety net,
# not a verdict: a faster start changes nothing.
export KUBEBUILDER_CONTROLPLANE_START_TIMEOUT="${KUBEBUILDER_CONTROLPLANE_START_TIMEOUT:-3m}"

# Results of an earlier run must not count in this one's summary.
rm -rf packages/*/.vitest-results apps/*/.vitest-results tools/*/.vitest-results

status=0
pnpm build
pnpm typecheck
pnpm lint
# The package graph follows client-go's layers, with no cycle between packages or files.
node scripts/check-deps.mjs
# One public name, one meaning: a name two packages export is one declaration re-exported.
node scripts/check-exports.mjs
# API reference: fails on TypeDoc warnings, broken links and undocumented public exports.
pnpm docs:check
# Every package README's example is the code its src/readme.test.ts runs.
node scripts/readme-examples.mjs
# Generated code must match its generator's current output.
pnpm --filter @kubets/clientset generate --check
pnpm --filter @kubets/informers generate --check
pnpm --filter @kubets/apiserver generate --check
pnpm --filter @kubets/apiserver generate:wire-types --check
pnpm --filter @kubets/apiserver generate:openapi --check
pnpm --filter @kubets-apps/crd-controller generate:check
pnpm --filter @kubets-apps/mydemo-operator generate:check
pnpm test || status=1
pnpm test:e2e || status=1
# Informers against a kube-apiserver that is killed, stopped and compacted, and against
# the in-memory server with injected faults; each scenario ends in a convergence check.
pnpm test:chaos || status=1
# Bun and Deno (pinned, from the npm registry): the unit tests that run there, the six demos and
# the informer e2e on kube-apiserver 1.20 over TLS, on each (README: "Runtimes").
bash scripts/test-runtimes.sh || status=1
# Every package packed, installed from its tarball into a scratch project, imported from ESM
# and CommonJS, and type-checked as a consumer would.
bash scripts/pack-check.sh --no-build || status=1
# docs/guide.md followed word for word in a new project, its packages installed from the
# tarballs through the documented npm install lines: generator, type-check, unit and e2e tests.
node scripts/guide-check.mjs --no-build || status=1
# npm create kubets from the packed tarballs: the new project installed from them, its
# type-check, unit tests, manifests, build and envtest e2e test.
node scripts/scaffold-check.mjs --no-build || status=1
# The release flow (changeset version, then publish) in a scratch copy, without publishing.
bash scripts/release-dry-run.sh --no-build || status=1
node scripts/test-summary.mjs || status=1
exit "$status"
