import { delimiter, dirname, join } from 'node:path';
import type { Cluster, Context, User } from '@kubernetes/client-node';
import type { Logger } from '@kubets/apimachinery';
import { version as packageVersion } from '../package.json';
import { type Authenticator, authPluginFor, authPluginNames } from './auth-plugins.js';
import { inspectCustom, nodeFs, nodeNet, nodeOs } from './builtins.js';
import { ConfigError, CredentialsError } from './errors.js';
import {
  type KubeConfigLike,
  type KubeconfigEntries,
  makePathsAbsolute,
  ParsedKubeConfig,
  parseKubeconfig,
} from './kubeconfig.js';
import type { RateLimiter } from './ratelimit.js';
import { redactedHref } from './url.js';
import type { WarningHandler } from './warnings.js';

/** PEM text or bytes. */
export type PemData = string | Uint8Array;

/** How to authenticate the server and this client over TLS. */
export interface TLSClientConfig {
  /** PEM CA bundle trusted for the server; Node's default roots when unset. */
  caData?: PemData;
  /** PEM client certificate (with `keyData`), for client-certificate authentication. */
  certData?: PemData;
  /** PEM private key for `certData`. */
  keyData?: PemData;
  /** Skip server certificate verification (kubeconfig `insecure-skip-tls-verify: true`). Off unless set; only for test clusters. */
  insecureSkipVerify?: boolean;
  /** The name to verify the server certificate against (and send as SNI), when it differs from the host. */
  serverName?: string;
}

/** Acting as another user: the `Impersonate-*` headers. */
export interface ImpersonationConfig {
  /** The user to act as (`Impersonate-User`). */
  user?: string;
  /** The UID of the user to act as (`Impersonate-Uid`). */
  uid?: string;
  /** Groups to act as a member of (`Impersonate-Group`, one header each). */
  groups?: readonly string[];
  /** Extra attributes, sent as `Impersonate-Extra-<key>` headers. */
  extra?: Readonly<Record<string, readonly string[]>>;
}

/** What an {@link AuthProvider} contributes to one request. */
export interface RequestCredentials {
  /** Headers to add, typically `Authorization`. */
  headers?: Record<string, string>;
  /** A client certificate to present (exec plugins may return one), PEM. */
  certData?: PemData;
  /** The key for `certData`, PEM. */
  keyData?: PemData;
}

/**
 * Supplies credentials that can change over time (exec plugins, OIDC refresh, ...).
 * Called before every request attempt, so it must cache and refresh on its own.
 */
export interface AuthProvider {
  /** The credentials for the next request attempt. */
  credentials(signal?: AbortSignal): Promise<RequestCredentials>;
  /**
   * Called when the server answered 401 to a request sent with `used` (the object
   * `credentials` returned): drop them if they are still the cached ones, so the next
   * `credentials` call obtains new ones. As client-go's exec authenticator, the request
   * that got the 401 is not retried; the caller sees the 401 and the next request uses
   * the refreshed credentials.
   */
  onUnauthorized?(used: RequestCredentials): void;
}

/**
 * Everything a client needs to talk to one API server, as client-go's `rest.Config`.
 * Build it by hand (`{ host: 'https://127.0.0.1:6443', tls: { caData } }`) or with
 * {@link loadConfig}.
 */
