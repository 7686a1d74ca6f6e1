import type { LogFields, Logger } from '@kubets/apimachinery';

/** `logger` with `fields` added to every line (the Logger interface has no `With`). */
export function withFields(logger: Logger, fields: LogFields): Logger {
  return {
    debug: (message, more) => logger.debug(message, { ...fields, ...more }),
    info: (message, more) => logger.info(message, { ...fields, ...more }),
    warn: (message, more) => logger.warn(message, { ...fields, ...more }),
    error: (message, more) => logger.error(message, { ...fields, ...more }),
  };
}
