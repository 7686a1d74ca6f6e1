// Kubeconfig loading, as client-go's tools/clientcmd: where the files are looked for and how
// they merge (`ClientConfigLoadingRules`), which context is used, the `--master` override, and
// the rest.Config a context makes (`DirectClientConfig.ClientConfig`). The files are read by
// kubets (kubeconfig.ts, with the `yaml` parser); @kubernetes/client-node is loaded only for a
// user with an exec plugin or an auth provider, by auth-plugins.ts.
import { delimiter, join } from 'node:path';
import {
  type AppliedAuthentication,
  type Authenticator,
  type AuthPlugin,
  authPluginFor,
  authPluginNames,
  loadAuthPlugin,
} from './auth-plugins.js';
import { nodeFs, nodeOs } from './builtins.js';
import type {
  Kubeconfig,
  KubeconfigAuthInfo,
  KubeconfigCluster,
  KubeconfigContext,
} from './clientcmd-api.js';
import {
  type AuthProvider,
  type Config,
  describeFsError,
  inClusterConfig,
  printRedacted,
  type RequestCredentials,
  type TLSClientConfig,
} from './config.js';
import { ConfigError, CredentialsError } from './errors.js';
import {
  findNamed,
  firstLine,
  kindOf,
  parseKubeconfig,
  resolveKubeconfigPaths,
} from './kubeconfig.js';

/** Where {@link loadConfig} looks, and what it overrides. */
export interface LoadConfigOptions {
  /** An explicit kubeconfig path; a missing file is an error. */
  kubeconfig?: string | undefined;
  /** The context to use instead of the kubeconfig's `current-context`. */
  context?: string | undefined;
  /**
   * The server URL, overriding the kubeconfig's, like client-go's
   * `BuildConfigFromFlags(master, kubeconfig)`: without `kubeconfig` the result is a plain
   * config for that URL (KUBECONFIG and `~/.kube/config` are not consulted).
   */
  master?: string | undefined;
  /** `true`: use the in-cluster service account only. `false`: never fall back to it. */
  inCluster?: boolean | undefined;
  /** The environment to read `KUBECONFIG` and `KUBERNETES_SERVICE_*` from; `process.env` by default. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** The home directory holding `.kube/config`; the user's home by default. */
  homeDir?: string | undefined;
  /** The service-account directory for in-cluster configuration; `/var/run/secrets/kubernetes.io/serviceaccount` by default. */
  serviceAccountDir?: string | undefined;
}

/** Where {@link loadKubeconfig} looks for kubeconfig files: the options of {@link loadConfig} that say so. */
export type KubeconfigLoadingOptions = Pick<LoadConfigOptions, 'kubeconfig' | 'env' | 'homeDir'>;

/**
 * Where {@link loadConfig} takes its configuration from, in the order it looks:
 * `explicit` (a `kubeconfig` path, a `master` URL or `inCluster: true`), the files in
 * `KUBECONFIG`, `~/.kube/config` (`home`), the in-cluster service account.
 */
export type ConfigSource = 'explicit' | 'KUBECONFIG' | 'home' | 'in-cluster';

/**
 * Which source {@link loadConfig} would use with these options, without reading any
 * kubeconfig; `undefined` when there is none (loadConfig would throw). A program uses it
 * to fall back to something else, e.g. an embedded server, when no cluster is configured.
 */
export function configSource(options: LoadConfigOptions = {}): ConfigSource | undefined {
  const env = options.env ?? process.env;
  if (options.inCluster === true || options.kubeconfig || options.master) return 'explicit';
  if (kubeconfigEnvFiles(env).length > 0) return 'KUBECONFIG';
  const homeConfig = homeKubeconfig(options);
  if (homeConfig && isFile(homeConfig)) return 'home';
  if (options.inCluster !== false && env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT) {
    return 'in-cluster';
  }
  return undefined;
}