export interface Config {
  /** The server URL, e.g. `https://10.0.0.1:6443`; may carry a path prefix. Without a scheme, https is assumed when TLS settings are present, else http. */
  host: string;
  /** The API root the client talks to, `/api` or `/apis`; derived from the group when unset. */
  apiPath?: string;
  /** How the server is verified and which client certificate is presented. */
  tls?: TLSClientConfig;
  /** A static bearer token. */
  bearerToken?: string;
  /** A file holding the bearer token, re-read when it changes (projected service-account tokens rotate): checked at most every 10 s, and right after a 401. Wins over `bearerToken` while readable. */
  bearerTokenFile?: string;
  /** Basic authentication. */
  username?: string;
  /** The password for basic authentication, with `username`. */
  password?: string;
  /** Act as another user, with the `Impersonate-*` headers. */
  impersonate?: ImpersonationConfig;
  /** Dynamic credentials (exec plugins, OIDC, auth providers); {@link loadConfig} sets it from the kubeconfig user. */
  authProvider?: AuthProvider;
  /** Sustained requests per second for this client's limiter; default 5, negative disables client-side throttling. */
  qps?: number;
  /** Requests allowed in a burst above `qps`; default 10. */
  burst?: number;
  /** A limiter to use instead of building one from `qps`/`burst`; share one across clients to share the budget. */
  rateLimiter?: RateLimiter;
  /** Gives up on a request after this many milliseconds (for watches and streams: until the response starts). 0 or unset: no limit. */
  timeoutMs?: number;
  /** The `User-Agent` header; {@link defaultUserAgent} when unset. */
  userAgent?: string;
  /** Receives `Warning` response headers; silent when unset. */
  warningHandler?: WarningHandler;
  /**
   * Told the outcome of every request once its last attempt ended (client-go's
   * `metrics.RequestResult`, behind `rest_client_requests_total`): e.g. to count requests by
   * status code, verb and host.
   */
  onRequestResult?: RequestResultHandler;
  /** Where the client logs retries and throttling; silent when unset. */
  logger?: Logger;
  /** How often a request is retried after a `Retry-After` answer or a reset connection; default 10. */
  maxRetries?: number;
  /**
   * Talk HTTP/2 to an `https:` server, as client-go does by default: one connection per
   * server and TLS settings carries every request and watch of the clients sharing those
   * settings, and a connection that receives nothing for 30 s is pinged and closed when
   * the ping is not answered within 15 s (its watches end with an ERROR event and are
   * started again). Offered to the server by ALPN next to HTTP/1.1; a server that does not
   * choose `h2` is spoken to over HTTP/1.1. Ignored for `http:` servers. Off by default in
   * this release (HTTP/1.1 keep-alive connections).
   */
  http2?: boolean | undefined;
  /** The default namespace of the kubeconfig context (or of the in-cluster service account). Informational: requests use the namespace you give them. */
  namespace?: string;
}

const redactedMark = '--- REDACTED ---';
const truncatedMark = '--- TRUNCATED ---';

function redactedHost(host: string): string {
  try {
    const url = new URL(host);
    return url.password ? redactedHref(url) : host;
  } catch {
    return host;
  }
}

/** A copy of TLS settings that is safe to print: the key redacted, certificates truncated. */
export function redactTLSConfig(tls: TLSClientConfig): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...tls };
  if (tls.keyData) copy.keyData = redactedMark;
  if (tls.certData) copy.certData = truncatedMark;
  if (tls.caData) copy.caData = truncatedMark;
  return copy;
}

/**
 * A copy of `config` that is safe to print or log, as client-go's `rest.Config` prints
 * itself: `bearerToken`, `password` and `tls.keyData` become `--- REDACTED ---`,
 * certificates `--- TRUNCATED ---`, a password in `host` `xxxxx`, and the auth provider
 * `[AuthProvider]`.
 *
 * Configs made by {@link loadConfig}, {@link configFromKubeConfig} and
 * {@link inClusterConfig} print this way by themselves (`util.inspect`, `console.log`,
 * `JSON.stringify`), through non-enumerable `[util.inspect.custom]` and `toJSON`
 * methods, and so do the copies clients keep ({@link copyConfig}); copies made with
 * `{ ...config }` and hand-written configs do not, so log `redactConfig(config)` rather
 * than a config.
 */
export function redactConfig(config: Config): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...config };
  if (typeof config.host === 'string') copy.host = redactedHost(config.host);
  if (config.bearerToken) copy.bearerToken = redactedMark;
  if (config.password) copy.password = redactedMark;
  if (config.tls) copy.tls = redactTLSConfig(config.tls);
  if (config.authProvider) copy.authProvider = '[AuthProvider]';
  return copy;
}

