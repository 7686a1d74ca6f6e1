/**
 * A klog-style logger for the example apps, writing lines as Kubernetes components do:
 *
 * ```
 * I1122 12:00:00.123456    1234 main.ts:42] Starting Pod controller
 * ```
 *
 * severity (`I`nfo, `W`arning, `E`rror, `F`atal), month and day, local time with
 * microseconds, the process id right-aligned in 7 columns, the caller's `file:line`, `]`, the
 * message. Lines go to stderr, as klog's do by default; what a program prints with
 * `console.log` goes to stdout, as `fmt.Printf` does in the Go programs.
 *
 * The caller's file and line come from V8's structured stack trace (`Error.captureStackTrace`
 * with a stack limited to the frames needed): a few microseconds per line, nothing at all
 * when no line is written. Node's type stripping keeps line numbers, so `main.ts:42` is line
 * 42 of the TypeScript source; Deno's too. On Bun a call in tail position drops its caller's
 * frame (JavaScriptCore's proper tail calls), so a frame counted up the stack may be the
 * wrong one: there the caller is left out as klog does when it cannot tell, `???:1`.
 */

import {
  formatKlogField,
  formatKlogHeader,
  type KlogSeverity,
  stackKeepsEveryCaller,
} from '@kubets/apimachinery';
import type { LogFields, Logger } from '@kubets/rest';

/** klog's severities. */
export type Severity = KlogSeverity;

/** Where formatted lines go; stderr by default. */
export type LogSink = (line: string, severity: Severity) => void;

let sink: LogSink = (line) => {
  process.stderr.write(`${line}\n`);
};

/** klog's severities in order, as `-stderrthreshold` numbers them (INFO=0 ... FATAL=3). */
const severityRank: Readonly<Record<Severity, number>> = { I: 0, W: 1, E: 2, F: 3 };

/** What klog's common flags set: see {@link configureKlog}. */
export interface KlogSettings {
  /** `-v`: `V(n)` lines are written only when `v >= n`. */
  readonly v?: number;
  /** `-logtostderr`: every line goes to stderr (klog's default in the apps: true). */
  readonly logtostderr?: boolean;
  /** `-alsologtostderr`: every line goes to stderr as well as to the log files. */
  readonly alsologtostderr?: boolean;
  /**
   * `-stderrthreshold` (0 INFO, 1 WARNING, 2 ERROR, 3 FATAL): with neither `logtostderr` nor
   * `alsologtostderr`, only lines at or above it reach stderr. The apps write no log files,
   * so lines below it are dropped.
   */
  readonly stderrthreshold?: number;
}

let inForce: Required<KlogSettings> = {
  v: 0,
  logtostderr: true,
  alsologtostderr: false,
  stderrthreshold: 2,
};
let verbosityLevel = 0;
let lowestRank = 0;

/**
 * Applies klog's common flags (`parseFlags` does it for every app): the verbosity and which
 * severities reach stderr. Settings not given keep their value. Returns the settings in force
 * before.
 */
export function configureKlog(settings: KlogSettings): Required<KlogSettings> {
  const previous = inForce;
  inForce = {
    v: settings.v ?? previous.v,
    logtostderr: settings.logtostderr ?? previous.logtostderr,
    alsologtostderr: settings.alsologtostderr ?? previous.alsologtostderr,
    stderrthreshold: settings.stderrthreshold ?? previous.stderrthreshold,
  };
  verbosityLevel = inForce.v;
  lowestRank = inForce.logtostderr || inForce.alsologtostderr ? 0 : inForce.stderrthreshold;
  return previous;
}

/** The verbosity `-v` set (0 unless given): klog's `V(n)` is enabled when it is ≥ n. */
export function verbosity(): number {
  return verbosityLevel;
}

/** Redirects log lines (e.g. into a test's buffer); returns the previous sink. */
export function setLogSink(next: LogSink): LogSink {
  const previous = sink;
  sink = next;
  return previous;
}