/** The files in `KUBECONFIG`, each once, in order (clientcmd's `deduplicate`). */
export function kubeconfigEnvFiles(env: Readonly<Record<string, string | undefined>>): string[] {
  const files = env.KUBECONFIG?.split(delimiter).filter((file) => file.length > 0) ?? [];
  return [...new Set(files)];
}

/**
 * The kubeconfig files looked at, in precedence order, as clientcmd's
 * `GetLoadingPrecedence`: the explicit path alone, else the `KUBECONFIG` files, else
 * `~/.kube/config`.
 */
export function kubeconfigPrecedence(options: KubeconfigLoadingOptions = {}): string[] {
  if (options.kubeconfig) return [options.kubeconfig];
  const fromEnv = kubeconfigEnvFiles(options.env ?? process.env);
  if (fromEnv.length > 0) return fromEnv;
  const home = homeKubeconfig(options);
  return home ? [home] : [];
}

function homeKubeconfig(options: KubeconfigLoadingOptions): string | undefined {
  const home = options.homeDir ?? safeHomedir();
  return home ? join(home, '.kube', 'config') : undefined;
}

/**
 * Builds a {@link Config} the way kubectl and controllers find one: an explicit kubeconfig
 * path, else the files in `KUBECONFIG` (merged: the first file to set a value wins), else
 * `~/.kube/config`, else the in-cluster service account ({@link configSource} says which).
 * `master` overrides the server URL. Client certificates, tokens, token files and basic
 * authentication are read here; exec plugins, OIDC and the gcp/azure auth providers run
 * through `@kubernetes/client-node`'s authenticators (an optional peer dependency), each
 * loaded on the first request that needs it ({@link kubeconfigAuthProvider}).
 *
 * @throws {ConfigError} naming the file, context or field when nothing usable is found, an
 * auth provider no authenticator handles, or an exec plugin without a command.
 */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const inClusterOptions = { env, serviceAccountDir: options.serviceAccountDir };
  switch (configSource(options)) {
    case 'explicit':
      if (options.inCluster === true) {
        const config = inClusterConfig(inClusterOptions);
        return options.master ? printRedacted({ ...config, host: options.master }) : config;
      }
      if (options.kubeconfig) {
        return configFromKubeconfig(loadKubeconfig(options), {
          context: options.context,
          master: options.master,
        });
      }
      return { host: options.master ?? '' };
    case 'KUBECONFIG':
    case 'home':
      return configFromKubeconfig(loadKubeconfig(options), { context: options.context });
    case 'in-cluster':
      return inClusterConfig(inClusterOptions);
    case undefined:
      throw new ConfigError(
        'no Kubernetes configuration found: pass a kubeconfig path, set KUBECONFIG, create ~/.kube/config, or run inside a cluster',
      );
  }
}

/**
 * Reads and merges the kubeconfig files {@link loadConfig} would use, as clientcmd's
 * `ClientConfigLoadingRules.Load`: the explicit `kubeconfig` path (which must exist), else
 * the `KUBECONFIG` files (missing ones skipped), else `~/.kube/config`. Merging keeps, for
 * each cluster, user and context name, the entry of the first file that defines it, and
 * the first `current-context` set. Relative file references resolve against the directory
 * of the file that holds them.
 *
 * @throws {ConfigError} naming the file: unreadable, not a kubeconfig, a malformed entry;
 * or when none of the files exists.
 */
export function loadKubeconfig(options: KubeconfigLoadingOptions = {}): Kubeconfig {
  const files = kubeconfigPrecedence(options);
  // Like clientcmd, files listed in KUBECONFIG that do not exist are skipped; an explicit
  // path must exist.
  const existing = options.kubeconfig ? files : files.filter(exists);
  if (existing.length === 0) {
    const fromEnv = kubeconfigEnvFiles(options.env ?? process.env);
    throw new ConfigError(
      fromEnv.length > 0
        ? `none of the files in KUBECONFIG exist: ${fromEnv.join(delimiter)}`
        : `no kubeconfig found: ${files.join(delimiter) || 'no home directory'} does not exist`,
      { file: files[0] },
    );
  }
  return mergeKubeconfigFiles(existing);
}