// Makes a config (and its TLS settings) print redacted. Non-enumerable, so spreading and
// structuredClone copy only the settings.
function printRedacted<T extends Config>(config: T): T {
  const define = (target: object, redact: () => Record<string, unknown>): void => {
    const hidden = { value: redact, enumerable: false, configurable: true, writable: true };
    Object.defineProperties(target, { [inspectCustom]: hidden, toJSON: hidden });
  };
  const { tls } = config;
  if (tls) define(tls, () => redactTLSConfig(tls));
  define(config, () => redactConfig(config));
  return config;
}

/**
 * A copy of `config`, with `changes` applied, that prints redacted by itself like the
 * configs {@link loadConfig} makes: `util.inspect`, `console.log` and `JSON.stringify`
 * show {@link redactConfig}'s view. The TLS settings are copied too; the auth provider,
 * rate limiter and logger are shared. Use it instead of `{ ...config, ...changes }` when
 * the copy is kept by something that may be printed (clients keep their config this way).
 */
export function copyConfig(config: Config, changes: Partial<Config> = {}): Config {
  const copy: Config = { ...config, ...changes };
  if (copy.tls) copy.tls = { ...copy.tls };
  return printRedacted(copy);
}

/** `kubets/<version> (<os>/<arch>) node/<version>`, the User-Agent sent unless `Config.userAgent` says otherwise. */
export function defaultUserAgent(): string {
  return `kubets/${packageVersion} (${process.platform}/${process.arch}) node/${process.version}`;
}

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

/** Where a pod's service-account token, CA and namespace are mounted. */
export const defaultServiceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

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

function kubeconfigEnvFiles(env: Readonly<Record<string, string | undefined>>): string[] {
  return env.KUBECONFIG?.split(delimiter).filter((file) => file.length > 0) ?? [];
}

function homeKubeconfig(options: LoadConfigOptions): string | undefined {
  const home = options.homeDir ?? safeHomedir();
  return home ? join(home, '.kube', 'config') : undefined;
}

/**
 * Builds a {@link Config} the way kubectl and controllers find one: an explicit kubeconfig
 * path, else the files in `KUBECONFIG` (merged: the first file to set a value wins), else
 * `~/.kube/config`, else the in-cluster service account ({@link configSource} says which).
 * `master` overrides the server URL. Client certificates, tokens and basic authentication
 * are read here; exec plugins, token files, OIDC and the gcp/azure auth providers run through
 * `@kubernetes/client-node`'s authenticators, each loaded on the first request that needs it
 * ({@link kubeConfigAuthProvider}). The kubeconfig is parsed with client-node's
 * `config_types.js` and js-yaml, loaded on the first parse.
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
        const kubeConfig = readKubeconfigFiles([options.kubeconfig]);
        return configFromKubeConfig(kubeConfig, {
          context: options.context,
          master: options.master,
        });
      }
      return { host: options.master ?? '' };
    case 'KUBECONFIG': {
      const fromEnv = kubeconfigEnvFiles(env);
      // Like clientcmd, files listed in KUBECONFIG that do not exist are skipped.
      const existing = fromEnv.filter(isFile);
      if (existing.length === 0) {
        throw new ConfigError(`none of the files in KUBECONFIG exist: ${fromEnv.join(delimiter)}`, {
          file: fromEnv[0],
        });
      }
      return configFromKubeConfig(readKubeconfigFiles(existing), { context: options.context });
    }
    case 'home':
      return configFromKubeConfig(readKubeconfigFiles([homeKubeconfig(options) ?? '']), {
        context: options.context,
      });
    case 'in-cluster':
      return inClusterConfig(inClusterOptions);
    case undefined:
      throw new ConfigError(
        'no Kubernetes configuration found: pass a kubeconfig path, set KUBECONFIG, create ~/.kube/config, or run inside a cluster',
      );
  }
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

function firstLine(message: string): string {
  const line = message.split('\n', 1)[0] ?? message;
  return line.trim();
}

function describeFsError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    default:
      return err instanceof Error ? firstLine(err.message) : String(err);
  }
}

/**
 * Reads kubeconfig files and merges them as clientcmd does: the first file to define a
 * cluster, user or context name, or the current context, wins. Relative certificate paths
 * resolve against the directory of the file that names them.
 */