/**
 * The klog header for a line: `I1122 12:00:00.123456    1234 main.ts:42] ` (the libraries'
 * text logger writes the same).
 */
export const formatHeader = formatKlogHeader;

/**
 * `file:line` of a frame on the current stack: 0 is the function calling `callerLocation`,
 * 1 its caller, and so on. Only `skip + 1` frames are collected. `???:1` where the stack may
 * have lost a caller's frame (Bun), since counting frames there could name the wrong one.
 */
export function callerLocation(skip: number): string {
  if (!stackKeepsEveryCaller()) return '???:1';
  const savedLimit = Error.stackTraceLimit;
  const savedPrepare = Error.prepareStackTrace;
  const holder: { stack?: unknown } = {};
  try {
    Error.stackTraceLimit = skip + 1;
    Error.prepareStackTrace = (_error, frames) => frames;
    Error.captureStackTrace(holder, callerLocation);
    const frames = holder.stack as NodeJS.CallSite[] | undefined;
    const frame = frames?.[skip];
    const file = frame?.getFileName();
    if (!frame || !file) return '???:1';
    return `${file.slice(file.lastIndexOf('/') + 1)}:${frame.getLineNumber() ?? 0}`;
  } finally {
    Error.stackTraceLimit = savedLimit;
    Error.prepareStackTrace = savedPrepare;
  }
}

function write(severity: Severity, depth: number, message: string): void {
  // Frames above callerLocation: write, the Klog method, then its caller (+ depth).
  writeAt(severity, callerLocation(2 + depth), message);
}

function writeAt(severity: Severity, location: string, message: string): void {
  if (severityRank[severity] < lowestRank) return;
  sink(
    formatHeader(severity, performance.timeOrigin + performance.now(), process.pid, location) +
      message,
    severity,
  );
}

/** Options of {@link klogLogger}. */
export interface KlogLoggerOptions {
  /**
   * The `-v` level from which `debug` messages are printed (as `I` lines), as klog drops its
   * `V(4)` lines unless asked; default 4.
   */
  readonly debugLevel?: number;
  /**
   * Messages not to print because the app reports the same event itself (e.g. a watch error
   * handler that logs every failed list in client-go's words).
   */
  readonly omit?: readonly string[];
}

/**
 * A kubets `Logger` (`@kubets/rest`, `@kubets/cache`, ...) that prints what a library reports
 * as klog lines: `W1124 03:12:00.123456   12345 @kubets/cache] List/watch failed name="..."
 * error="..."`. The kubets libraries are silent unless given a logger; client-go's log
 * through klog, so the apps hand this to every client, informer and factory to show what
 * client-go programs show — above all every failed list or watch.
 *
 * `source` takes the place of klog's `file:line`: the library's code is bundled, so the line
 * a stack trace could name is one of its `dist/index.js`, which would tell a reader nothing.
 * `debug` maps to `I` lines shown from `-v=4`, `info` to `I`, `warn` to `W`, `error` to `E`; fields follow the
 * message as `key=value`, values as JSON.
 */
export function klogLogger(source: string, options: KlogLoggerOptions = {}): Logger {
  const omit = new Set(options.omit);
  const log =
    (severity: Severity | undefined) =>
    (message: string, fields?: LogFields): void => {
      if (severity === undefined || omit.has(message)) return;
      const rendered = Object.entries(fields ?? {}).map(([key, value]) =>
        formatKlogField(key, value),
      );
      writeAt(severity, source, [message, ...rendered].join(' '));
    };
  const debugLevel = options.debugLevel ?? 4;
  const verbose = log('I');
  return {
    debug: (message, fields) => {
      if (verbosityLevel >= debugLevel) verbose(message, fields);
    },
    info: log('I'),
    warn: log('W'),
    error: log('E'),
  };
}

