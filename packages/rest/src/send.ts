import type { OutgoingHttpHeaders } from 'node:http';
import { TransportError } from './errors.js';
import { http2TransportFor } from './http2-transport.js';
import { retryAfterSeconds } from './response.js';
import type { RequestRuntime } from './runtime.js';
import { logRetry, logThrottledWait } from './throttle-log.js';
import {
  describeTLSVerificationError,
  type HttpExchange,
  type HttpResponse,
  isRetryableConnectionError,
  isRetryableWatchError,
  isTLSVerificationError,
  networkErrorCode,
  networkErrorMessage,
  sendHttpRequest,
} from './transport.js';
import { redactedHref } from './url.js';
import { parseWarningHeaders } from './warnings.js';

/**
 * Which of client-go's three send loops a request follows: `request` (`Do`, `DoRaw`) is
 * throttled and retries a GET whose connection was lost; `watch` is not throttled before
 * its first attempt and retries any verb whose connection was lost or timed out; `stream`
 * retries no connection error. All three retry a 429 or 5xx carrying `Retry-After`.
 */
export type SendKind = 'request' | 'watch' | 'stream';

function connectionErrorIsRetryable(kind: SendKind, method: string, err: unknown): boolean {
  switch (kind) {
    case 'request':
      return method === 'GET' && isRetryableConnectionError(err);
    case 'watch':
      return isRetryableWatchError(err);
    case 'stream':
      return false;
  }
}

/** One request as the retry loop sends it, attempt after attempt. */
export interface Attempt {
  /** The send loop to follow. */
  readonly kind: SendKind;
  readonly method: string;
  readonly url: URL;
  /** The headers of one attempt, given that attempt's credentials. */
  readonly headers: (credentials: Record<string, string | string[]>) => OutgoingHttpHeaders;
  readonly body: Buffer | undefined;
  /** Ends the waits and the attempt in flight. */
  readonly signal: AbortSignal;
}

function reportWarnings(runtime: RequestRuntime, response: HttpResponse): void {
  const handler = runtime.warningHandler;
  if (!handler || response.headers.warning === undefined) return;
  const values = response.headersDistinct.warning;
  if (!values) return;
  for (const warning of parseWarningHeaders(values)) {
    try {
      handler(warning);
    } catch (err) {
      runtime.logger.warn('warning handler threw', { error: err });
    }
  }
}

/**
 * Sends one attempt: over the pooled HTTP/2 session when the client asked for HTTP/2 and
 * the server offers it, otherwise over HTTP/1.1 through the agent.
 */
async function sendOnce(runtime: RequestRuntime, exchange: HttpExchange): Promise<HttpResponse> {
  if (runtime.http2 === true && exchange.url.protocol === 'https:') {
    const transport = http2TransportFor(exchange.agent, exchange.url, {
      clock: runtime.clock,
      logger: runtime.logger,
    });
    const response = await transport.send(exchange);
    if (response) return response;
  }
  return sendHttpRequest(exchange);
}

/**
 * The errors of a request's last attempts, as client-go's `withRetry` keeps them: the final
 * connection error names the error of an earlier attempt when it differs, so a request that
 * first lost its connection and then failed otherwise reports both.
 */
class AttemptErrors {
  #previous: unknown;
  #current: unknown;

