import type { Agent } from 'node:http';
import type { Clock, Logger } from '@kubets/apimachinery';
import type { RequestResultHandler } from './config.js';
import type { RequestRateLimiter } from './ratelimit.js';
import type { WarningHandler } from './warnings.js';

/**
 * What a `Request` needs from the client that made it. Built by `RESTClient`;
 * only needed to construct requests without one.
 */
export interface RequestRuntime {
  /** The server URL including any base path, without a trailing slash. */
  readonly baseUrl: URL;
  /** The API path for versioned requests, e.g. `/api/v1` or `/apis/apps/v1`. */
  readonly versionedPath: string;
  /** The limiter every attempt waits on; `undefined` when throttling is off. */
  readonly rateLimiter: RequestRateLimiter | undefined;
  /** Time source for retry waits; a fake clock in tests. */
  readonly clock: Clock;
  /** How often a request is retried after a `Retry-After` answer or a reset connection. */
  readonly maxRetries: number;
  /** Extra wait before retry `attempt` (1-based), on top of any Retry-After. */
  readonly retryBackoffMs: (attempt: number) => number;
  /** Default timeout for every request; 0 for none. */
  readonly timeoutMs: number;
  /** Where requests log retries and failures. */
  readonly logger: Logger;
  /** Receives the server's `Warning` headers; `undefined` drops them. */
  readonly warningHandler: WarningHandler | undefined;
  /** Told the outcome of every request (`Config.onRequestResult`). */
  readonly onRequestResult?: RequestResultHandler | undefined;
  /** The `User-Agent` header sent with every request. */
  readonly userAgent: string;
  /**
   * The default `maxEventBytes` (see `Request.watch`) of watches; `undefined` for
   * `defaultMaxWatchEventBytes` (16 MiB).
   */
  readonly maxWatchEventBytes?: number | undefined;
  /**
   * What the connection trusts, to explain a failed server-certificate verification:
   * whether a CA was configured, and the name the certificate is checked against.
   */
  readonly tls?: {
    /** Whether a CA bundle was configured (otherwise the system roots are trusted). */
    readonly caConfigured: boolean;
    /** The name the server certificate is checked against, when it is not the host. */
    readonly serverName?: string | undefined;
  };
  /**
   * Send `https:` requests over HTTP/2 when the server offers it (see `Config.http2`);
   * HTTP/1.1 when unset.
   */
  readonly http2?: boolean | undefined;
  /**
   * Credentials and the pooled agent for one attempt. `onUnauthorized`, when given, is
   * called if the server answers that attempt with 401, so cached credentials (exec
   * plugin tokens, a token file) are refreshed for the next request.
   */
  connection(signal: AbortSignal): Promise<{
    /** Headers for the attempt: `Authorization`, `Impersonate-*`. */
    headers: Record<string, string | string[]>;
    /** The keep-alive agent for the client's TLS settings. */
    agent: Agent;
    /** Called when the server answers the attempt with 401. */
    onUnauthorized?: (() => void) | undefined;
  }>;
}
