import { type Clock, realClock } from '@kubets/apimachinery';
import { readTextFile, statFile } from './builtins.js';
import {
  type Config,
  type ImpersonationConfig,
  type PemData,
  type RequestCredentials,
  redactConfig,
} from './config.js';
import { CredentialsError, isCredentialsError } from './errors.js';
import { inspectAsJSON } from './inspect.js';

/** The credentials one request attempt is sent with. */
export interface ResolvedCredentials {
  /** Headers to add to the request: `Authorization` and the `Impersonate-*` headers. */
  headers: Record<string, string | string[]>;
  /** A client certificate that replaces `Config.tls.certData` (from an exec plugin). */
  certData?: PemData;
  /** The private key of `certData`. */
  keyData?: PemData;
  /**
   * Call when the server answered 401 to a request sent with these credentials: cached
   * credentials (exec plugin tokens, the token file) are refreshed for the next request.
   */
  onUnauthorized?: () => void;
}

interface CachedToken {
  readonly token: string;
  readonly inode: number;
  readonly mtimeMs: number;
  readonly size: number;
}

/** Options for {@link TokenFile}. */
export interface TokenFileOptions {
  /**
   * How long a token read from the file is used before the file is checked again
   * (`stat`, and a re-read when its inode, size or modification time changed); default
   * {@link defaultTokenFileRecheckMs}. 0 checks on every use.
   */
  recheckIntervalMs?: number;
  /** The time source for `recheckIntervalMs`; a `FakeClock` in tests. */
  clock?: Clock;
}

/**
 * How often a {@link TokenFile} looks at its file: 10 s. client-go re-reads token files at
 * most once a minute; the kubelet rotates projected service-account tokens when 80% of
 * their lifetime (at least 10 minutes) has passed, while the old token stays valid, so
 * either is well within the rotation window. A 401 answer forces a check sooner.
 */
export const defaultTokenFileRecheckMs = 10_000;

/**
 * A bearer token kept in a file. The file is checked at most every `recheckIntervalMs`
 * (and after {@link TokenFile.invalidate}) and re-read when it changed: the kubelet
 * rotates projected service-account tokens by swapping the file, and a rotated token is
 * picked up without a restart.
 */
export class TokenFile {
  /** The file the token is read from. */
  readonly path: string;
  #cached: CachedToken | undefined;
  readonly #clock: Clock;
  readonly #recheckIntervalMs: number;
  // When the file was last looked at (clock time), or undefined to look on the next use.
  #checkedAt: number | undefined;
  #pending: Promise<string> | undefined;

  constructor(path: string, options: TokenFileOptions = {}) {
    this.path = path;
    this.#clock = options.clock ?? realClock;
    this.#recheckIntervalMs = Math.max(0, options.recheckIntervalMs ?? defaultTokenFileRecheckMs);
  }

  /** What `JSON.stringify` shows: the path, never the token read from it. */
  toJSON(): Record<string, unknown> {
    return { path: this.path };
  }

  /** Makes the next {@link TokenFile.token} call look at the file, e.g. after a 401 answer. */
  invalidate(): void {
    this.#checkedAt = undefined;
  }

  /**
   * The current token; `fallback` (or the last good token) when the file cannot be read.
   *
   * @throws {CredentialsError} when the file cannot be read (or is empty) and there is
   * neither a fallback nor an earlier token.
   */
  async token(fallback?: string): Promise<string> {
    const cached = this.#cached;
    if (
      cached &&
      this.#checkedAt !== undefined &&
      this.#clock.now() - this.#checkedAt < this.#recheckIntervalMs
    ) {
      return cached.token;
    }
    // Concurrent requests share one look at the file.
    this.#pending ??= this.#check(fallback).finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  async #check(fallback: string | undefined): Promise<string> {
    const checkedAt = this.#clock.now();
    try {
      const info = await statFile(this.path);
      const cached = this.#cached;
      if (
        cached &&
        cached.inode === info.ino &&
        cached.mtimeMs === info.mtimeMs &&
        cached.size === info.size
      ) {
        this.#checkedAt = checkedAt;
        return cached.token;
      }
      const token = (await readTextFile(this.path)).trim();
      if (!token) throw new Error('the file is empty');
      this.#cached = { token, inode: info.ino, mtimeMs: info.mtimeMs, size: info.size };
      this.#checkedAt = checkedAt;
      return token;
    } catch (err) {
      // A rotation in progress can leave the file briefly missing; keep what worked (and
      // look again on the next use).
      const usable = this.#cached?.token ?? fallback;
      if (usable) return usable;
      const reason = err instanceof Error ? err.message : String(err);
      throw new CredentialsError(`cannot read the bearer token file ${this.path}: ${reason}`, {
        cause: err,
      });
    }
  }
}
inspectAsJSON(TokenFile, 'TokenFile');

