import { defineConfig } from 'vitest/config';

/**
 * The differential harness (`pnpm --filter @kubets/apiserver diff:kube-apiserver`): the same
 * steps against envtest's kube-apiserver 1.20 and the in-memory server, a report of what
 * differs. Not part of any test suite.
 */
export default defineConfig({
  test: {
    include: ['test/differential/*.diff.ts'],
    testTimeout: 900_000,
    hookTimeout: 180_000,
  },
});
