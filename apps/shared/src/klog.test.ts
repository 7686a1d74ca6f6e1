import { stackKeepsEveryCaller } from '@kubets/apimachinery';
import { afterEach, describe, expect, it } from 'vitest';
import {
  callerLocation,
  configureKlog,
  errorMessage,
  formatHeader,
  handleError,
  klog,
  klogLogger,
  type Severity,
  setLogSink,
  verbosity,
} from './klog.ts';

const captured: { line: string; severity: Severity }[] = [];
/** `location`, or `???:1` on Bun, whose stack may have lost the caller's frame. */
const callerOr = (location: string): string => (stackKeepsEveryCaller() ? location : '???:1');
/** The line number `callerLocation(0)` names here (0 on Bun, where it names none). */
const lineHere = (): number => Number(callerLocation(1).split(':')[1]);
const escaped = (text: string): string => text.replace(/[.?*+^$()[\]{}|\\]/g, '\\$&');
const restore = setLogSink((line, severity) => captured.push({ line, severity }));

afterEach(() => {
  captured.length = 0;
  configureKlog({ v: 0, logtostderr: true, alsologtostderr: false, stderrthreshold: 2 });
});

describe('formatHeader', () => {
  it('writes severity, month, day, local time with microseconds, pid in 7 columns, file:line', () => {
    const at = new Date(2026, 10, 22, 9, 5, 7, 123).getTime() + 0.456;
    expect(formatHeader('I', at, 1234, 'main.ts:42')).toBe(
      'I1122 09:05:07.123456    1234 main.ts:42] ',
    );
    expect(formatHeader('E', new Date(2026, 0, 3, 23, 59, 59, 0).getTime(), 7, 'x.ts:1')).toBe(
      'E0103 23:59:59.000000       7 x.ts:1] ',
    );
  });
});

describe('klog', () => {
  it('attributes each line to the calling file and line', () => {
    const here = lineHere();
    klog.info('Starting Pod controller'); // line here + 1
    expect(captured).toHaveLength(1);
    expect(captured[0]?.severity).toBe('I');
    expect(captured[0]?.line).toMatch(
      new RegExp(
        `^I\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d{6} {1,7}${process.pid} ${escaped(callerOr(`klog.test.ts:${here + 1}`))}\\] Starting Pod controller$`,
      ),
    );
  });

  it('joins arguments with spaces and prints errors by their message', () => {
    klog.warning('retrying', 'in', '5ms:', new Error('boom'));
    klog.error('failed');
    expect(captured.map((c) => c.severity)).toEqual(['W', 'E']);
    expect(captured[0]?.line).toMatch(/\] retrying in 5ms: boom$/);
    expect(captured[1]?.line).toMatch(/^E.*\] failed$/);
  });

  it('handleError reports as an E line attributed to its caller', () => {
    const report = (): void => handleError(new Error('no luck'));
    report();
    expect(captured[0]?.severity).toBe('E');
    expect(captured[0]?.line).toMatch(
      stackKeepsEveryCaller() ? / klog\.test\.ts:\d+\] no luck$/ : / \?\?\?:1\] no luck$/,
    );
  });

  it('infoDepth attributes the line further up the stack', () => {
    const helper = (): void => klog.infoDepth(1, 'from a helper');
    const here = lineHere();
    helper(); // line here + 1
    expect(captured[0]?.line).toContain(`${callerOr(`klog.test.ts:${here + 1}`)}] from a helper`);
  });

  it('callerLocation names this file (nothing on Bun)', () => {
    expect(callerLocation(0)).toMatch(
      stackKeepsEveryCaller() ? /^klog\.test\.ts:\d+$/ : /^\?\?\?:1$/,
    );
  });

  it('errorMessage drops the Error: prefix', () => {
    expect(errorMessage(new TypeError('bad'))).toBe('bad');
    expect(errorMessage('plain')).toBe('plain');
  });

  it('leaves the previous sink restorable', () => {
    const mine = setLogSink(restore);
    expect(typeof mine).toBe('function');
    setLogSink(mine);
  });
});

describe('klogLogger', () => {
  it('prints a library report as a klog line named after its source, fields as key=JSON', () => {
    const logger = klogLogger('@kubets/cache', { omit: ['reported elsewhere'] });
    logger.warn('List/watch failed', {
      name: 'reflector',
      error: new Error('connect ECONNREFUSED'),
      attempt: 2,
    });
    logger.info('Relisting');
    logger.error('reported elsewhere');
    logger.debug('dropped by default');
    expect(captured.map((c) => c.severity)).toEqual(['W', 'I']);
    expect(captured[0]?.line).toMatch(
      /^W\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ @kubets\/cache\] List\/watch failed name="reflector" error="Error: connect ECONNREFUSED" attempt=2$/,
    );
  });
});

describe("klog's flags", () => {
  it('-v: V(n) lines and debug reports show only from their level on', () => {
    expect(verbosity()).toBe(0);
    const logger = klogLogger('@kubets/cache');
    klog.V(1).info('at 1');
    logger.debug('Starting reflector', { name: 'pods' });
    expect(klog.V(0).enabled).toBe(true);
    expect(klog.V(1).enabled).toBe(false);
    expect(captured).toHaveLength(0);

    configureKlog({ v: 3 });
    klog.V(3).info('at 3');
    logger.debug('Starting reflector', { name: 'pods' });
    expect(captured.map((entry) => entry.line)).toEqual([
      expect.stringMatching(
        stackKeepsEveryCaller() ? / klog\.test\.ts:\d+\] at 3$/ : / \?\?\?:1\] at 3$/,
      ),
    ]);

    configureKlog({ v: 4 });
    logger.debug('Starting reflector', { name: 'pods' });
    klogLogger('@kubets/cache', { debugLevel: 5 }).debug('not yet');
    expect(captured).toHaveLength(2);
    expect(captured[1]?.line).toMatch(/^I.* @kubets\/cache\] Starting reflector name="pods"$/);
  });

  it('-stderrthreshold filters only without -logtostderr and -alsologtostderr', () => {
    const all = (): void => {
      klog.info('i');
      klog.warning('w');
      klog.error('e');
    };
    configureKlog({ stderrthreshold: 1 });
    all();
    expect(captured).toHaveLength(3); // -logtostderr (the default): everything
    captured.length = 0;
    configureKlog({ logtostderr: false });
    all();
    expect(captured.map((entry) => entry.severity)).toEqual(['W', 'E']);
    captured.length = 0;
    configureKlog({ alsologtostderr: true });
    all();
    expect(captured).toHaveLength(3);
    captured.length = 0;
    const before = configureKlog({ alsologtostderr: false, stderrthreshold: 2 });
    expect(before).toEqual({ v: 0, logtostderr: false, alsologtostderr: true, stderrthreshold: 1 });
    all();
    expect(captured.map((entry) => entry.severity)).toEqual(['E']);
  });
});
