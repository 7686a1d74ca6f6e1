// client-node's authenticators, each loaded the first time a kubeconfig user needs it. This is
// the only file of @kubets/rest that imports @kubernetes/client-node, an optional peer: a
// kubeconfig that names no exec plugin or auth provider never loads it. `KubeConfig`
// constructs all five authenticators up front, and its OIDC one pulls in openid-client and
// client-node's whole API client (~90 MB); here each is imported by its file path when first
// asked for credentials (client-node 2.0 has no `exports` map, so the paths are its layout:
// auth-plugins.test.ts fails when they move). The order and the tests are those of
// `KubeConfig.applyAuthorizationHeader` (azure, gcp, exec, tokenFile, oidc).
import type { User } from '@kubernetes/client-node';
import { requireModule } from './builtins.js';
import type { KubeconfigAuthInfo } from './clientcmd-api.js';

/** The request options an authenticator writes to: headers, and a client certificate. */
export interface AppliedAuthentication {
  headers: Record<string, string>;
  cert?: string | Buffer | (string | Buffer)[];
  key?: string | Buffer | (string | Buffer)[];
}

/** A loaded authenticator, with its own credential cache (exec caches per user name). */
export interface Authenticator {
  applyAuthentication(
    userName: string,
    authInfo: KubeconfigAuthInfo,
    applied: AppliedAuthentication,
  ): Promise<void>;
}

/** An auth plugin named by a kubeconfig user, and how to load its authenticator. */
export interface AuthPlugin {
  /** How error messages name it. */
  readonly name: string;
  /** Whether it authenticates this user (the test of client-node's `isAuthProvider`). */
  matches(authInfo: KubeconfigAuthInfo): boolean;
  /** The client-node file that defines its authenticator, and the class it exports. */
  readonly module: { readonly file: string; readonly exportName: string };
}

interface AuthProviderField {
  name?: unknown;
  config?: { exec?: unknown; tokenFile?: unknown } | null;
}

const providerOf = (authInfo: KubeconfigAuthInfo): AuthProviderField | undefined =>
  authInfo['auth-provider'] as AuthProviderField | undefined;

/**
 * The user as client-node's authenticators read it (what its `config_types.js` makes of a
 * kubeconfig entry). The exec and auth-provider objects are the kubeconfig's own, so a
 * refreshed OIDC token written back by the authenticator stays in the loaded kubeconfig.
 */
function clientNodeUser(name: string, authInfo: KubeconfigAuthInfo): User {
  return {
    name,
    authProvider: authInfo['auth-provider'],
    exec: authInfo.exec,
    certData: authInfo['client-certificate-data'],
    certFile: authInfo['client-certificate'],
    keyData: authInfo['client-key-data'],
    keyFile: authInfo['client-key'],
    token: authInfo.token,
    username: authInfo.username,
    password: authInfo.password,
    impersonateUser: authInfo.as,
  } as User;
}

/** What every client-node authenticator class implements (its `Authenticator` interface). */
interface ClientNodeAuthenticator {
  applyAuthentication(user: User, options: AppliedAuthentication): Promise<void>;
}

/** The client-node package the authenticators come from. */
export const clientNodePackage = '@kubernetes/client-node';

/** Every auth plugin, in the order they are tried. */
export const authPlugins: readonly AuthPlugin[] = [
  {
    name: 'azure',
    matches: (authInfo) => providerOf(authInfo)?.name === 'azure',
    module: { file: 'dist/azure_auth.js', exportName: 'AzureAuth' },
  },
  {
    name: 'gcp',
    matches: (authInfo) => providerOf(authInfo)?.name === 'gcp',
    module: { file: 'dist/gcp_auth.js', exportName: 'GoogleCloudPlatformAuth' },
  },
  {
    name: 'exec',
    matches: (authInfo) => {
      const provider = providerOf(authInfo);
      return Boolean(authInfo.exec) || provider?.name === 'exec' || Boolean(provider?.config?.exec);
    },
    module: { file: 'dist/exec_auth.js', exportName: 'ExecAuth' },
  },
  {
    name: 'tokenFile',
    matches: (authInfo) => Boolean(providerOf(authInfo)?.config?.tokenFile),
    module: { file: 'dist/file_auth.js', exportName: 'FileAuth' },
  },
  {
    name: 'oidc',
    matches: (authInfo) => providerOf(authInfo)?.name === 'oidc',
    module: { file: 'dist/oidc_auth.js', exportName: 'OpenIDConnectAuth' },
  },
];

function resolves(specifier: string): boolean {
  try {
    requireModule.resolve(specifier);
    return true;
  } catch {
    return false;
  }
}

/**
 * Imports the plugin's client-node file and constructs its authenticator. A missing
 * client-node (it is an optional peer) and a file or export that moved are reported as such.
 * `packageName` is client-node's; tests name another.
 */
export async function loadAuthPlugin(
  plugin: AuthPlugin,
  packageName = clientNodePackage,
): Promise<Authenticator> {
  const specifier = `${packageName}/${plugin.module.file}`;
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(specifier)) as Record<string, unknown>;
  } catch (err) {
    if (!resolves(`${packageName}/package.json`)) {
      throw new Error(
        `the ${plugin.name} auth plugin needs ${packageName} ~2.0 installed beside @kubets/rest`,
        { cause: err },
      );
    }
    if (!resolves(specifier)) {
      throw new Error(`${specifier} does not exist: an unsupported ${packageName} version`, {
        cause: err,
      });
    }
    throw err;
  }
  const Authenticator = loaded[plugin.module.exportName] as
    | (new () => ClientNodeAuthenticator)
    | undefined;
  if (typeof Authenticator !== 'function') {
    throw new Error(
      `${specifier} has no export ${plugin.module.exportName}: an unsupported ${packageName} version`,
    );
  }
  const authenticator = new Authenticator();
  return {
    applyAuthentication: (userName, authInfo, applied) =>
      authenticator.applyAuthentication(clientNodeUser(userName, authInfo), applied),
  };
}

/** The names of the auth plugins kubets can load, for error messages. */
export const authPluginNames: readonly string[] = authPlugins.map((plugin) => plugin.name);

/** The auth plugin that authenticates `authInfo`; undefined when none does. */
export function authPluginFor(authInfo: KubeconfigAuthInfo): AuthPlugin | undefined {
  return authPlugins.find((plugin) => plugin.matches(authInfo));
}