function readKubeconfigFiles(files: readonly string[]): ParsedKubeConfig {
  const clusters: Cluster[] = [];
  const users: User[] = [];
  const contexts: Context[] = [];
  let currentContext = '';
  for (const file of files) {
    let text: string;
    try {
      text = nodeFs().readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError(
        `cannot read kubeconfig ${file}: ${describeFsError(err)}`,
        { file },
        {
          cause: err,
        },
      );
    }
    let single: KubeconfigEntries;
    try {
      // What KubeConfig.loadFromFile does, on the text already read.
      single = parseKubeconfig(text);
      checkPathFields(single, file);
      makePathsAbsolute(single, dirname(file));
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      const reason =
        err instanceof TypeError
          ? 'not a kubeconfig (expected a YAML mapping with clusters, contexts and users)'
          : err instanceof Error
            ? firstLine(err.message)
            : String(err);
      throw new ConfigError(`invalid kubeconfig ${file}: ${reason}`, { file }, { cause: err });
    }
    for (const cluster of single.clusters) {
      if (!clusters.some((known) => known.name === cluster.name)) clusters.push(cluster);
    }
    for (const user of single.users) {
      if (!users.some((known) => known.name === user.name)) users.push(user);
    }
    for (const context of single.contexts) {
      if (!contexts.some((known) => known.name === context.name)) contexts.push(context);
    }
    if (!currentContext && single.currentContext) currentContext = single.currentContext;
  }
  if (clusters.length === 0 && users.length === 0 && contexts.length === 0 && !currentContext) {
    const file = files.join(delimiter);
    throw new ConfigError(
      `invalid kubeconfig ${file}: not a kubeconfig (no clusters, users or contexts)`,
      { file },
    );
  }
  const merged = new ParsedKubeConfig({ clusters, users, contexts, currentContext });
  sourceFiles.set(merged, files);
  return merged;
}

/** How an error message names the type of a value that should have been a string. */
function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  const type = typeof value;
  return type === 'object' || type === 'undefined' ? `an ${type}` : `a ${type}`;
}

/**
 * Certificate paths that are not strings: client-node's `makePathsAbsolute` would fail on
 * them with a TypeError from `path.resolve`, naming no field.
 */
function checkPathFields(
  entries: { clusters: readonly Cluster[]; users: readonly User[] },
  file: string,
): void {
  const check = (value: unknown, field: string): void => {
    if (value === undefined || value === null || typeof value === 'string') return;
    throw new ConfigError(
      `invalid ${field} in kubeconfig ${file}: expected a string, got ${kindOf(value)}`,
      { file, field },
    );
  };
  for (const cluster of entries.clusters) {
    check(cluster.caFile, `clusters[${cluster.name}].certificate-authority`);
  }
  for (const user of entries.users) {
    check(user.certFile, `users[${user.name}].client-certificate`);
    check(user.keyFile, `users[${user.name}].client-key`);
  }
}

// Remembers which files a merged KubeConfig came from, so errors can name them.
const sourceFiles = new WeakMap<KubeConfigLike, readonly string[]>();

/** Options for {@link configFromKubeConfig}. */
export interface FromKubeConfigOptions {
  /** The context to use instead of the current one. */
  context?: string | undefined;
  /** Overrides the cluster's server URL. */
  master?: string | undefined;
}

