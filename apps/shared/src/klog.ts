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
 * 42 of the TypeScript source.
 */

/** klog's severities. */
export type Severity = 'I' | 'W' | 'E' | 'F';

/** Where formatted lines go; stderr by default. */
export type LogSink = (line: string, severity: Severity) => void;

let sink: LogSink = (line) => {
  process.stderr.write(`${line}\n`);
};

/** Redirects log lines (e.g. into a test's buffer); returns the previous sink. */
export function setLogSink(next: LogSink): LogSink {
  const previous = sink;
  sink = next;
  return previous;
}

const pad = (value: number, width: number, fill = '0'): string =>
  String(value).padStart(width, fill);

/**
 * The klog header for a line: `I1122 12:00:00.123456    1234 main.ts:42] `.
 *
 * @param epochMs milliseconds since the epoch, with a fraction for microseconds
 *   (`performance.timeOrigin + performance.now()`).
 */
export function formatHeader(
  severity: Severity,
  epochMs: number,
  pid: number,
  location: string,
): string {
  const wholeMs = Math.floor(epochMs);
  const date = new Date(wholeMs);
  const micros = (wholeMs % 1000) * 1000 + Math.floor((epochMs - wholeMs) * 1000);
  return (
    `${severity}${pad(date.getMonth() + 1, 2)}${pad(date.getDate(), 2)} ` +
    `${pad(date.getHours(), 2)}:${pad(date.getMinutes(), 2)}:${pad(date.getSeconds(), 2)}.${pad(micros, 6)} ` +
    `${pad(pid, 7, ' ')} ${location}] `
  );
}

/**
 * `file:line` of a frame on the current stack: 0 is the function calling `callerLocation`,
 * 1 its caller, and so on. Only `skip + 1` frames are collected.
 */
export function callerLocation(skip: number): string {
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
  const location = callerLocation(2 + depth);
  sink(
    formatHeader(severity, performance.timeOrigin + performance.now(), process.pid, location) +
      message,
    severity,
  );
}

/** The message of a thrown value, as Go prints an `error` (no `Error: ` prefix). */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

const join = (args: readonly unknown[]): string =>
  args.map((arg) => (typeof arg === 'string' ? arg : errorMessage(arg))).join(' ');

/** client-go's `klog` as the example apps use it. Arguments are joined with spaces. */
export interface Klog {
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
