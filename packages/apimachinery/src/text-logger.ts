import type { LogFields, Logger } from './logger.js';

/** klog's severities: `I`nfo, `W`arning, `E`rror, `F`atal. */
export type KlogSeverity = 'I' | 'W' | 'E' | 'F';

const pad = (value: number, width: number, fill = '0'): string =>
  String(value).padStart(width, fill);

/**
 * The klog header of a line: `I1128 21:30:00.123456   12345 main.ts:42] `: severity, month
 * and day, local time with microseconds, the process id right-aligned in 7 columns, the
 * caller's `file:line`.
 *
 * @param epochMs milliseconds since the epoch, with a fraction for microseconds
 *   (`performance.timeOrigin + performance.now()`).
 */
export function formatKlogHeader(
  severity: KlogSeverity,
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
 * One field of a structured log line as klog's text format prints it: `key="value"`, numbers
 * and booleans bare, errors as `String(error)` (their class name tells a `TransportError`
 * from a `StatusError`), objects as JSON.
 */
export function formatKlogField(key: string, value: unknown): string {
  let text: string;
  if (value instanceof Error) text = JSON.stringify(String(value));
  else if (typeof value === 'bigint') text = String(value);
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = JSON.stringify(String(value)); // cyclic objects
    }
  }
  return `${key}=${text}`;
}

/**
 * Whether this runtime's stack traces keep a frame for every caller. Where a call in tail
 * position replaces its caller's frame (JavaScriptCore's proper tail calls, so on Bun), the
 * caller a stack names may be one further up than the code that called: the klog loggers
 * leave the caller out there (`???:1`, klog's own "unknown") rather than name a wrong one.
 * Node and Deno (V8) keep every frame.
 */
export function stackKeepsEveryCaller(): boolean {
  keepsEveryCaller ??= tailCallProbe.kubetsTailCaller().includes('kubetsTailCaller');
  return keepsEveryCaller;
}

let keepsEveryCaller: boolean | undefined;

// The probe's call is in tail position (modules are strict): where proper tail calls are
// implemented its frame is gone from the stack `functionNamesBelow` captures. The name is a
// property key, so bundling cannot rename it.
const tailCallProbe = { kubetsTailCaller: () => functionNamesBelow() };

function functionNamesBelow(): (string | null)[] {
  const savedLimit = Error.stackTraceLimit;
  const savedPrepare = Error.prepareStackTrace;
  const holder: { stack?: unknown } = {};
  try {
    Error.stackTraceLimit = 2;
    Error.prepareStackTrace = (_error, frames) => frames;
    Error.captureStackTrace(holder, functionNamesBelow);
    const frames = (holder.stack as NodeJS.CallSite[] | undefined) ?? [];
    return frames.map((frame) => frame.getFunctionName());
  } finally {
    Error.stackTraceLimit = savedLimit;
    Error.prepareStackTrace = savedPrepare;
  }
}

/**
 * `file:line` of the first frame on the current stack for which `skipFrame` (given the
 * frame's file) is false, looking at most `limit` frames up; `???:1` when there is none, or
 * when the stack may have lost the caller's frame ({@link stackKeepsEveryCaller}).
 */
export function klogCallerLocation(skipFrame: (file: string) => boolean, limit = 20): string {
  return (
    firstFrame(
      (file, line) =>
        skipFrame(file) ? undefined : `${file.slice(file.lastIndexOf('/') + 1)}:${line}`,
      limit,
      klogCallerLocation,
    ) ?? '???:1'
  );
}

// The first answer `name` gives for a frame of the current stack, innermost first, from the
// caller of `below` on.
function firstFrame(
  name: (file: string, line: number) => string | undefined,
  limit = 20,
  below: (...args: never[]) => unknown = firstFrame,
): string | undefined {
  if (!stackKeepsEveryCaller()) return undefined;
  const savedLimit = Error.stackTraceLimit;
  const savedPrepare = Error.prepareStackTrace;
  const holder: { stack?: unknown } = {};
  try {
    Error.stackTraceLimit = limit;
    Error.prepareStackTrace = (_error, frames) => frames;
    Error.captureStackTrace(holder, below);
    for (const frame of (holder.stack as NodeJS.CallSite[] | undefined) ?? []) {
      const file = frame.getFileName();
      if (!file) continue;
      const named = name(file, frame.getLineNumber() ?? 0);
      if (named !== undefined) return named;
    }
    return undefined;
  } finally {
    Error.stackTraceLimit = savedLimit;
    Error.prepareStackTrace = savedPrepare;
  }
}

