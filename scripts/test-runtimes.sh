#!/usr/bin/env bash
# kubets on Bun and Deno (scripts/test.sh runs it after the Node suites; the README's
# "Runtimes" section lists what runs where). On each runtime, from the built workspace:
#
#   unit   every package's unit tests (vitest itself running on the runtime; the apps are run by
#          the demos step, and their own tests stay on Node to keep CI short), except
#          the files listed in runtime-exclusions.txt beside this script, each with its reason;
#   demos  the six example apps' demos (scripts/demo.sh --runtime), their klog callers checked;
#   e2e    the informer on kube-apiserver 1.20 over TLS: sync, an update, a delete, a relist
#          after a 410 (packages/cache/src/informer-relist.e2e.test.ts; needs KUBEBUILDER_ASSETS).
#
# Usage: bash scripts/test-runtimes.sh [--runtime bun|deno]... [--step unit|demos|e2e]...
# (default: both runtimes, every step). Bun and Deno come from scripts/provision-runtimes.sh.
# The vitest reports land beside Node's as .vitest-results/<kind>-<runtime>.json
# (vitest.shared.ts), so scripts/test-summary.mjs counts them. Exits 1 if any step failed on any runtime.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

runtimes=()
steps=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runtime) runtimes+=("$2"); shift 2 ;;
    --step) steps+=("$2"); shift 2 ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "test-runtimes: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ ${#runtimes[@]} -gt 0 ] || runtimes=(bun deno)
[ ${#steps[@]} -gt 0 ] || steps=(unit demos e2e)
for runtime in "${runtimes[@]}"; do
  case "$runtime" in bun | deno) ;; *) echo "test-runtimes: no runtime $runtime (bun or deno)" >&2; exit 2 ;; esac
done
for step in "${steps[@]}"; do
  case "$step" in unit | demos | e2e) ;; *) echo "test-runtimes: no step $step (unit, demos or e2e)" >&2; exit 2 ;; esac
done

. scripts/bootstrap.sh
declare -A binary
while read -r name path; do binary[$name]="$path"; done < <(bash scripts/provision-runtimes.sh)

has_step() {
  local wanted="$1" step
  for step in "${steps[@]}"; do [ "$step" = "$wanted" ] && return 0; done
  return 1
}

# vitest_on <runtime> [vitest arguments...]: vitest itself on the runtime, in the current
# directory (its JSON report is named after the runtime: vitest.shared.ts). Bun runs vitest's workers as threads: its child processes lack the IPC channel
# vitest's default forks pool needs (`child.channel.unref`).
vitest_on() {
  local runtime="$1"
  shift
  case "$runtime" in
    bun) "${binary[bun]}" --bun "$root/node_modules/vitest/vitest.mjs" run --pool=threads "$@" ;;
    deno) "${binary[deno]}" run -A "$root/node_modules/vitest/vitest.mjs" run "$@" ;;
  esac
}

# The test files a runtime leaves out, from runtime-exclusions.txt: `<runtime> <file>  # reason`.
excluded_files() {
  local runtime="$1" dir="$2"
  awk -v runtime="$runtime" -v dir="$dir/" '
    /^[[:space:]]*(#|$)/ { next }
    ($1 == runtime || $1 == "all") && index($2, dir) == 1 { print substr($2, length(dir) + 1) }
  ' scripts/runtime-exclusions.txt
}

unit_tests() {
  local runtime="$1" status=0 dir file
  for dir in packages/*; do
    [ -f "$dir/vitest.config.ts" ] || continue
    local excludes=()
    while read -r file; do excludes+=(--exclude "$file"); done < <(excluded_files "$runtime" "$dir")
    printf '\n\033[1m=== %s: unit tests of %s on %s\033[0m\n' "$runtime" "$dir" "$runtime"
    (cd "$dir" && vitest_on "$runtime" --passWithNoTests "${excludes[@]}") || status=1
  done
  return "$status"
}

informer_e2e() {
  local runtime="$1"
  printf '\n\033[1m=== %s: informer over TLS on kube-apiserver (e2e)\033[0m\n' "$runtime"
  (cd packages/cache && vitest_on "$runtime" --config vitest.e2e.config.ts src/informer-relist.e2e.test.ts)
}

status=0
failed=()
for runtime in "${runtimes[@]}"; do
  printf '\n\033[1m##### %s %s\033[0m\n' "$runtime" \
    "$("${binary[$runtime]}" --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n1)"
  if has_step unit; then unit_tests "$runtime" || { status=1; failed+=("$runtime unit"); }; fi
  if has_step demos; then
    KUBETS_RUNTIME_BINARY="${binary[$runtime]}" bash scripts/demo.sh --no-build --runtime "$runtime" ||
      { status=1; failed+=("$runtime demos"); }
  fi
  if has_step e2e; then informer_e2e "$runtime" || { status=1; failed+=("$runtime e2e"); }; fi
done
if [ "$status" -ne 0 ]; then echo "test-runtimes: failed: ${failed[*]}" >&2; fi
exit "$status"
