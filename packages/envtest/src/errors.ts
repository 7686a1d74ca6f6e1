const envtestErrorBrand = Symbol.for('kubets.EnvtestError');

/**
 * Why envtest could not do what was asked:
 *
 * - `BinaryNotFound`: `etcd` or `kube-apiserver` is in none of the places looked at.
 * - `ProcessExited`: a process exited (or could not be spawned) while envtest waited for it.
 * - `StartTimeout`: the processes did not become ready within `startTimeoutMs`.
 */
export type EnvtestErrorCode = 'BinaryNotFound' | 'ProcessExited' | 'StartTimeout';

/** Options for {@link EnvtestError}. */
export interface EnvtestErrorOptions {
  /** The binary the error is about (`etcd` or `kube-apiserver`), when there is one. */
  binary?: string;
  /** The last lines of that process's log, when it was started. */
  logTail?: string;
  /** The underlying error. */
  cause?: unknown;
}

/**
 * An error from {@link startEnvtest}. The message is meant to be read by a person: it says which
 * binary was missing and where it was looked for, or which process failed together with the
 * end of its log.
 */
export class EnvtestError extends Error {
  /** What kind of failure this is. */
  readonly code: EnvtestErrorCode;
  /** The binary the error is about, when there is one. */
  readonly binary: string | undefined;
  /** The last lines of the failing process's log, when it was started. */
  readonly logTail: string | undefined;
  /**
   * Brand that lets {@link isEnvtestError} recognise errors from another copy of this package.
   * @internal
   */
  readonly [envtestErrorBrand] = true;

  constructor(code: EnvtestErrorCode, message: string, options: EnvtestErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EnvtestError';
    this.code = code;
    this.binary = options.binary;
    this.logTail = options.logTail;
  }
}

/** Whether `value` is an {@link EnvtestError}, even one from another copy of this package. */
export function isEnvtestError(value: unknown): value is EnvtestError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { [envtestErrorBrand]?: unknown })[envtestErrorBrand] === true
  );
}
