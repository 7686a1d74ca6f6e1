import type { Agent } from 'node:http';
import {
  type Clock,
  type GroupVersion,
  parseGroupVersion,
  realClock,
  silentLogger,
} from '@kubets/apimachinery';
import { type Config, configHost, copyConfig, defaultUserAgent, redactConfig } from './config.js';
import { CredentialSource } from './credentials.js';
import { ConfigError } from './errors.js';
import { inspectAsJSON } from './inspect.js';
import { type RequestRateLimiter, rateLimiterFor } from './ratelimit.js';
import { type PatchType, Request } from './request.js';
import type { RequestRuntime } from './runtime.js';
import { agentFor } from './transport.js';
import { assertValidGroupVersion, redactedHref } from './url.js';
import { resolveMaxWatchEventBytes } from './watch.js';

/** How a {@link RESTClient} addresses the API and paces itself. */
export interface RESTClientOptions {
  /** The group/version requests go to, e.g. `{ group: 'apps', version: 'v1' }` or `'apps/v1'`. Without it, paths start at `apiPath` (use `absPath` for the rest). */
  groupVersion?: GroupVersion | string;
  /** `/api` or `/apis`; defaults to `Config.apiPath`, else `/api` for the core group and `/apis` for others. */
  apiPath?: string;
  /** Replaces the limiter the config implies (pass the same one to several clients to share it). */
  rateLimiter?: RequestRateLimiter;
  /** Time source for retry waits, the default rate limiter and token-file re-checks; a `FakeClock` in tests. */
  clock?: Clock;
  /** Extra wait before retry number `attempt` (1-based), on top of any Retry-After; none by default, as in client-go. */
  retryBackoffMs?: (attempt: number) => number;
  /**
   * The most bytes one event of this client's watches may have, unless a watch asks for
   * another cap (`Request.watch({ maxEventBytes })`). Default
   * {@link defaultMaxWatchEventBytes} (16 MiB, as client-go): an API server stores objects
   * of about 1.5 MiB at most, and a longer line would otherwise be buffered without bound.
   * A longer event ends its watch with an ERROR event naming the limit; watchers such as
   * informers then watch again. `Infinity` turns the cap off.
   */
  maxWatchEventBytes?: number;
}

function hasTLSSettings(config: Config): boolean {
  const tls = config.tls;
  return Boolean(tls && (tls.caData || tls.certData || tls.insecureSkipVerify));
}

/** `host` for error messages: a password in it (`https://user:pw@...`) shown as `xxxxx`. */
function hostForMessages(host: string): string {
  return host.replace(/^([^/@]*\/\/[^/@:]*:)[^/@]*@/, '$1xxxxx@');
}

/** The server URL with a scheme and no trailing slash, as client-go's `DefaultServerURL`. */
function serverUrl(config: Config): URL {
  const fullHost = configHost(config)?.trim();
  if (!fullHost)
    throw new ConfigError('Config.host must be set to the API server URL', { field: 'host' });
  const host = hostForMessages(fullHost);
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(fullHost);
  const withScheme = hasScheme
    ? fullHost
    : `${hasTLSSettings(config) ? 'https' : 'http'}://${fullHost}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch (err) {
    // The URL parser's error carries its input: with a password in it, it stays out.
    throw new ConfigError(
      `Config.host "${host}" is not a valid URL`,
      { field: 'host' },
      host === fullHost ? { cause: err } : {},
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`Config.host "${host}" must be an http or https URL`, { field: 'host' });
  }
  // A base path is only taken from a full URL: in `host/server` the path is more likely a
  // typo than a proxy prefix, and client-go refuses it too.
  if (!hasScheme && url.pathname !== '/' && url.pathname !== '') {
    throw new ConfigError(
      `Config.host "${host}" must be a URL (with http:// or https://) or a host:port pair`,
      { field: 'host' },
    );
  }
  // One trailing slash is kept: an empty `absPath()` names the base path as given
  // (client-go's TestRequestPreservesBaseTrailingSlash).
  url.pathname = url.pathname.replace(/\/+$/, '/');
  url.search = '';
  url.hash = '';
  return url;
}

/**
 * A client for one API group/version, as client-go's `rest.RESTClient`. Its verbs start a
 * fluent {@link Request}:
 *
 * ```ts
 * const client = new RESTClient(loadConfig(), { groupVersion: 'v1' });
 * const cm = await client.get().namespace('default').resource('configmaps').name('x').do();
 * ```
 *
 * Requests share the client's rate limiter and a keep-alive connection pool (shared with
 * every client using the same TLS settings).
 */
export class RESTClient {
  /**
   * The configuration the client was built from: server, credentials, TLS, limits. A copy
   * of the one given (see {@link copyConfig}), printing with its secrets redacted.
   */
  readonly config: Config;
  /** The group/version this client addresses, when it has one. */
  readonly groupVersion: GroupVersion | undefined;
  /** The limiter every request waits on; `undefined` when throttling is disabled. */
  readonly rateLimiter: RequestRateLimiter | undefined;
  readonly #runtime: RequestRuntime;

