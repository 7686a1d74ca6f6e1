/** Structured key/value context attached to a log line. */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * Where a kubets library reports what it is doing: the REST client (retries, throttling,
 * credential refreshes), the cache (relists, watch errors, handler failures), the event
 * recorder, and so on. Libraries stay silent unless the application passes a logger: adapt
 * your own logger (pino, winston, a klog-style printer) to these four methods.
 *
 * `@kubets/rest` and `@kubets/cache` re-export this type, so one adapter serves every package.
 *
 * @example
 * ```ts
 * import type { Logger } from '@kubets/apimachinery';
 *
 * const consoleLogger: Logger = {
 *   debug: (message, fields) => console.debug(message, fields ?? {}),
 *   info: (message, fields) => console.info(message, fields ?? {}),
 *   warn: (message, fields) => console.warn(message, fields ?? {}),
 *   error: (message, fields) => console.error(message, fields ?? {}),
 * };
 * ```
 */
export interface Logger {
  /** Detail for troubleshooting; usually off in production. */
  debug(message: string, fields?: LogFields): void;
  /** Normal operation worth recording (started, synced, leader acquired). */
  info(message: string, fields?: LogFields): void;
  /** Something unexpected that the library recovered from (a retried request, a dropped watch). */
  warn(message: string, fields?: LogFields): void;
  /** A failure the caller may need to act on. */
  error(message: string, fields?: LogFields): void;
}

const ignore = (): void => {};

/**
 * A logger that drops everything: the default of every kubets library, so none of them
 * writes on its own.
 */
export const silentLogger: Logger = Object.freeze({
  debug: ignore,
  info: ignore,
  warn: ignore,
  error: ignore,
});
