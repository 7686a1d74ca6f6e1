// A ServiceAccount's identity on envtest, as a pod would have it: a token from the TokenRequest
// API (kube-apiserver signs it with the service-account key envtest passes), so a test runs
// code under that account's RBAC rules instead of as the admin.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EnvtestTls } from './envtest.js';
import { requestJson } from './https-json.js';
import { renderKubeconfig } from './kubeconfig.js';

/** Options of {@link serviceAccountUser}. */
export interface ServiceAccountUserOptions {
  /** Namespace of the ServiceAccount. */
  namespace: string;
  /** Name of the ServiceAccount; it must exist. */
  name: string;
  /** Lifetime of the token (kube-apiserver's minimum is 600 s). Default 3600. */
  expirationSeconds?: number;
  /** Audiences of the token; default the API server's (its `--service-account-issuer`). */
  audiences?: readonly string[];
  /** Aborts the request. */
  signal?: AbortSignal;
}

/** A client configuration acting as a ServiceAccount, in the shape of `@kubets/rest`'s `Config`. */
export interface ServiceAccountConfig {
  /** The API server's URL. */
  readonly host: string;
  /** The CA that signed the serving certificate (no client certificate: the token says who). */
  readonly tls: {
    /** PEM of the CA. */
    readonly caData: string;
  };
  /** The ServiceAccount's token. */
  readonly bearerToken: string;
  /** `-1`: no client-side rate limit, as envtest's admin config. */
  readonly qps: number;
}

/** A ServiceAccount's identity: its token and the configurations that carry it. */
export interface ServiceAccountUser {
  /** `system:serviceaccount:<namespace>:<name>`, the user name RBAC sees. */
  readonly username: string;
  /** The bearer token (a JWT). */
  readonly token: string;
  /** When the token expires (RFC 3339). */
  readonly expirationTimestamp: string;
  /**
   * A client configuration in the shape of `@kubets/rest`'s `Config`: the host, the CA, the
   * token, no client-side rate limit.
   */
  readonly config: ServiceAccountConfig;
  /** A kubeconfig (YAML) for the account: context `envtest`, user named after the account. */
  readonly kubeconfig: string;
  /** {@link ServiceAccountUser.kubeconfig} written to envtest's temp dir. */
  readonly kubeconfigPath: string;
}

/** What {@link serviceAccountUser} needs of an envtest: its host, admin TLS and temp dir. */
export interface ServiceAccountUserEnv {
  /** The API server's URL. */
  readonly host: string;
  /** The admin identity that asks for the token. */
  readonly tls: EnvtestTls;
  /** Where the kubeconfig is written. */
  readonly dir: string;
}

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Asks the TokenRequest API (`POST .../serviceaccounts/<name>/token`, as the admin) for a token
 * of a ServiceAccount, and gives a client configuration and a kubeconfig that act as that
 * account: requests are authorized by the RBAC rules bound to it (envtest runs kube-apiserver
 * with `--authorization-mode=RBAC`), as they would be for the operator's pod.
 *
 * @throws {TypeError} for a namespace or name that cannot be one.
 * @throws {Error} naming the account and the server's answer when the token is refused (e.g.
 *   404 when the ServiceAccount does not exist).
 */
export async function serviceAccountUser(
  env: ServiceAccountUserEnv,
  options: ServiceAccountUserOptions,
): Promise<ServiceAccountUser> {
  const { namespace, name } = options ?? {};
  if (typeof namespace !== 'string' || !dnsLabel.test(namespace)) {
    throw new TypeError(
      `serviceAccountUser: namespace ${JSON.stringify(namespace)} is not a namespace name`,
    );
  }
  if (typeof name !== 'string' || !dnsSubdomain.test(name)) {
    throw new TypeError(
      `serviceAccountUser: name ${JSON.stringify(name)} is not a ServiceAccount name`,
    );
  }
  const body = {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: {
      expirationSeconds: options.expirationSeconds ?? 3600,
      ...(options.audiences ? { audiences: [...options.audiences] } : {}),
    },
  };
  const url = `${env.host}/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`;
  const admin = { ca: env.tls.caData, cert: env.tls.certData, key: env.tls.keyData };
  const answer = await requestJson('POST', url, admin, { body, signal: options.signal });
  const account = `ServiceAccount ${namespace}/${name}`;
  if (answer.status !== 201 && answer.status !== 200) {
    throw new Error(
      `envtest: no token for ${account}: the TokenRequest was answered ${answer.status}: ${messageOf(answer.body)}`,
    );
  }
  const status = (
    JSON.parse(answer.body) as { status?: { token?: string; expirationTimestamp?: string } }
  ).status;
  if (!status?.token) {
    throw new Error(`envtest: the TokenRequest for ${account} was answered without a token`);
  }
  const username = `system:serviceaccount:${namespace}:${name}`;
  const kubeconfig = renderKubeconfig({
    server: env.host,
    caPem: env.tls.caData,
    token: status.token,
    context: 'envtest',
    user: username,
  });
  const kubeconfigPath = join(env.dir, `serviceaccount-${namespace}-${name}.kubeconfig`);
  await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 });
  return {
    username,
    token: status.token,
    expirationTimestamp: status.expirationTimestamp ?? '',
    config: {
      host: env.host,
      tls: { caData: env.tls.caData },
      bearerToken: status.token,
      qps: -1,
    },
    kubeconfig,
    kubeconfigPath,
  };
}

function messageOf(body: string): string {
  try {
    const message = (JSON.parse(body) as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  } catch {
    // Not a Status: the raw body says more than nothing.
  }
  return body.slice(0, 500);
}