  constructor(given: Config, options: RESTClientOptions = {}) {
    // A copy that prints redacted, so `client.config` is safe to log even when the caller
    // spread or hand-wrote the config it passed; it holds the secrets a spread copy of a
    // sealed config keeps out of sight.
    const config = copyConfig(given);
    this.config = config;
    const baseUrl = serverUrl(config);
    if (config.tls?.insecureSkipVerify && config.tls.caData) {
      throw new ConfigError(
        'Config.tls.insecureSkipVerify cannot be combined with a CA certificate: trust the CA or skip verification, not both',
        { field: 'tls' },
      );
    }
    if (baseUrl.protocol === 'http:' && (config.tls?.certData || config.tls?.keyData)) {
      throw new ConfigError(
        `Config.host "${redactedHref(baseUrl)}" uses plain http, so the client certificate would not be sent`,
        { field: 'host' },
      );
    }
    this.groupVersion =
      typeof options.groupVersion === 'string'
        ? parseGroupVersion(options.groupVersion)
        : options.groupVersion;
    // The group and version become path segments of every request: refuse what could
    // climb out of the API path (`../../c2/apis/apps`) before anything is sent.
    if (this.groupVersion) {
      assertValidGroupVersion(this.groupVersion.group, this.groupVersion.version);
    }
    const clock = options.clock ?? realClock;
    this.rateLimiter = options.rateLimiter ?? rateLimiterFor(config, { clock });

    const apiPath =
      options.apiPath ??
      config.apiPath ??
      (this.groupVersion && this.groupVersion.group !== '' ? '/apis' : '/api');
    const versionedPath = this.groupVersion
      ? [apiPath, this.groupVersion.group, this.groupVersion.version].filter(Boolean).join('/')
      : apiPath;

    const credentials = new CredentialSource(config, { tokenFile: { clock } });
    const tls = config.tls ?? {};
    const protocol = baseUrl.protocol;
    this.#runtime = {
      baseUrl,
      versionedPath,
      rateLimiter: this.rateLimiter,
      clock,
      maxRetries: Math.max(0, config.maxRetries ?? 10),
      retryBackoffMs: options.retryBackoffMs ?? (() => 0),
      timeoutMs: config.timeoutMs ?? 0,
      logger: config.logger ?? silentLogger,
      warningHandler: config.warningHandler,
      onRequestResult: config.onRequestResult,
      userAgent: config.userAgent ?? defaultUserAgent(),
      maxWatchEventBytes: resolveMaxWatchEventBytes(options.maxWatchEventBytes),
      http2: config.http2 !== false,
      tls: { caConfigured: Boolean(tls.caData), serverName: tls.serverName },
      async connection(signal) {
        const resolved = await credentials.resolve(signal);
        const agent: Agent = agentFor(protocol, {
          ca: tls.caData,
          cert: resolved.certData ?? tls.certData,
          key: resolved.keyData ?? tls.keyData,
          insecureSkipVerify: tls.insecureSkipVerify,
          serverName: tls.serverName,
        });
        return { headers: resolved.headers, agent, onUnauthorized: resolved.onUnauthorized };
      },
    };
  }

  /** The server URL requests go to (scheme, host, base path; a password in it as `xxxxx`). */
  get baseUrl(): string {
    return redactedHref(this.#runtime.baseUrl).replace(/\/$/, '');
  }

  /**
   * What `JSON.stringify` shows: the server URL, group/version and the config with its
   * secrets redacted (see {@link redactConfig}).
   */
  toJSON(): Record<string, unknown> {
    return {
      baseUrl: redactedHref(this.#runtime.baseUrl).replace(/\/$/, ''),
      groupVersion: this.groupVersion,
      config: redactConfig(this.config),
    };
  }

  /** Starts a request with any HTTP method. */
  verb(method: string): Request {
    return new Request(this.#runtime, method);
  }

  /** Starts a GET (read, list, watch, logs). */
  get(): Request {
    return this.verb('GET');
  }

  /** Starts a POST (create). */
  post(): Request {
    return this.verb('POST');
  }

  /** Starts a PUT (update, replace). */
  put(): Request {
    return this.verb('PUT');
  }

  /** Starts a PATCH whose body is interpreted as `patchType`. */
  patch(patchType: PatchType): Request {
    return new Request(this.#runtime, 'PATCH', patchType);
  }

  /** Starts a DELETE. */
  delete(): Request {
    return this.verb('DELETE');
  }
}
inspectAsJSON(RESTClient, 'RESTClient');

/**
 * A client for a group/version: `/api/v1` for the core group (`group: ''`), else
 * `/apis/<group>/<version>`. Like client-go's `RESTClientFor`.
 */
export function restClientFor(
  config: Config,
  groupVersion: GroupVersion,
  options: Omit<RESTClientOptions, 'groupVersion'> = {},
): RESTClient {
  return new RESTClient(config, {
    apiPath: groupVersion.group === '' ? '/api' : '/apis',
    ...options,
    groupVersion,
  });
}
