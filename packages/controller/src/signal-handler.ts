/** Something that emits process signals, as `process` does. */
export interface SignalSource {
  /** Calls `listener` each time `event` arrives. */
  on(event: 'SIGTERM' | 'SIGINT', listener: () => void): unknown;
}

/** What {@link signalHandler} listens on and how it exits; the running process by default. */
export interface SignalHandlerOptions {
  /** Where the signals arrive; default `process`. */
  process?: SignalSource;
  /** Ends the process on the second signal; default `process.exit`. */
  exit?: (code: number) => void;
}

/**
 * An `AbortSignal` aborted on the first SIGTERM or SIGINT, for `manager.start(signal)`
 * (controller-runtime's `SetupSignalHandler`): the manager then drains. A second signal
 * ends the process at once with exit code 1, for an operator who does not want to wait.
 */
export function signalHandler(options: SignalHandlerOptions = {}): AbortSignal {
  const target = options.process ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const controller = new AbortController();
  const onSignal = (): void => {
    if (controller.signal.aborted) exit(1);
    else controller.abort(new Error('received a termination signal'));
  };
  target.on('SIGTERM', onSignal);
  target.on('SIGINT', onSignal);
  return controller.signal;
}
