let stopController: AbortController | undefined;

/**
 * An `AbortSignal` that aborts on the first SIGINT or SIGTERM — the `stopCh` of the Go
 * programs. A second signal exits at once with status 1, for when a clean shutdown hangs.
 * Every call returns the same signal.
 */
export function stopSignal(): AbortSignal {
  if (!stopController) {
    const controller = new AbortController();
    const onSignal = (signal: NodeJS.Signals): void => {
      if (controller.signal.aborted) process.exit(1);
      controller.abort(new Error(`received ${signal}`));
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    stopController = controller;
  }
  return stopController.signal;
}

/** Resolves once `signal` aborts (at once if it already has): `<-stopCh`. */
export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

/** Resolves after `ms` milliseconds, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