  /** Records one attempt's error, or `undefined` for an attempt that got an answer. */
  track(err: unknown): void {
    if (this.#current !== undefined) this.#previous = this.#current;
    this.#current = err;
  }

  /** ` - error from a previous attempt: ...` when an earlier attempt failed differently. */
  previousSuffix(): string {
    if (this.#previous === undefined || this.#current === undefined) return '';
    const previous = networkErrorMessage(this.#previous);
    if (previous === networkErrorMessage(this.#current)) return '';
    return ` - error from a previous attempt: ${previous}`;
  }
}

/**
 * Sends a request, retrying like client-go: after a 429 or 5xx that carries `Retry-After`
 * (any verb: the server did not act on it), and after a lost connection as the
 * {@link SendKind} allows. Each attempt first waits for the rate limiter, except a watch's
 * first. Resolves with the final response, its body unread.
 *
 * @throws {TransportError} when no answer came; the signal's reason once it aborts.
 */
export async function sendWithRetries(
  runtime: RequestRuntime,
  attempt: Attempt,
): Promise<HttpResponse> {
  const report = runtime.onRequestResult;
  if (report === undefined) return sendAttempts(runtime, attempt);
  let code = '<error>';
  try {
    const response = await sendAttempts(runtime, attempt);
    code = String(response.statusCode);
    return response;
  } finally {
    try {
      report({ code, method: attempt.method, host: runtime.baseUrl.host || 'none' });
    } catch {
      // A metrics hook must not fail a request.
    }
  }
}

async function sendAttempts(runtime: RequestRuntime, attempt: Attempt): Promise<HttpResponse> {
  const { kind, method, url, signal } = attempt;
  const href = redactedHref(url);
  let waitMs = 0;
  const errors = new AttemptErrors();
  for (let tries = 0; ; tries++) {
    if (tries > 0) await runtime.clock.sleep(waitMs, signal);
    // client-go never rate limits a watch's first request, only its retries.
    if (runtime.rateLimiter && (tries > 0 || kind !== 'watch')) {
      const waitStarted = runtime.clock.now();
      await runtime.rateLimiter.wait(signal);
      const now = runtime.clock.now();
      logThrottledWait(runtime.logger, now, now - waitStarted, { verb: method, url: href });
    }
    const { headers: credentials, agent, onUnauthorized } = await runtime.connection(signal);
    let response: HttpResponse;
    try {
      response = await sendOnce(runtime, {
        url,
        method,
        headers: attempt.headers(credentials),
        body: attempt.body,
        agent,
        signal,
      });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      errors.track(err);
      const code = networkErrorCode(err);
      if (tries < runtime.maxRetries && connectionErrorIsRetryable(kind, method, err)) {
        // client-go answers a retryable connection error as if the server had said
        // "Retry-After: 1".
        waitMs = Math.max(1000, runtime.retryBackoffMs(tries + 1));
        // A server that cannot be reached is worth a warning the first time (the request
        // may go on failing for its ~10 retries); the rest go to debug.
        logRetry(runtime.logger, runtime.clock.now(), 'warn', 'retrying after a connection error', {
          method,
          url: href,
          code,
          attempt: tries + 1,
          waitMs,
        });
        continue;
      }
      const reason = isTLSVerificationError(err)
        ? describeTLSVerificationError(err, runtime.tls ?? { caConfigured: false })
        : networkErrorMessage(err);
      throw new TransportError(
        `${method} ${href}: ${reason}${errors.previousSuffix()}`,
        { method, url: href, ...(code ? { code } : {}) },
        { cause: err },
      );
    }
    errors.track(undefined);
    // As client-go's exec authenticator: a 401 invalidates the cached credentials so the
    // next request gets new ones; this request is not sent again.
    if (response.statusCode === 401) onUnauthorized?.();
    reportWarnings(runtime, response);
    const retryAfter = retryAfterSeconds(response);
    if (retryAfter !== undefined && tries < runtime.maxRetries) {
      // Drain the body so the keep-alive connection can carry the retry.
      response.body.resume();
      waitMs = Math.max(retryAfter * 1000, runtime.retryBackoffMs(tries + 1));
      // The server asked for it (429 from priority and fairness, a 5xx while it starts):
      // routine, so info.
      logRetry(runtime.logger, runtime.clock.now(), 'info', 'retrying after Retry-After', {
        method,
        url: href,
        statusCode: response.statusCode,
        attempt: tries + 1,
        waitMs,
      });
      continue;
    }
    return response;
  }
}
