import { defineConfig } from 'vitest/config';

// The runtime vitest runs on, when not Node: scripts/test-runtimes.sh runs the suites on Bun
// and Deno too, and their reports must not replace Node's.
const versions: Record<string, string | undefined> = process.versions;
const runtimeSuffix =
  versions.bun !== undefined ? '-bun' : versions.deno !== undefined ? '-deno' : '';

// Every package writes its results as JSON too, so scripts/test-summary.mjs can print
// one closing "N passed, N failed" line for the whole run.
function reporters(kind: 'unit' | 'e2e' | 'chaos'): ['default', ['json', { outputFile: string }]] {
  return ['default', ['json', { outputFile: `.vitest-results/${kind}${runtimeSuffix}.json` }]];
}

/** Unit tests: fast, no external processes, run in parallel. */
export function unitTestConfig() {
  return defineConfig({
    test: {
      include: ['src/**/*.test.ts'],
      exclude: ['src/**/*.e2e.test.ts', 'src/**/*.chaos.test.ts'],
      // CI machines are small and shared: tests that start servers or child processes get
      // room, while a hang still fails.
      testTimeout: 30_000,
      hookTimeout: 30_000,
      reporters: reporters('unit'),
    },
  });
}

/** End-to-end tests against a real etcd + kube-apiserver: one file at a time, long timeouts. */
export function e2eTestConfig() {
  return defineConfig({
    test: {
      include: ['src/**/*.e2e.test.ts'],
      testTimeout: 120_000,
      hookTimeout: 180_000,
      fileParallelism: false,
      reporters: reporters('e2e'),
    },
  });
}

/**
 * Chaos tests (`pnpm test:chaos`): informers against servers that are killed, stopped,
 * compacted and cut off. Like the e2e tests, one file at a time with long timeouts; workers
 * run with `--expose-gc` so a scenario can compare the heap after a GC with its baseline.
 */
export function chaosTestConfig() {
  return defineConfig({
    test: {
      include: ['test/chaos/**/*.chaos.test.ts'],
      testTimeout: 300_000,
      hookTimeout: 180_000,
      fileParallelism: false,
      execArgv: ['--expose-gc'],
      reporters: reporters('chaos'),
    },
  });
}
