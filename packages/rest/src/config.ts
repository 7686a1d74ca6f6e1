import { join } from 'node:path';
import type { Logger } from '@kubets/apimachinery';
import { version as packageVersion } from '../package.json';
import { inspectCustom, nodeFs } from './builtins.js';
import { ConfigError } from './errors.js';
import { firstLine } from './kubeconfig.js';
import type { RequestRateLimiter } from './ratelimit.js';
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
  rateLimiter?: RequestRateLimiter;
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
  /**
   * Where the client logs retries and throttling; silent when unset. The first retry after a
   * lost connection is a `warn` line and the first after `Retry-After` an `info` line (at most
   * one such line per 10 s in the process; every retry at `debug`); a wait over 50 ms on the
   * rate limiter is a `debug` line, one over 1 s also `info` (at most once per 10 s).
   */
  logger?: Logger;
  /** How often a request is retried after a `Retry-After` answer or a reset connection; default 10. */
  maxRetries?: number;
  /**
   * Talk HTTP/2 to an `https:` server, as client-go does by default: one connection per
   * server and TLS settings carries every request and watch of the clients sharing those
   * settings, and a connection that receives nothing for 30 s is pinged and closed when
   * the ping is not answered within 15 s (its watches end with an ERROR event and are
   * started again). Offered to the server by ALPN next to HTTP/1.1; a server that does not
   * choose `h2` is spoken to over HTTP/1.1 keep-alive connections, where a silent watch is
   * noticed only at its deadline (the reflector's, minutes later), as it is for `http:`
   * servers. Default true; `false` speaks HTTP/1.1 to every server.
   */
  http2?: boolean | undefined;
  /** The default namespace of the kubeconfig context (or of the in-cluster service account). Informational: requests use the namespace you give them. */
  namespace?: string;
}

const redactedMark = '--- REDACTED ---';
const truncatedMark = '--- TRUNCATED ---';

/**
 * Where a config made by kubets keeps its secrets for copies: an enumerable property under a
 * registry symbol, so `{ ...config }` and `Object.assign` carry it along (and another copy of
 * this package finds it), while `JSON.stringify` and `structuredClone` skip it.
 */
const sealedSecretsKey = Symbol.for('kubets.rest.configSecrets');

/** What a sealed config's copies need to authenticate; prints as `[redacted credentials]`. */
class SealedSecrets {
  readonly bearerToken: string | undefined;
  readonly password: string | undefined;
  readonly keyData: PemData | undefined;
  /** The certificate `keyData` belongs to: a copy with other certificates does not get the key. */
  readonly certData: PemData | undefined;
  /** The server URL with its password, and as the config shows it (without). */
  readonly host: { readonly full: string; readonly shown: string } | undefined;

  constructor(secrets: Omit<SealedSecrets, 'toJSON'>) {
    this.bearerToken = secrets.bearerToken;
    this.password = secrets.password;
    this.keyData = secrets.keyData;
    this.certData = secrets.certData;
    this.host = secrets.host;
  }

  toJSON(): string {
    return '[redacted credentials]';
  }
}
Object.defineProperty(SealedSecrets.prototype, inspectCustom, {
  value: () => '[redacted credentials]',
});

function sealedSecretsOf(config: Config): SealedSecrets | undefined {
  const held = (config as unknown as Record<symbol, unknown>)[sealedSecretsKey];
  return held instanceof SealedSecrets ? held : undefined;
}

/** The secrets a config authenticates with: its own fields, else what a sealed original left it. */
function secretsOf(config: Config): {
  bearerToken: string | undefined;
  password: string | undefined;
  keyData: PemData | undefined;
  host: string;
} {
  const sealed = sealedSecretsOf(config);
  const tls = config.tls;
  const keyFromSeal =
    sealed?.keyData !== undefined && tls !== undefined && tls.certData === sealed.certData;
  return {
    bearerToken: config.bearerToken ?? sealed?.bearerToken,
    password: config.password ?? sealed?.password,
    keyData: tls?.keyData ?? (keyFromSeal ? sealed?.keyData : undefined),
    host:
      sealed?.host !== undefined && config.host === sealed.host.shown
        ? sealed.host.full
        : config.host,
  };
}

/** The server URL a config talks to, with the password a sealed config keeps out of `host` (internal). */
export function configHost(config: Config): string {
  return secretsOf(config).host;
}

