/** What goes into a kubeconfig made by {@link renderKubeconfig}. */
export interface KubeconfigParams {
  /** `https://127.0.0.1:PORT`. */
  server: string;
  /** PEM of the CA that signed the serving certificate; omit for a plain `http://` server. */
  caPem?: string;
  /** PEM of the client certificate; omit (with `keyPem`) for a user without credentials. */
  certPem?: string;
  /** PEM of the client key. */
  keyPem?: string;
  /** A bearer token (e.g. a ServiceAccount's), instead of a client certificate. */
  token?: string;
  /**
   * Writes `insecure-skip-tls-verify: true` for the cluster. For a plain `http://` server this
   * changes nothing on the wire, but `@kubernetes/client-node` refuses `http://` without it.
   */
  insecureSkipTlsVerify?: boolean;
  /** Context name; also the cluster name. */
  context: string;
  /** User name. */
  user: string;
}

const b64 = (pem: string): string => Buffer.from(pem, 'utf8').toString('base64');

/**
 * Renders a kubeconfig (YAML) with one cluster, one user with embedded client certificate
 * data or a bearer token (or no credentials when none are given), and one context, which is current. Every value is either a fixed key, base64, or a
 * name we choose, so all scalars are written double-quoted and no YAML escaping is needed
 * beyond that.
 */
export function renderKubeconfig(params: KubeconfigParams): string {
  const q = (value: string): string => JSON.stringify(value);
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${q(params.context)}`,
    '  cluster:',
    `    server: ${q(params.server)}`,
    ...(params.caPem ? [`    certificate-authority-data: ${q(b64(params.caPem))}`] : []),
    ...(params.insecureSkipTlsVerify ? ['    insecure-skip-tls-verify: true'] : []),
    'users:',
    `- name: ${q(params.user)}`,
    ...(params.certPem && params.keyPem
      ? [
          '  user:',
          `    client-certificate-data: ${q(b64(params.certPem))}`,
          `    client-key-data: ${q(b64(params.keyPem))}`,
        ]
      : params.token
        ? ['  user:', `    token: ${q(params.token)}`]
        : ['  user: {}']),
    'contexts:',
    `- name: ${q(params.context)}`,
    '  context:',
    `    cluster: ${q(params.context)}`,
    `    user: ${q(params.user)}`,
    '    namespace: "default"',
    `current-context: ${q(params.context)}`,
    'preferences: {}',
    '',
  ].join('\n');
}
