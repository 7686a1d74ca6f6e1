// Small kubeconfig fixtures for tests and benchmarks that load one user's credentials. No
// imports, so apps/bench loads it with plain Node (the `./kubeconfig` subpath).

/**
 * A PEM block that is not a real certificate or key, base64-encoded as kubeconfig `*-data`
 * fields hold it: kubets checks only that the data decodes to a `-----BEGIN` block.
 */
export function fakePemData(label: string): string {
  return Buffer.from(`-----BEGIN ${label}-----\nAAAA\n-----END ${label}-----\n`).toString('base64');
}

/**
 * Kubeconfig text (JSON, which is YAML) with cluster `k` at `server`, user `u` holding
 * `user`'s fields (`token`, `exec`, `auth-provider`, ...) and the current context `c`
 * selecting them.
 */
export function singleUserKubeconfig(
  user: Record<string, unknown>,
  server = 'https://127.0.0.1:6443',
): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'c',
    clusters: [{ name: 'k', cluster: { server } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
  });
}
