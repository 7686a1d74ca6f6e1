/** How often {@link waitForCacheSync} checks, as client-go's `syncedPollPeriod`. */
export const syncedPollPeriodMs = 100;

/**
 * Waits until every function returns true (client-go `cache.WaitForCacheSync`), checking
 * at once and then every 100 ms. Resolves `true` when all have synced, `false` when
 * `signal` aborts first. Keeps no timer once settled.
 *
 * ```ts
 * if (!(await waitForCacheSync(signal, () => informer.hasSynced()))) {
 *   throw new Error('timed out waiting for caches to sync');
 * }
 * ```
 */
export function waitForCacheSync(
  signal: AbortSignal,
  ...cacheSyncs: (() => boolean)[]
): Promise<boolean> {
  const synced = (): boolean => cacheSyncs.every((fn) => fn());
  return new Promise<boolean>((resolve) => {
    if (signal.aborted) {
      resolve(false);
      return;
    }
    if (synced()) {
      resolve(true);
      return;
    }
    const finish = (result: boolean): void => {
      clearInterval(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const onAbort = (): void => finish(false);
    const timer = setInterval(() => {
      if (synced()) finish(true);
    }, syncedPollPeriodMs);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