function safeHomedir(): string | undefined {
  try {
    return nodeOs().homedir() || undefined;
  } catch {
    return undefined;
  }
}

function isFile(path: string): boolean {
  try {
    return nodeFs().statSync(path).isFile();
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  return nodeFs().existsSync(path);
}

// Which files a merged kubeconfig came from, so errors can name them.
const sourceFiles = new WeakMap<Kubeconfig, readonly string[]>();

/** Reads one kubeconfig file: parsed, checked and its file references made absolute. */
function readKubeconfigFile(file: string): Kubeconfig {
  let text: string;
  try {
    text = nodeFs().readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `cannot read kubeconfig ${file}: ${describeFsError(err)}`,
      { file },
      { cause: err },
    );
  }
  const kubeconfig = parseKubeconfig(text, file);
  resolveKubeconfigPaths(kubeconfig, file);
  return kubeconfig;
}

function mergeKubeconfigFiles(files: readonly string[]): Kubeconfig {
  const merged: Kubeconfig = { clusters: [], users: [], contexts: [], 'current-context': '' };
  const addNew = <T extends { name: string }>(into: T[], from: readonly T[]): void => {
    for (const entry of from) {
      if (!into.some((known) => known.name === entry.name)) into.push(entry);
    }
  };
  for (const file of files) {
    const single = readKubeconfigFile(file);
    addNew(merged.clusters, single.clusters);
    addNew(merged.users, single.users);
    addNew(merged.contexts, single.contexts);
    if (!merged['current-context']) merged['current-context'] = single['current-context'];
  }
  const { clusters, users, contexts } = merged;
  if (clusters.length + users.length + contexts.length === 0 && !merged['current-context']) {
    const file = files.join(delimiter);
    throw new ConfigError(
      `invalid kubeconfig ${file}: not a kubeconfig (no clusters, users or contexts)`,
      { file },
    );
  }
  sourceFiles.set(merged, files);
  return merged;
}

/** Options for {@link configFromKubeconfig}. */
export interface FromKubeconfigOptions {
  /** The context to use instead of the current one. */
  context?: string | undefined;
  /** Overrides the cluster's server URL. */
  master?: string | undefined;
}

// Where an error message says a kubeconfig came from: ` in kubeconfig <files>`.
function describeSource(kubeconfig: Kubeconfig): { file: string | undefined; where: string } {
  const file = sourceFiles.get(kubeconfig)?.join(delimiter);
  return { file, where: file ? ` in kubeconfig ${file}` : '' };
}

/** The context `options.context` or the current one names, with its cluster and user. */
function resolveContext(
  kubeconfig: Kubeconfig,
  requested: string | undefined,
): {
  contextName: string;
  context: KubeconfigContext;
  clusterName: string;
  cluster: KubeconfigCluster;
  userName: string | undefined;
  user: KubeconfigAuthInfo | undefined;
} {
  const { file, where } = describeSource(kubeconfig);
  const contextName = requested || kubeconfig['current-context'];
  if (!contextName) {
    throw new ConfigError(
      `no context selected${where}: current-context is not set; choose one of ${listNames(kubeconfig.contexts)}`,
      { file, field: 'current-context' },
    );
  }
  const context = findNamed(kubeconfig.contexts, contextName)?.context;
  if (!context) {
    throw new ConfigError(
      `context "${contextName}" not found${where}; known contexts: ${listNames(kubeconfig.contexts)}`,
      { file, context: contextName },
    );
  }
  const cluster = findNamed(kubeconfig.clusters, context.cluster)?.cluster;
  if (!cluster) {
    throw new ConfigError(
      `cluster "${context.cluster}" of context "${contextName}" not found${where}`,
      { file, context: contextName, field: `contexts[${contextName}].context.cluster` },
    );
  }
  const user = context.user ? findNamed(kubeconfig.users, context.user)?.user : undefined;
  if (context.user && !user) {
    throw new ConfigError(`user "${context.user}" of context "${contextName}" not found${where}`, {
      file,
      context: contextName,
      field: `contexts[${contextName}].context.user`,
    });
  }
  return {
    contextName,
    context,
    clusterName: context.cluster,
    cluster,
    userName: context.user,
    user,
  };
}

