// client-node's authenticators, each loaded the first time a kubeconfig user needs it.
// `KubeConfig` constructs all five up front, and its OIDC one pulls in openid-client and
// client-node's whole API client (~90 MB): a process whose kubeconfig holds a token or a
// client certificate should load none of them. The modules are imported by their file
// path, as kubeconfig.ts explains; the order and the tests are those of
// `KubeConfig.applyAuthorizationHeader` (azure, gcp, exec, tokenFile, oidc).
import type { User } from '@kubernetes/client-node';
import type { Authenticator } from '@kubernetes/client-node/dist/auth.js';

export type { Authenticator };

/** An auth plugin named by a kubeconfig user, and how to load its authenticator. */
export interface AuthPlugin {
  /** How error messages name it. */
  readonly name: string;
  /** Whether it authenticates this user (the test of client-node's `isAuthProvider`). */
  matches(user: User): boolean;
  load(): Promise<Authenticator>;
}

interface AuthProviderField {
  name?: unknown;
  config?: { exec?: unknown; tokenFile?: unknown } | null;
}

const providerOf = (user: User): AuthProviderField | undefined =>
  user.authProvider as AuthProviderField | undefined;

const plugins: readonly AuthPlugin[] = [
  {
    name: 'azure',
    matches: (user) => providerOf(user)?.name === 'azure',
    load: async () => new (await import('@kubernetes/client-node/dist/azure_auth.js')).AzureAuth(),
  },
  {
    name: 'gcp',
    matches: (user) => providerOf(user)?.name === 'gcp',
    load: async () =>
      new (await import('@kubernetes/client-node/dist/gcp_auth.js')).GoogleCloudPlatformAuth(),
  },
  {
    name: 'exec',
    matches: (user) => {
      const provider = providerOf(user);
      return Boolean(user.exec) || provider?.name === 'exec' || Boolean(provider?.config?.exec);
    },
    load: async () => new (await import('@kubernetes/client-node/dist/exec_auth.js')).ExecAuth(),
  },
  {
    name: 'tokenFile',
    matches: (user) => Boolean(providerOf(user)?.config?.tokenFile),
    load: async () => new (await import('@kubernetes/client-node/dist/file_auth.js')).FileAuth(),
  },
  {
    name: 'oidc',
    matches: (user) => providerOf(user)?.name === 'oidc',
    load: async () =>
      new (await import('@kubernetes/client-node/dist/oidc_auth.js')).OpenIDConnectAuth(),
  },
];

/** The names of the auth plugins kubets can load, for error messages. */
export const authPluginNames: readonly string[] = plugins.map((plugin) => plugin.name);

/** The auth plugin that authenticates `user`; undefined when none does. */
export function authPluginFor(user: User): AuthPlugin | undefined {
  return plugins.find((plugin) => plugin.matches(user));
}
