// What the e2e test files against envtest (a real etcd + kube-apiserver, started by
// @kubets/envtest) share: one envtest per file, started before its tests and stopped after
// them, and namespaces of their own. The clients stay in each file: they come from packages
// this one must not depend on (their tests depend on it).
import { randomUUID } from 'node:crypto';
import { type Envtest, startEnvtest } from '@kubets/envtest';
import { afterAll, beforeAll } from 'vitest';

/**
 * Starts envtest before the test file's tests, then runs `setup` with it (to make the file's
 * clients from `env.kubeconfigPath` and the objects every test needs). After the tests it
 * runs `teardown` (for what the tests left running), then stops envtest even when
 * `teardown` failed. Returns envtest, for tests that restart or freeze its kube-apiserver;
 * it throws when called before envtest is up.
 */
export function useEnvtest(
  setup: (env: Envtest) => unknown,
  teardown?: () => unknown,
): () => Envtest {
  let env: Envtest | undefined;
  beforeAll(async () => {
    env = await startEnvtest();
    await setup(env);
  });
  afterAll(async () => {
    try {
      await teardown?.();
    } finally {
      await env?.stop();
    }
  });
  return () => {
    if (env === undefined) throw new Error('envtest is not up yet: use it in a test or a hook');
    return env;
  };
}

/** A Namespace object, as {@link createTestNamespace} creates it. */
export type NamespaceFixture = { apiVersion: 'v1'; kind: 'Namespace'; metadata: { name: string } };

/**
 * Creates a namespace named `<prefix>-<8 random hex digits>`, so that tests (and test runs)
 * do not see each other's objects, through `namespaces` (the typed client's
 * `coreV1().namespaces()` or the dynamic client's namespaces resource). Resolves with its
 * name.
 */
export async function createTestNamespace(
  namespaces: { create(namespace: NamespaceFixture): Promise<unknown> },
  prefix: string,
): Promise<string> {
  const name = `${prefix}-${randomUUID().slice(0, 8)}`;
  await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

/**
 * Object names `<prefix>-<suffix>` sharing one random 6-hex-digit suffix, so that a test's
 * objects do not collide with another run's in a shared namespace; the suffix comes last
 * in the result, for names made later in the same test.
 */
export function uniqueNames(...prefixes: string[]): { names: string[]; suffix: string } {
  const suffix = randomUUID().slice(0, 6);
  return { names: prefixes.map((prefix) => `${prefix}-${suffix}`), suffix };
}
