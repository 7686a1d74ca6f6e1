#!/usr/bin/env bash
# Hunts flaky tests: runs one package's tests N times and prints a pass/fail tally.
#
#   bash scripts/repeat-tests.sh [--keep-going] <package> [N] [unit|e2e|chaos] [-- <vitest args>]
#
#   <package>     a pnpm filter naming ONE package: @kubets/cache, @kubets-apps/crd-controller,
#                 ./apps/pod-controller, ...
#   N             how many runs (default 10)
#   unit|e2e|chaos  the package's `test`, `test:e2e` or `test:chaos` script (default unit)
#   --keep-going  run all N times even after a failure (default: stop at the first)
#   -- ...        passed on to vitest: a test file, `-t <name pattern>`, ...
#
# Each run's output goes to a log file in a temporary directory; a failing run's log path is
# printed (and its last lines). Exit status 0 when every run passed, 1 otherwise, 2 for a bad
# command line. e2e and chaos suites need KUBEBUILDER_ASSETS (see CONTRIBUTING.md).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  sed -n '4,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

keep_going=0
positional=()
vitest_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --keep-going) keep_going=1 ;;
    -h | --help) usage ;;
    --)
      shift
      vitest_args=("$@")
      break
      ;;
    -*)
      echo "repeat-tests: unknown option $1" >&2
      usage
      ;;
    *) positional+=("$1") ;;
  esac
  shift
done
[ "${#positional[@]}" -ge 1 ] && [ "${#positional[@]}" -le 3 ] || usage
filter="${positional[0]}"
runs="${positional[1]:-10}"
suite="${positional[2]:-unit}"
case "$runs" in '' | *[!0-9]* | 0) echo "repeat-tests: N must be a whole number ≥ 1, not '$runs'" >&2 && exit 2 ;; esac
case "$suite" in
  unit) script=test ;;
  e2e) script=test:e2e ;;
  chaos) script=test:chaos ;;
  *) echo "repeat-tests: the suite is unit, e2e or chaos, not '$suite'" >&2 && exit 2 ;;
esac

# The filter must name exactly one package, and that package must have the script: a filter
# matching nothing would otherwise "pass" every run.
packages="$(pnpm --filter "$filter" ls --depth -1 --json 2>/dev/null |
  node -e 'let s="";process.stdin.on("data",(d)=>{s+=d}).on("end",()=>{for(const p of JSON.parse(s||"[]"))console.log(`${p.name} ${p.path}`)})')"
count="$(printf '%s' "$packages" | grep -c . || true)"
if [ "$count" -ne 1 ]; then
  echo "repeat-tests: '$filter' matches $count packages; name exactly one" >&2
  [ -n "$packages" ] && printf '  %s\n' "$packages" >&2
  exit 2
fi
name="${packages%% *}"
dir="${packages#* }"
if ! node -e 'process.exit(require(process.argv[1]).scripts?.[process.argv[2]] ? 0 : 1)' \
  "$dir/package.json" "$script"; then
  echo "repeat-tests: $name has no '$script' script" >&2
  exit 2
fi

logs="$(mktemp -d "${TMPDIR:-/tmp}/kubets-repeat-XXXXXX")"
echo "repeat-tests: $name $script${vitest_args[*]:+ ${vitest_args[*]}}, $runs runs; logs in $logs"
passed=0
failed=0
failures=()
for ((run = 1; run <= runs; run++)); do
  log="$logs/run-$run.log"
  start=$SECONDS
  if pnpm --filter "$name" run "$script" "${vitest_args[@]}" >"$log" 2>&1; then
    passed=$((passed + 1))
    echo "run $run/$runs: pass ($((SECONDS - start))s)"
  else
    failed=$((failed + 1))
    failures+=("$run")
    echo "run $run/$runs: FAIL ($((SECONDS - start))s) — $log"
    grep -E '(FAIL|×|✗|AssertionError|Error:)' "$log" | head -n 15 | sed 's/^/    /' || true
    if [ "$keep_going" -eq 0 ] && [ "$run" -lt "$runs" ]; then
      echo "stopping at the first failure (--keep-going runs all $runs)"
      break
    fi
  fi
done
total=$((passed + failed))
echo "repeat-tests: $name $script: $passed passed, $failed failed of $total runs${failures[*]:+ (failed: ${failures[*]})}"
[ "$failed" -eq 0 ]