/**
 * `file:line` of the innermost frame of a thrown error's stack: where a line about an error
 * that nobody caught points, since the stack itself is not printed.
 */
function thrownAt(err: unknown): string | undefined {
  const stack = err instanceof Error ? err.stack : undefined;
  const frame = /^\s+at (?:.*\()?(?:[a-z]+:\/\/)?([^()\s]+):(\d+):\d+\)?$/m.exec(stack ?? '');
  if (!frame?.[1]) return undefined;
  const file = frame[1];
  return `${file.slice(file.lastIndexOf('/') + 1)}:${frame[2]}`;
}

let fatalOnUncaughtInstalled = false;

/**
 * Makes an error that nothing caught — a rejected top-level `await`, a rejection nobody
 * handles, an uncaught exception — end the program as `klog.Fatal(err)` does in the Go
 * programs: one `F` line with the error's message, attributed to where it was thrown, and exit
 * status 255, instead of Node's stack dump (which, for a connection error, says nothing a user
 * can act on). Idempotent.
 */
export function fatalOnUncaughtErrors(): void {
  if (fatalOnUncaughtInstalled) return;
  fatalOnUncaughtInstalled = true;
  const onError = (err: unknown): void => {
    writeAt('F', thrownAt(err) ?? callerLocation(0), errorMessage(err));
    process.exit(255);
  };
  process.on('uncaughtException', onError);
  process.on('unhandledRejection', onError);
}

/** The message of a thrown value, as Go prints an `error` (no `Error: ` prefix). */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

const join = (args: readonly unknown[]): string =>
  args.map((arg) => (typeof arg === 'string' ? arg : errorMessage(arg))).join(' ');

/** klog's `V(n)`: lines written only when `-v` is at least `n`. */
export interface Verbose {
  /** Whether `-v` is at least `n` (klog's `V(n).Enabled()`). */
  readonly enabled: boolean;
  info(...args: unknown[]): void;
  /** Like `info`, attributing the line to the caller `depth` frames further up. */
  infoDepth(depth: number, ...args: unknown[]): void;
}

/** client-go's `klog` as the example apps use it. Arguments are joined with spaces. */
export interface Klog {
  /** `klog.V(n)`: `klog.V(4).info(...)` writes only with `-v=4` or more. */
  V(level: number): Verbose;
  info(...args: unknown[]): void;
  warning(...args: unknown[]): void;
  error(...args: unknown[]): void;
  /** Logs, then exits with status 255, as `klog.Fatal` does. */
  fatal(...args: unknown[]): never;
  /** Like `info`, attributing the line to the caller `depth` frames further up (klog's `InfoDepth`). */
  infoDepth(depth: number, ...args: unknown[]): void;
  errorDepth(depth: number, ...args: unknown[]): void;
  fatalDepth(depth: number, ...args: unknown[]): never;
}

export const klog: Klog = {
  V: (level) => {
    const enabled = verbosityLevel >= level;
    return {
      enabled,
      info: (...args) => {
        if (enabled) write('I', 0, join(args));
      },
      infoDepth: (depth, ...args) => {
        if (enabled) write('I', depth, join(args));
      },
    };
  },
  info: (...args) => write('I', 0, join(args)),
  warning: (...args) => write('W', 0, join(args)),
  error: (...args) => write('E', 0, join(args)),
  fatal: (...args): never => {
    write('F', 0, join(args));
    process.exit(255);
  },
  infoDepth: (depth, ...args) => write('I', depth, join(args)),
  errorDepth: (depth, ...args) => write('E', depth, join(args)),
  fatalDepth: (depth, ...args): never => {
    write('F', depth, join(args));
    process.exit(255);
  },
};

/**
 * client-go's `runtime.HandleError`: reports an error that cannot be returned to anyone, as an
 * `E` line attributed to the caller.
 */
export function handleError(err: unknown): void {
  klog.errorDepth(1, errorMessage(err));
}