/**
 * Builds a {@link Config} from a loaded kubeconfig (its current context, or
 * `options.context`), as clientcmd's `DirectClientConfig.ClientConfig`. Certificate and
 * token files are read now; exec plugins and auth providers are run per request
 * ({@link kubeconfigAuthProvider}).
 *
 * @throws {ConfigError} for an unknown context, a context naming a missing cluster or
 * user, an unreadable certificate or token file, a value that should be a string and is
 * not (a `token: {a: 1}`), `*-data` that is not base64 of a PEM block, or an exec plugin or
 * auth provider kubets cannot run; the message names the field, the context and the file.
 */
export function configFromKubeconfig(
  kubeconfig: Kubeconfig,
  options: FromKubeconfigOptions = {},
): Config {
  const { contextName, context, clusterName, cluster, userName, user } = resolveContext(
    kubeconfig,
    options.context,
  );
  const { file, where } = describeSource(kubeconfig);
  const inContext = `(context "${contextName}"${where})`;

  // The file holds any YAML: a `token: {a: 1}` or a number would fail later with a
  // TypeError naming neither the field nor the file.
  const problem = (field: string, what: string): ConfigError =>
    new ConfigError(`invalid ${field} ${inContext}: ${what}`, {
      file,
      context: contextName,
      field,
    });
  const text = (entry: object, key: string, field: string): string | undefined => {
    const value: unknown = (entry as Record<string, unknown>)[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    throw problem(field, `expected a string, got ${kindOf(value)}`);
  };
  const texts = (entry: object, key: string, field: string): string[] | undefined => {
    const value: unknown = (entry as Record<string, unknown>)[key];
    if (value === undefined || value === null) return undefined;
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
    throw problem(field, `expected a list of strings, got ${kindOf(value)}`);
  };
  const clusterField = (key: keyof KubeconfigCluster): string => `clusters[${clusterName}].${key}`;
  const userField = (key: keyof KubeconfigAuthInfo): string => `users[${userName}].${key}`;

  const readFile = (path: string, field: string): Buffer => {
    try {
      return nodeFs().readFileSync(path);
    } catch (err) {
      throw new ConfigError(
        `cannot read ${field} ${path} ${inContext}: ${describeFsError(err)}`,
        { file: path, context: contextName, field },
        { cause: err },
      );
    }
  };
  // Buffer.from(text, 'base64') skips what is not base64 and never fails: bad data would load
  // and the first request would fail with an OpenSSL message naming neither field nor file.
  const decodePemData = (base64: string, field: string): Buffer => {
    const compact = base64.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) {
      throw problem(field, 'not valid base64');
    }
    const decoded = Buffer.from(compact, 'base64');
    if (!decoded.toString('latin1').includes('-----BEGIN')) {
      throw problem(field, 'the base64 does not decode to PEM (no "-----BEGIN" line)');
    }
    return decoded;
  };
  // The file wins over the data, as in clientcmd.
  const readPem = (
    entry: object,
    fileKey: string,
    dataKey: string,
    fieldOf: (key: string) => string,
  ): Buffer | undefined => {
    const path = text(entry, fileKey, fieldOf(fileKey));
    const base64 = text(entry, dataKey, fieldOf(dataKey));
    if (path) return readFile(path, fieldOf(fileKey));
    return base64 ? decodePemData(base64, fieldOf(dataKey)) : undefined;
  };

  const server = text(cluster, 'server', clusterField('server')) ?? '';
  const tls: TLSClientConfig = {};
  const caData = readPem(cluster, 'certificate-authority', 'certificate-authority-data', (key) =>
    clusterField(key as keyof KubeconfigCluster),
  );
  if (caData) tls.caData = caData;
  if (cluster['insecure-skip-tls-verify'] === true) tls.insecureSkipVerify = true;
  const serverName = text(cluster, 'tls-server-name', clusterField('tls-server-name'));
  if (serverName) tls.serverName = serverName;

  const config: Config = { host: options.master || server.replace(/\/$/, ''), tls };
  const namespace = text(context, 'namespace', `contexts[${contextName}].context.namespace`);
  if (namespace) config.namespace = namespace;
  if (user && userName) {
    const fieldOf = (key: string): string => userField(key as keyof KubeconfigAuthInfo);
    const certData = readPem(user, 'client-certificate', 'client-certificate-data', fieldOf);
    const keyData = readPem(user, 'client-key', 'client-key-data', fieldOf);
    if (certData) tls.certData = certData;
    if (keyData) tls.keyData = keyData;
    const token = text(user, 'token', userField('token'));
    const tokenFile = text(user, 'tokenFile', userField('tokenFile'));
    if (token) config.bearerToken = token.trim();
    else if (tokenFile) {
      config.bearerToken = readFile(tokenFile, userField('tokenFile')).toString('utf8').trim();
    }
    if (tokenFile) config.bearerTokenFile = tokenFile;
    const username = text(user, 'username', userField('username'));
    const password = text(user, 'password', userField('password'));
    if (username) config.username = username;
    if (password) config.password = password;
    const impersonate = text(user, 'as', userField('as'));
    if (impersonate) {
      config.impersonate = { user: impersonate };
      const uid = text(user, 'as-uid', userField('as-uid'));
      const groups = texts(user, 'as-groups', userField('as-groups'));
      const extra = user['as-user-extra'];
      if (uid) config.impersonate.uid = uid;
      if (groups) config.impersonate.groups = groups;
      if (extra) config.impersonate.extra = extra;
    }
    if (user.exec || user['auth-provider']) {
      checkAuthPlugin(userName, user, inContext, { file, context: contextName });
      config.authProvider = kubeconfigAuthProvider(kubeconfig, { context: contextName });
    }
  }
  return printRedacted(config);
}