/** Settings of {@link newTextLogger}. */
export interface TextLoggerOptions {
  /**
   * klog's `-v`: `debug` lines are written (as `I` lines) only when it is at least
   * `debugVerbosity`. Default 0.
   */
  verbosity?: number;
  /** The verbosity from which `debug` lines are written; default 4 (klog's `V(4)`). */
  debugVerbosity?: number;
  /** Where each line goes (without its newline); default stderr, as klog's. */
  write?: (line: string, severity: KlogSeverity) => void;
  /**
   * Names the line's origin instead of the caller's `file:line`, e.g. `"manager"`. Without
   * it, the first stack frame outside the kubets packages and Node is named, or, for a line
   * a kubets library writes on its own, the library (`@kubets/cache`); on a runtime whose
   * stack may have lost the caller (Bun: {@link stackKeepsEveryCaller}), `???:1`.
   */
  source?: string;
  /** Fields added to every line (after the message, before the call's own). */
  fields?: LogFields;
  /** The epoch time in milliseconds with a fraction; default `performance.timeOrigin + performance.now()`. */
  now?: () => number;
}

// Frames in this file, in Node itself and in the built kubets packages are not named: a line
// is attributed to the code that called into kubets, or, for a line a kubets library writes
// on its own, to that library (`@kubets/cache`), as the example apps name them.
const thisFile = decodeURIComponent(import.meta.url.replace(/^file:\/\//, ''));
const kubetsDist = /[\\/](?:@kubets|packages)[\\/]([^\\/]+)[\\/]dist[\\/]/;

function callerOrLibrary(): string {
  const caller = firstFrame((file, line) =>
    file === thisFile || file.startsWith('node:') || kubetsDist.test(file)
      ? undefined
      : `${file.slice(file.lastIndexOf('/') + 1)}:${line}`,
  );
  if (caller !== undefined) return caller;
  const library = firstFrame((file) => {
    const pkg = file === thisFile ? undefined : kubetsDist.exec(file)?.[1];
    return pkg === undefined ? undefined : `@kubets/${pkg}`;
  });
  return library ?? '???:1';
}

/**
 * A {@link Logger} that writes klog's text format (what a manager logs unless given another
 * logger), one line per call:
 *
 * ```
 * I1128 21:30:00.123456   12345 main.ts:42] "Starting workers" controller="website" workerCount=1
 * ```
 *
 * `error` writes `E` lines, `warn` `W`, `info` `I`, `debug` `I` only from `verbosity` 4. The
 * message is quoted and the fields follow as `key=value` (klog's structured `InfoS`).
 */
export function newTextLogger(options: TextLoggerOptions = {}): Logger {
  const write =
    options.write ??
    ((line: string): void => {
      process.stderr.write(`${line}\n`);
    });
  const now = options.now ?? (() => performance.timeOrigin + performance.now());
  const base = options.fields ?? {};
  const source = options.source;
  const location = source !== undefined ? () => source : callerOrLibrary;
  const line =
    (severity: KlogSeverity) =>
    (message: string, fields?: LogFields): void => {
      const rendered = Object.entries({ ...base, ...fields }).map(([k, v]) =>
        formatKlogField(k, v),
      );
      write(
        formatKlogHeader(severity, now(), process.pid, location()) +
          [JSON.stringify(message), ...rendered].join(' '),
        severity,
      );
    };
  const info = line('I');
  const debugEnabled = (options.verbosity ?? 0) >= (options.debugVerbosity ?? 4);
  return {
    debug: debugEnabled ? info : () => {},
    info,
    warn: line('W'),
    error: line('E'),
  };
}
