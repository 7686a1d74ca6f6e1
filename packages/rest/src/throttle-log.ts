// Logging of client-side throttling, as client-go's tryThrottle: every wait over 50 ms at
// debug level, and a wait over a second at info level, but at most one such line per
// 10 s in the whole process, so a saturated limiter does not flood the log. Retries are
// logged the same way, at the level they deserve.
import type { Logger } from '@kubets/apimachinery';

/** A wait on the rate limiter longer than this is logged at debug level. */
export const longThrottleLatencyMs = 50;
/** A wait longer than this is logged at info level too, throttled by {@link LogThrottle}. */
export const extraLongThrottleLatencyMs = 1000;

/** Lets one message through per `intervalMs` of the caller's clock. */
export class LogThrottle {
  #lastLoggedAt: number | undefined;
  readonly #intervalMs: number;

  constructor(intervalMs: number) {
    this.#intervalMs = intervalMs;
  }

  /** Whether a message may be logged at `nowMs`; if so, the interval starts again. */
  attempt(nowMs: number): boolean {
    const last = this.#lastLoggedAt;
    // A time before the last message comes from another clock (a test's fake one): log.
    if (last !== undefined && nowMs >= last && nowMs - last < this.#intervalMs) return false;
    this.#lastLoggedAt = nowMs;
    return true;
  }
}

// Process-wide, as client-go's globalThrottledLogger: many clients share one budget.
const infoThrottle = new LogThrottle(10_000);

/** Logs a rate limiter wait of `delayMs` before `verb url`, as client-go does. */
export function logThrottledWait(
  logger: Logger,
  nowMs: number,
  delayMs: number,
  request: { verb: string; url: string },
): void {
  if (delayMs <= longThrottleLatencyMs) return;
  const fields = {
    delayMs,
    reason: 'client-side throttling, not priority and fairness',
    verb: request.verb,
    url: request.url,
  };
  logger.debug('Waited before sending request', fields);
  if (delayMs > extraLongThrottleLatencyMs && infoThrottle.attempt(nowMs)) {
    logger.info('Waited before sending request', fields);
  }
}

// Process-wide too: a server that refuses every connection makes every client retry.
const retryThrottle = new LogThrottle(10_000);

/**
 * Logs a retry the client is about to wait for: at `level` (what a user sees by default)
 * at most once per 10 s in the process, so the first retry shows at once and a long outage
 * does not flood the log; every retry at debug level.
 */
export function logRetry(
  logger: Logger,
  nowMs: number,
  level: 'info' | 'warn',
  message: string,
  fields: Record<string, unknown>,
): void {
  if (retryThrottle.attempt(nowMs)) logger[level](message, fields);
  else logger.debug(message, fields);
}