/**
 * A user whose `exec` or `auth-provider` no auth plugin handles would send no credentials;
 * client-go refuses it, and so does kubets, at load time.
 */
function checkAuthPlugin(
  userName: string,
  user: KubeconfigAuthInfo,
  where: string,
  details: { file: string | undefined; context: string },
): void {
  const plugin = authPluginFor(user);
  if (!plugin) {
    const provider = user['auth-provider'] as { name?: unknown } | null | undefined;
    const name = typeof provider?.name === 'string' ? `"${provider.name}"` : 'without a name';
    throw new ConfigError(
      `unsupported auth-provider ${name} of users[${userName}] ${where}; supported: ${authPluginNames.join(', ')} (or an exec credential plugin)`,
      { ...details, field: `users[${userName}].auth-provider` },
    );
  }
  const exec = user.exec as { command?: unknown } | null | undefined;
  if (exec && (typeof exec.command !== 'string' || exec.command === '')) {
    const field = `users[${userName}].exec.command`;
    const message =
      exec.command === undefined || exec.command === null || exec.command === ''
        ? `${field} is missing ${where}: it names the credential plugin to run`
        : `invalid ${field} ${where}: expected a string, got ${kindOf(exec.command)}`;
    throw new ConfigError(message, { ...details, field });
  }
}

function listNames(items: readonly { name: string }[]): string {
  return items.length > 0 ? items.map((item) => `"${item.name}"`).join(', ') : '(none)';
}

/**
 * An {@link AuthProvider} for the context's user that runs its exec plugin or auth provider
 * through `@kubernetes/client-node`'s authenticators (exec plugins, OIDC, token-file and the
 * azure/gcp auth providers), chosen as client-node's `KubeConfig` chooses them. client-node
 * is an optional peer dependency: its authenticator's file is loaded on the first
 * `credentials()` call, and only that one (OIDC, for instance, loads client-node's API client
 * and openid-client, which a process with a token kubeconfig never needs). Each call asks the
 * authenticator again, so tokens it caches and refreshes stay current: an exec plugin runs
 * again once its credential's `expirationTimestamp` has passed; refreshed OIDC tokens are
 * written back to the user's auth-provider config in the loaded kubeconfig.
 *
 * The credentials are cached per provider. After a 401 answer
 * ({@link AuthProvider.onUnauthorized}) the cache is dropped, so the next request runs the
 * exec plugin again, as client-go does; the request that got the 401 is not retried. Error
 * messages never include the plugin's output.
 *
 * @throws {ConfigError} when the context has no cluster or user.
 */
