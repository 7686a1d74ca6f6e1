/**
 * Starts `run` with an abort signal of its own and adds to `cleanups` a step that aborts it
 * and waits for it to end, so a background loop a test starts (an informer, a leader
 * elector) stops with the test. Returns the promise of `run`.
 */
export function runUntilCleanup<R>(
  cleanups: (() => unknown)[],
  run: (signal: AbortSignal) => Promise<R>,
): Promise<R> {
  const stop = new AbortController();
  const running = run(stop.signal);
  cleanups.push(async () => {
    stop.abort();
    await running;
  });
  return running;
}
