import {
  isStatusError,
  type LogFields,
  type Logger,
  type Status,
  StatusError,
} from '@kubets/apimachinery';
import { rejectionOf } from './wait.js';

/** One line a {@link MemoryLogger} was given. */
export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: LogFields | undefined;
}

/** A logger that keeps what it is told, for assertions and for printing when a test fails. */
export class MemoryLogger implements Logger {
  readonly lines: LogLine[] = [];
  readonly #max: number;

  /** Keeps the last `max` lines (all by default). */
  constructor(max = Number.POSITIVE_INFINITY) {
    this.#max = max;
  }

  #log(level: LogLine['level'], message: string, fields: LogFields | undefined): void {
    this.lines.push({ level, message, fields });
    if (this.lines.length > this.#max) this.lines.shift();
  }

  debug(message: string, fields?: LogFields): void {
    this.#log('debug', message, fields);
  }
  info(message: string, fields?: LogFields): void {
    this.#log('info', message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.#log('warn', message, fields);
  }
  error(message: string, fields?: LogFields): void {
    this.#log('error', message, fields);
  }

  /** How many lines of `level` have a message matching `pattern`. */
  matching(level: LogLine['level'], pattern: RegExp): number {
    return this.lines.filter((l) => l.level === level && pattern.test(l.message)).length;
  }

  /** The messages logged at `error` level. */
  errors(): string[] {
    return this.lines.filter((l) => l.level === 'error').map((l) => l.message);
  }

  /** One text line per log line, fields as JSON. */
  text(): string[] {
    return this.lines.map(
      (l) => `${l.level} ${l.message}${l.fields ? ` ${JSON.stringify(l.fields)}` : ''}`,
    );
  }
}

/** The Status of a failed request, as the API server sends it. */
export function failureStatus(code: number, reason: string, message = reason): Status {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message };
}

/** A StatusError with the given code and reason. */
export function statusError(code: number, reason: string, message = reason): StatusError {
  return new StatusError(failureStatus(code, reason, message));
}

/** The StatusError `promise` rejects with; throws when it fulfils or rejects with anything else. */
export async function statusErrorOf(promise: Promise<unknown>): Promise<StatusError> {
  const err = await rejectionOf(promise);
  if (!isStatusError(err)) throw new Error(`expected a StatusError, got ${String(err)}`);
  return err;
}