/**
 * Builds a {@link Config} from an already loaded `KubeConfig` (its current context, or
 * `options.context`). Certificate files are read now; dynamic credentials (exec plugins,
 * OIDC, auth providers) are obtained per request through the KubeConfig's authenticators.
 *
 * @throws {ConfigError} for an unknown context, a context naming a missing cluster or
 * user, an unreadable certificate file, a value that should be a string and is not (a
 * `token: {a: 1}`), or `*-data` that is not base64 of a PEM block; the message names the
 * field, the context and the kubeconfig file.
 */
export function configFromKubeConfig(
  kubeConfig: KubeConfigLike,
  options: FromKubeConfigOptions = {},
): Config {
  const files = sourceFiles.get(kubeConfig);
  const file = files?.join(delimiter);
  const where = file ? ` in kubeconfig ${file}` : '';
  const contextName = options.context || kubeConfig.getCurrentContext();
  if (!contextName) {
    throw new ConfigError(
      `no context selected${where}: current-context is not set; choose one of ${listNames(kubeConfig.getContexts())}`,
      { file, field: 'current-context' },
    );
  }
  const context = kubeConfig.getContextObject(contextName);
  if (!context) {
    throw new ConfigError(
      `context "${contextName}" not found${where}; known contexts: ${listNames(kubeConfig.getContexts())}`,
      { file, context: contextName },
    );
  }
  const cluster = kubeConfig.getCluster(context.cluster);
  if (!cluster) {
    throw new ConfigError(
      `cluster "${context.cluster}" of context "${contextName}" not found${where}`,
      { file, context: contextName, field: `contexts[${contextName}].context.cluster` },
    );
  }
  const user = context.user ? kubeConfig.getUser(context.user) : null;
  if (context.user && !user) {
    throw new ConfigError(`user "${context.user}" of context "${contextName}" not found${where}`, {
      file,
      context: contextName,
      field: `contexts[${contextName}].context.user`,
    });
  }

  // client-node passes the kubeconfig's values through untyped: a `token: {a: 1}` or a number
  // would fail later with a TypeError naming neither the field nor the file.
  const expectString = (value: unknown, field: string): string | undefined => {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    throw new ConfigError(
      `invalid ${field} (context "${contextName}"${where}): expected a string, got ${kindOf(value)}`,
      { file, context: contextName, field },
    );
  };
  for (const [value, field] of [
    [cluster.caFile, 'certificate-authority'],
    [cluster.caData, 'certificate-authority-data'],
    [cluster.tlsServerName, 'tls-server-name'],
  ] as const) {
    expectString(value, `clusters[${cluster.name}].${field}`);
  }
  if (user) {
    for (const [value, field] of [
      [user.token, 'token'],
      [user.username, 'username'],
      [user.password, 'password'],
      [user.certFile, 'client-certificate'],
      [user.certData, 'client-certificate-data'],
      [user.keyFile, 'client-key'],
      [user.keyData, 'client-key-data'],
      [user.impersonateUser, 'as'],
    ] as const) {
      expectString(value, `users[${user.name}].${field}`);
    }
  }

  const readPem = (
    path: string | undefined,
    base64: string | undefined,
    field: string,
  ): Buffer | undefined => {
    if (path) {
      try {
        return nodeFs().readFileSync(path);
      } catch (err) {
        throw new ConfigError(
          `cannot read ${field} ${path} (context "${contextName}"${where}): ${describeFsError(err)}`,
          { file: path, context: contextName, field },
          { cause: err },
        );
      }
    }
    return base64 ? decodePemData(base64, `${field}-data`) : undefined;
  };

  // Buffer.from(text, 'base64') skips what is not base64 and never fails: bad data would load
  // and the first request would fail with an OpenSSL message naming neither field nor file.
  const decodePemData = (base64: string, field: string): Buffer => {
    const compact = base64.replace(/\s+/g, '');
    const problem = (what: string): ConfigError =>
      new ConfigError(`invalid ${field} (context "${contextName}"${where}): ${what}`, {
        file,
        context: contextName,
        field,
      });
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) {
      throw problem('not valid base64');
    }
    const decoded = Buffer.from(compact, 'base64');
    if (!decoded.toString('latin1').includes('-----BEGIN')) {
      throw problem('the base64 does not decode to PEM (no "-----BEGIN" line)');
    }
    return decoded;
  };

  const tls: TLSClientConfig = {};
  const caData = readPem(
    cluster.caFile,
    cluster.caData,
    `clusters[${cluster.name}].certificate-authority`,
  );
  if (caData) tls.caData = caData;
  if (cluster.skipTLSVerify) tls.insecureSkipVerify = true;
  if (cluster.tlsServerName) tls.serverName = cluster.tlsServerName;

  const config: Config = { host: options.master || cluster.server, tls };
  if (context.namespace) config.namespace = context.namespace;
  if (user) {
    const certData = readPem(
      user.certFile,
      user.certData,
      `users[${user.name}].client-certificate`,
    );
    const keyData = readPem(user.keyFile, user.keyData, `users[${user.name}].client-key`);
    if (certData) tls.certData = certData;
    if (keyData) tls.keyData = keyData;
    if (user.token) config.bearerToken = user.token.trim();
    if (user.username) config.username = user.username;
    if (user.password) config.password = user.password;
    if (user.impersonateUser) config.impersonate = { user: user.impersonateUser };
    if (user.exec || user.authProvider) {
      checkAuthPlugin(user, `(context "${contextName}"${where})`, { file, context: contextName });
      config.authProvider = kubeConfigAuthProvider(kubeConfig, { context: contextName });
    }
  }
  return printRedacted(config);
}