// Header names may only hold token characters; client-go percent-encodes the rest of an
// extra key so it survives as a header name.
function escapeHeaderKey(key: string): string {
  let escaped = '';
  for (const byte of new TextEncoder().encode(key)) {
    const ch = String.fromCharCode(byte);
    escaped += /^[A-Za-z0-9!#$&'*+\-.^_`|~]$/.test(ch)
      ? ch
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return escaped;
}

/** The `Impersonate-*` headers for an impersonation config. */
export function impersonationHeaders(
  impersonate: ImpersonationConfig | undefined,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  if (!impersonate) return headers;
  if (impersonate.user) headers['Impersonate-User'] = impersonate.user;
  if (impersonate.uid) headers['Impersonate-Uid'] = impersonate.uid;
  if (impersonate.groups && impersonate.groups.length > 0) {
    headers['Impersonate-Group'] = [...impersonate.groups];
  }
  for (const [key, values] of Object.entries(impersonate.extra ?? {})) {
    if (values.length > 0) headers[`Impersonate-Extra-${escapeHeaderKey(key)}`] = [...values];
  }
  return headers;
}

function hasAuthorization(headers: Record<string, string | string[]>): boolean {
  return Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
}

/** Options for {@link CredentialSource}. */
export interface CredentialSourceOptions {
  /** How `Config.bearerTokenFile` is re-checked. */
  tokenFile?: TokenFileOptions;
}

/**
 * Works out the credentials of each request from a {@link Config}: the auth provider
 * first (exec, OIDC, ...), else the bearer token (file), else basic auth; plus the
 * impersonation headers.
 *
 * After a 401 answer (see {@link ResolvedCredentials.onUnauthorized}) the token file is
 * looked at again and the auth provider's `onUnauthorized` is called, so the next request
 * goes out with fresh credentials. As in client-go, the request that got the 401 is not
 * retried: the caller sees the 401.
 */
export class CredentialSource {
  readonly #config: Config;
  readonly #tokenFile: TokenFile | undefined;
  readonly #staticHeaders: Record<string, string | string[]>;

  constructor(config: Config, options: CredentialSourceOptions = {}) {
    this.#config = config;
    this.#tokenFile = config.bearerTokenFile
      ? new TokenFile(config.bearerTokenFile, options.tokenFile)
      : undefined;
    this.#staticHeaders = impersonationHeaders(config.impersonate);
  }

  /** What `JSON.stringify` shows: the config with its secrets redacted (see {@link redactConfig}). */
  toJSON(): Record<string, unknown> {
    return { config: redactConfig(this.#config) };
  }

  /**
   * The credentials for the next request attempt; rejects with a {@link CredentialsError} when they
   * cannot be obtained.
   */
  async resolve(signal?: AbortSignal): Promise<ResolvedCredentials> {
    const resolved: ResolvedCredentials = { headers: { ...this.#staticHeaders } };
    const { authProvider } = this.#config;
    let provided: RequestCredentials | undefined;
    if (authProvider) {
      try {
        provided = await authProvider.credentials(signal);
      } catch (err) {
        if (isCredentialsError(err) || signal?.aborted) throw err;
        const reason = err instanceof Error ? err.message : String(err);
        throw new CredentialsError(`the auth provider failed: ${reason}`, { cause: err });
      }
      Object.assign(resolved.headers, provided.headers);
      if (provided.certData) resolved.certData = provided.certData;
      if (provided.keyData) resolved.keyData = provided.keyData;
    }
    if (!hasAuthorization(resolved.headers)) {
      const token = this.#tokenFile
        ? await this.#tokenFile.token(this.#config.bearerToken)
        : this.#config.bearerToken;
      if (token) {
        resolved.headers.Authorization = `Bearer ${token}`;
      } else if (this.#config.username || this.#config.password) {
        const basic = Buffer.from(`${this.#config.username ?? ''}:${this.#config.password ?? ''}`);
        resolved.headers.Authorization = `Basic ${basic.toString('base64')}`;
      }
    }
    const tokenFile = this.#tokenFile;
    if (tokenFile || authProvider?.onUnauthorized) {
      resolved.onUnauthorized = () => {
        tokenFile?.invalidate();
        if (provided) authProvider?.onUnauthorized?.(provided);
      };
    }
    return resolved;
  }
}
inspectAsJSON(CredentialSource, 'CredentialSource');
