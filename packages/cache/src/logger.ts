/** Structured key/value context attached to a log line. */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * Where the cache reports what it is doing (relists, watch errors, handler failures). The
 * library stays silent unless the application passes a logger: adapt your own logger
 * (pino, winston, a klog-style printer) to these four methods.
 */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const ignore = (): void => {};

/** A logger that drops everything: the default, so the library never writes on its own. */
export const silentLogger: Logger = Object.freeze({
  debug: ignore,
  info: ignore,
  warn: ignore,
  error: ignore,
});