/**
 * A user whose `exec` or `auth-provider` no auth plugin handles would send no credentials
 * (client-node skips it silently); client-go refuses it, and so does kubets, at load time.
 */
function checkAuthPlugin(
  user: User,
  where: string,
  details: { file: string | undefined; context: string },
): void {
  const plugin = authPluginFor(user);
  if (!plugin) {
    const provider = user.authProvider as { name?: unknown } | null | undefined;
    const name = typeof provider?.name === 'string' ? `"${provider.name}"` : 'without a name';
    throw new ConfigError(
      `unsupported auth-provider ${name} of users[${user.name}] ${where}; supported: ${authPluginNames.join(', ')} (or an exec credential plugin)`,
      { ...details, field: `users[${user.name}].auth-provider` },
    );
  }
  const exec = user.exec as { command?: unknown } | null | undefined;
  if (exec && (typeof exec.command !== 'string' || exec.command === '')) {
    const field = `users[${user.name}].exec.command`;
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
 * An {@link AuthProvider} backed by `@kubernetes/client-node`'s authenticators (exec
 * plugins, OIDC, token-file and the azure/gcp auth providers), chosen as `KubeConfig`
 * chooses them for the context's user. The authenticator's module is loaded on the first
 * `credentials()` call, and only that one: OIDC, for instance, loads client-node's API client
 * and openid-client, which a process with a token kubeconfig never needs. Each call asks the
 * authenticator again, so tokens it caches and refreshes stay current: an exec plugin runs
 * again once its credential's `expirationTimestamp` has passed; refreshed OIDC tokens are
 * written back to the user's auth-provider config, as in client-node.
 *
 * The credentials are cached per provider (not shared with other KubeConfigs that name a
 * user the same). After a 401 answer ({@link AuthProvider.onUnauthorized}) the cache is
 * dropped, so the next request runs the exec plugin again, as client-go does; the request
 * that got the 401 is not retried. Error messages never include the plugin's output.
 *
 * @throws {ConfigError} when the context has no cluster or user.
 */
export function kubeConfigAuthProvider(
  kubeConfig: KubeConfigLike,
  options: { context?: string } = {},
): AuthProvider {
  const contextName = options.context || kubeConfig.getCurrentContext();
  const context = kubeConfig.getContextObject(contextName);
  const cluster = context ? kubeConfig.getCluster(context.cluster) : null;
  const user = context?.user ? kubeConfig.getUser(context.user) : null;
  if (!context || !cluster || !user) {
    throw new ConfigError(`context "${contextName}" has no cluster or user to authenticate`, {
      context: contextName,
    });
  }
  const plugin = authPluginFor(user);
  // One authenticator instance per "generation": each has its own credential cache (exec),
  // so replacing it after a 401 forgets cached credentials. Loaded on first use.
  type Generation = Promise<Authenticator | undefined>;
  const newGeneration = (): Generation => (plugin ? plugin.load() : Promise.resolve(undefined));
  let generation: Generation | undefined;
  // Which generation produced the credentials a request used, so a 401 on credentials that
  // were already replaced does not throw away newer ones.
  const issuedBy = new WeakMap<RequestCredentials, Generation>();
  const obtain = async (current: Generation): Promise<RequestCredentials> => {
    // What KubeConfig.applyToHTTPSOptions yields for a user without static TLS files (read
    // once by configFromKubeConfig): the authenticator's headers and certificate, then
    // `token`, then basic authentication.
    const applied: AppliedOptions = { headers: {} };
    try {
      const authenticator = await current;
      if (user.impersonateUser != null) applied.headers['Impersonate-User'] = user.impersonateUser;
      if (authenticator) await authenticator.applyAuthentication(user, applied);
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
        `getting credentials for user "${user.name}" failed: ${reason || 'unknown error'}`,
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

/** The request options client-node's authenticators write to. */
interface AppliedOptions {
  headers: Record<string, string>;
  cert?: string | Buffer | (string | Buffer)[];
  key?: string | Buffer | (string | Buffer)[];
}

/** Options for {@link inClusterConfig}. */
export interface InClusterConfigOptions {
  /** Where `KUBERNETES_SERVICE_HOST`/`_PORT` are read; `process.env` by default. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Where `token`, `ca.crt` and `namespace` are; {@link defaultServiceAccountDir} by default. */
  serviceAccountDir?: string | undefined;
}

/**
 * The configuration of a pod's service account, as client-go's `rest.InClusterConfig`:
 * the API server from `KUBERNETES_SERVICE_HOST`/`_PORT`, the CA from `ca.crt`, and the
 * token from `token`, re-read when the kubelet rotates it.
 *
 * @throws {ConfigError} when not running in a cluster or the token is unreadable.
 */
export function inClusterConfig(options: InClusterConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new ConfigError(
      'not running inside a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set',
    );
  }
  const dir = options.serviceAccountDir ?? defaultServiceAccountDir;
  const tokenFile = join(dir, 'token');
  const caFile = join(dir, 'ca.crt');
  const read = (path: string, what: string): Buffer => {
    try {
      return nodeFs().readFileSync(path);
    } catch (err) {
      throw new ConfigError(
        `cannot read the service-account ${what} ${path}: ${describeFsError(err)}`,
        { file: path },
        { cause: err },
      );
    }
  };
  const token = read(tokenFile, 'token').toString('utf8').trim();
  const caData = read(caFile, 'CA certificate');
  const config: Config = {
    host: `https://${nodeNet().isIPv6(host) ? `[${host}]` : host}:${port}`,
    tls: { caData },
    bearerToken: token,
    bearerTokenFile: tokenFile,
  };
  try {
    const namespace = nodeFs().readFileSync(join(dir, 'namespace'), 'utf8').trim();
    if (namespace) config.namespace = namespace;
  } catch {
    // The namespace file is optional; requests name their namespace explicitly anyway.
  }
  return printRedacted(config);
}

/** What a {@link Config.onRequestResult} handler is told about one request. */
export interface RequestResult {
  /** The HTTP status code of the final answer, or `<error>` when none came. */
  readonly code: string;
  /** The verb: `GET`, `POST`, ... */
  readonly method: string;
  /** The server's `host:port`, as client-go labels it. */
  readonly host: string;
}

/** Receives every request's {@link RequestResult}; what it throws is ignored. */
export type RequestResultHandler = (result: RequestResult) => void;