export function kubeconfigAuthProvider(
  kubeconfig: Kubeconfig,
  options: { context?: string } = {},
): AuthProvider {
  const contextName = options.context || kubeconfig['current-context'];
  const context = findNamed(kubeconfig.contexts, contextName)?.context;
  const cluster = findNamed(kubeconfig.clusters, context?.cluster)?.cluster;
  const userName = context?.user;
  const user = findNamed(kubeconfig.users, userName)?.user;
  if (!context || !cluster || !user || !userName) {
    throw new ConfigError(`context "${contextName}" has no cluster or user to authenticate`, {
      context: contextName,
    });
  }
  const plugin: AuthPlugin | undefined = authPluginFor(user);
  // One authenticator instance per "generation": each has its own credential cache (exec),
  // so replacing it after a 401 forgets cached credentials. Loaded on first use.
  type Generation = Promise<Authenticator | undefined>;
  const newGeneration = (): Generation =>
    plugin ? loadAuthPlugin(plugin) : Promise.resolve(undefined);
  let generation: Generation | undefined;
  // Which generation produced the credentials a request used, so a 401 on credentials that
  // were already replaced does not throw away newer ones.
  const issuedBy = new WeakMap<RequestCredentials, Generation>();
  const obtain = async (current: Generation): Promise<RequestCredentials> => {
    // What client-node's KubeConfig.applyToHTTPSOptions yields for a user without static TLS
    // files (read once by configFromKubeconfig): the authenticator's headers and
    // certificate, then `token`, then basic authentication.
    const applied: AppliedAuthentication = { headers: {} };
    try {
      const authenticator = await current;
      if (user.as != null) applied.headers['Impersonate-User'] = user.as;
      if (authenticator) await authenticator.applyAuthentication(userName, user, applied);
    } catch (err) {
      // JSON.parse errors quote the text they failed on: the plugin's output, which may
      // hold a token. Say what was wrong without it (and without it in `cause`).
      const unparsable = err instanceof SyntaxError;
      const reason = unparsable
        ? 'the credential plugin did not print a valid ExecCredential JSON object'
        : err instanceof Error
          ? firstLine(err.message).slice(0, 500)
          : String(err);
      throw new CredentialsError(
        `getting credentials for user "${userName}" failed: ${reason || 'unknown error'}`,
        unparsable ? {} : { cause: err },
      );
    }
    const headers: Record<string, string> = { ...applied.headers };
    if (user.token) headers.Authorization = `Bearer ${user.token}`;
    if (user.username) {
      const basic = `${user.username}:${user.password}`;
      headers.Authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
    }
    const result: RequestCredentials = {};
    if (Object.keys(headers).length > 0) result.headers = headers;
    if (typeof applied.cert === 'string' || applied.cert instanceof Uint8Array)
      result.certData = applied.cert;
    if (typeof applied.key === 'string' || applied.key instanceof Uint8Array)
      result.keyData = applied.key;
    issuedBy.set(result, current);
    return result;
  };
  // Concurrent requests share one run of the plugin (client-go serializes them too).
  let pending: Promise<RequestCredentials> | undefined;
  return {
    onUnauthorized(used: RequestCredentials): void {
      if (generation !== undefined && issuedBy.get(used) === generation) generation = undefined;
    },
    credentials(): Promise<RequestCredentials> {
      generation ??= newGeneration();
      pending ??= obtain(generation).finally(() => {
        pending = undefined;
      });
      return pending;
    },
  };
}
