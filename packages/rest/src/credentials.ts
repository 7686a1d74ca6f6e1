import { readFile, stat } from 'node:fs/promises';
import type { Config, ImpersonationConfig, PemData } from './config.js';
import { CredentialsError, isCredentialsError } from './errors.js';

/** The credentials one request attempt is sent with. */
export interface ResolvedCredentials {
  headers: Record<string, string | string[]>;
  /** A client certificate that replaces `Config.tls.certData` (from an exec plugin). */
  certData?: PemData;
  keyData?: PemData;
}

interface CachedToken {
  readonly token: string;
  readonly inode: number;
  readonly mtimeMs: number;
  readonly size: number;
}

/**
 * A bearer token kept in a file. The file is checked on every use and re-read when it
 * changed: the kubelet rotates projected service-account tokens by swapping the file.
 */
export class TokenFile {
  readonly path: string;
  private cached: CachedToken | undefined;

  constructor(path: string) {
    this.path = path;
  }

  /** The current token; `fallback` (or the last good token) when the file cannot be read. */
  async token(fallback?: string): Promise<string> {
    try {
      const info = await stat(this.path);
      const cached = this.cached;
      if (
        cached &&
        cached.inode === info.ino &&
        cached.mtimeMs === info.mtimeMs &&
        cached.size === info.size
      ) {
        return cached.token;
      }
      const token = (await readFile(this.path, 'utf8')).trim();
      if (!token) throw new Error('the file is empty');
      this.cached = { token, inode: info.ino, mtimeMs: info.mtimeMs, size: info.size };
      return token;
    } catch (err) {
      // A rotation in progress can leave the file briefly missing; keep what worked.
      const usable = this.cached?.token ?? fallback;
      if (usable) return usable;
      const reason = err instanceof Error ? err.message : String(err);
      throw new CredentialsError(`cannot read the bearer token file ${this.path}: ${reason}`, {
        cause: err,
      });
    }
  }
}

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

/**
 * Works out the credentials of each request from a {@link Config}: the auth provider
 * first (exec, OIDC, ...), else the bearer token (file), else basic auth; plus the
 * impersonation headers.
 */
export class CredentialSource {
  private readonly config: Config;
  private readonly tokenFile: TokenFile | undefined;
  private readonly staticHeaders: Record<string, string | string[]>;

  constructor(config: Config) {
    this.config = config;
    this.tokenFile = config.bearerTokenFile ? new TokenFile(config.bearerTokenFile) : undefined;
    this.staticHeaders = impersonationHeaders(config.impersonate);
  }

  async resolve(signal?: AbortSignal): Promise<ResolvedCredentials> {
    const resolved: ResolvedCredentials = { headers: { ...this.staticHeaders } };
    const { authProvider } = this.config;
    if (authProvider) {
      let provided: Awaited<ReturnType<typeof authProvider.credentials>>;
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
      const token = this.tokenFile
        ? await this.tokenFile.token(this.config.bearerToken)
        : this.config.bearerToken;
      if (token) {
        resolved.headers.Authorization = `Bearer ${token}`;
      } else if (this.config.username || this.config.password) {
        const basic = Buffer.from(`${this.config.username ?? ''}:${this.config.password ?? ''}`);
        resolved.headers.Authorization = `Basic ${basic.toString('base64')}`;
      }
    }
    return resolved;
  }
}