function withoutPassword(host: string): { full: string; shown: string } | undefined {
  try {
    const url = new URL(host);
    if (!url.password) return undefined;
    url.password = '';
    return { full: host, shown: url.href };
  } catch {
    return undefined;
  }
}

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
 * Configs made by {@link loadConfig}, {@link configFromKubeconfig} and
 * {@link inClusterConfig}, and the copies clients keep ({@link copyConfig}), never print a
 * secret, and neither do copies made of them with `{ ...config }`, `Object.assign`,
 * `structuredClone` or a JSON round trip: their token, password and client key are
 * non-enumerable, a password in `host` is kept out of it, and a spread copy finds them
 * under a symbol that prints as `[redacted credentials]`, so it still authenticates.
 * Hand-written configs print what they hold: log `redactConfig(config)` rather than such a
 * config.
 */
export function redactConfig(config: Config): Record<string, unknown> {
  const secrets = secretsOf(config);
  const copy: Record<string | symbol, unknown> = { ...config };
  delete copy[sealedSecretsKey];
  if (typeof secrets.host === 'string') copy.host = redactedHost(secrets.host);
  if (secrets.bearerToken) copy.bearerToken = redactedMark;
  if (secrets.password) copy.password = redactedMark;
  if (config.tls) {
    copy.tls = redactTLSConfig({
      ...config.tls,
      ...(secrets.keyData ? { keyData: secrets.keyData } : {}),
    });
  }
  if (config.authProvider) copy.authProvider = '[AuthProvider]';
  return copy as Record<string, unknown>;
}

/** Defines `key` on `target` as a non-enumerable value (skipped by spreading, JSON, clones). */
function defineHidden(target: object, key: string | symbol, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: false,
    configurable: true,
    writable: true,
  });
}

/**
 * Makes `config` print redacted by itself, also in copies made of it (internal: clientcmd's
 * configs use it too): see {@link redactConfig}. A config copied from a sealed one gets its
 * secrets back from the copy's symbol property first.
 */
export function printRedacted<T extends Config>(config: T): T {
  const secrets = secretsOf(config);
  const { tls } = config;
  if (secrets.bearerToken !== undefined) defineHidden(config, 'bearerToken', secrets.bearerToken);
  if (secrets.password !== undefined) defineHidden(config, 'password', secrets.password);
  if (tls && secrets.keyData !== undefined) defineHidden(tls, 'keyData', secrets.keyData);
  const host = typeof secrets.host === 'string' ? withoutPassword(secrets.host) : undefined;
  if (host) config.host = host.shown;
  const sealed = new SealedSecrets({
    bearerToken: secrets.bearerToken,
    password: secrets.password,
    keyData: tls ? secrets.keyData : undefined,
    certData: tls?.certData,
    host,
  });
  Object.defineProperty(config, sealedSecretsKey, {
    value: sealed,
    enumerable: true,
    configurable: true,
    writable: true,
  });
  if (tls) {
    defineHidden(tls, inspectCustom, () => redactTLSConfig(tls));
    defineHidden(tls, 'toJSON', () => redactTLSConfig(tls));
  }
  defineHidden(config, inspectCustom, () => redactConfig(config));
  defineHidden(config, 'toJSON', () => redactConfig(config));
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
  const secrets = secretsOf(config);
  const copy: Config = { ...config, ...changes };
  if (!('host' in changes)) copy.host = secrets.host;
  if (!('bearerToken' in changes) && secrets.bearerToken !== undefined) {
    copy.bearerToken = secrets.bearerToken;
  }
  if (!('password' in changes) && secrets.password !== undefined) copy.password = secrets.password;
  if (copy.tls) {
    const keyData = copy.tls === config.tls ? secrets.keyData : copy.tls.keyData;
    copy.tls = { ...copy.tls, ...(keyData !== undefined ? { keyData } : {}) };
  }
  return printRedacted(copy);
}

/** `kubets/<version> (<os>/<arch>) node/<version>`, the User-Agent sent unless `Config.userAgent` says otherwise. */
export function defaultUserAgent(): string {
  return `kubets/${packageVersion} (${process.platform}/${process.arch}) node/${process.version}`;
}

/** Where a pod's service-account token, CA and namespace are mounted. */
export const defaultServiceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Why a file could not be read, in a few words (internal). */
export function describeFsError(err: unknown): string {
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
    // As Go's net.JoinHostPort (client-go's InClusterConfig): a host with a colon is an IPv6
    // address and goes in brackets. No node:net needed to tell.
    host: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
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
