/**
 * The pino adapter of the kubets `Logger`: `@kubets/controller/pino`. Needs the optional peer
 * dependency `pino` (9.x or 10.x).
 *
 * ```ts
 * import pino from 'pino';
 * import { Manager } from '@kubets/controller';
 * import { pinoLogger } from '@kubets/controller/pino';
 *
 * const mgr = new Manager(getConfig(), { logger: pinoLogger(pino()) });
 * ```
 * @packageDocumentation
 */
import type { LogFields, Logger } from '@kubets/apimachinery';
import type { Logger as PinoLogger } from 'pino';

/** The part of a pino logger the adapter calls: its four levels, fields first. */
export type PinoLike = Pick<PinoLogger, 'debug' | 'info' | 'warn' | 'error'>;

/**
 * A kubets `Logger` writing through `pino` (for a manager, its controllers, clients and
 * informers): each call becomes one pino record at the same level, with the message as `msg`
 * and the fields as its properties. Errors among the fields are written as pino's error
 * serializer writes `err`: `{ type, message, stack }`, instead of the `{}` JSON makes of them.
 */
export function pinoLogger(pino: PinoLike): Logger {
  if (typeof pino?.info !== 'function') {
    throw new TypeError('pinoLogger(pino) needs a pino logger (pino() or logger.child(...))');
  }
  return {
    debug: (message, fields) => pino.debug(record(fields), message),
    info: (message, fields) => pino.info(record(fields), message),
    warn: (message, fields) => pino.warn(record(fields), message),
    error: (message, fields) => pino.error(record(fields), message),
  };
}

function record(fields: LogFields | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields ?? {})) {
    out[key] =
      value instanceof Error
        ? { type: value.name, message: value.message, stack: value.stack }
        : value;
  }
  return out;
}
