import { describe, expect, it } from 'vitest';
import {
  formatKlogField,
  formatKlogHeader,
  klogCallerLocation,
  newTextLogger,
  stackKeepsEveryCaller,
} from './index.js';

describe('formatKlogHeader', () => {
  it('writes severity, date, time with microseconds, pid in 7 columns and the location', () => {
    const at = new Date(2026, 10, 28, 21, 30, 0, 123).getTime() + 0.456;
    expect(formatKlogHeader('I', at, 12345, 'file.ts:42')).toBe(
      'I1128 21:30:00.123456   12345 file.ts:42] ',
    );
  });
});

describe('formatKlogField', () => {
  it.each([
    ['a string', 'value', 'key="value"'],
    ['a number', 3, 'key=3'],
    ['a boolean', true, 'key=true'],
    ['an error', new Error('boom'), 'key="Error: boom"'],
    ['an object', { a: 1 }, 'key={"a":1}'],
    ['a bigint', 10n, 'key=10'],
    ['undefined', undefined, 'key=undefined'],
  ])('%s', (_what, value, line) => {
    expect(formatKlogField('key', value)).toBe(line);
  });
});

describe('newTextLogger', () => {
  const at = new Date(2026, 10, 28, 21, 30, 0, 123).getTime() + 0.456;
  const pid = String(process.pid).padStart(7, ' ');

  function capture(options: Parameters<typeof newTextLogger>[0] = {}) {
    const lines: string[] = [];
    const logger = newTextLogger({ now: () => at, write: (line) => lines.push(line), ...options });
    return { logger, lines };
  }

  it('writes klog lines: quoted message, key=value fields, severity by level', () => {
    const { logger, lines } = capture({ source: 'manager', fields: { controller: 'web' } });
    logger.info('Starting workers', { workerCount: 1 });
    logger.warn('slow');
    logger.error('Reconciler error', { error: new Error('boom') });
    expect(lines).toEqual([
      `I1128 21:30:00.123456 ${pid} manager] "Starting workers" controller="web" workerCount=1`,
      `W1128 21:30:00.123456 ${pid} manager] "slow" controller="web"`,
      `E1128 21:30:00.123456 ${pid} manager] "Reconciler error" controller="web" error="Error: boom"`,
    ]);
  });

  it('writes debug lines only from verbosity 4', () => {
    const quiet = capture({ source: 's' });
    quiet.logger.debug('detail');
    expect(quiet.lines).toEqual([]);
    const verbose = capture({ source: 's', verbosity: 4 });
    verbose.logger.debug('detail');
    expect(verbose.lines).toEqual([`I1128 21:30:00.123456 ${pid} s] "detail"`]);
  });

  it("names the caller's file and line (left out on Bun, whose stack may have lost it)", () => {
    const { logger, lines } = capture();
    if (!stackKeepsEveryCaller()) {
      logger.info('here');
      expect(lines).toEqual([`I1128 21:30:00.123456 ${pid} ???:1] "here"`]);
      return;
    }
    // Read the same way (the stack as V8 has it), one line above the call.
    const line = Number(klogCallerLocation(() => false).split(':')[1]) + 1;
    logger.info('here');
    expect(lines).toEqual([`I1128 21:30:00.123456 ${pid} text-logger.test.ts:${line}] "here"`]);
  });
});

describe('stackKeepsEveryCaller', () => {
  it('is false only on Bun, where proper tail calls drop the frame of a call in tail position', () => {
    expect(stackKeepsEveryCaller()).toBe(process.versions.bun === undefined);
  });

  it('gives klogCallerLocation nothing to name there rather than a frame further up', () => {
    const named = klogCallerLocation(() => false);
    if (stackKeepsEveryCaller()) expect(named).toMatch(/^text-logger\.test\.ts:\d+$/);
    else expect(named).toBe('???:1');
  });
});
