import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { pinoLogger } from './pino.js';

/** A real pino logger writing JSON lines into an array. */
function capturedPino(level = 'debug') {
  const records: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n')) {
        if (line !== '') records.push(JSON.parse(line) as Record<string, unknown>);
      }
      callback();
    },
  });
  return { logger: pino({ level, base: undefined, timestamp: false }, stream), records };
}

describe('pinoLogger', () => {
  it('writes each call as one pino record at its level, message as msg, fields as properties', () => {
    const { logger, records } = capturedPino();
    const log = pinoLogger(logger);
    log.debug('Reconciling', { controller: 'web', reconcileID: 'id-1' });
    log.info('Starting workers', { controller: 'web', workerCount: 2 });
    log.warn('slow');
    log.error('Reconciler error', { error: new TypeError('boom') });
    expect(records.map(({ level, msg }) => [level, msg])).toEqual([
      [20, 'Reconciling'],
      [30, 'Starting workers'],
      [40, 'slow'],
      [50, 'Reconciler error'],
    ]);
    expect(records[0]).toMatchObject({ controller: 'web', reconcileID: 'id-1' });
    expect(records[1]).toMatchObject({ controller: 'web', workerCount: 2 });
    expect(records[3]?.error).toMatchObject({ type: 'TypeError', message: 'boom' });
    expect(String((records[3]?.error as { stack?: string } | undefined)?.stack)).toContain(
      'TypeError: boom',
    );
  });

  it("follows the pino logger's level", () => {
    const { logger, records } = capturedPino('warn');
    const log = pinoLogger(logger.child({ component: 'manager' }));
    log.info('dropped');
    log.warn('kept');
    expect(records).toEqual([{ level: 40, component: 'manager', msg: 'kept' }]);
  });

  it('refuses something that is no pino logger', () => {
    expect(() => pinoLogger({} as never)).toThrow(
      'pinoLogger(pino) needs a pino logger (pino() or logger.child(...))',
    );
  });
});
