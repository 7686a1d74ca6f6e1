/**
 * Something a manager runs once its caches have synced: a controller, or anything else
 * that works until it is told to stop (controller-runtime's `manager.Runnable`).
 */
export interface Runnable {
  /** Names it in logs and errors; unique per manager. */
  readonly name: string;
  /**
   * Works until `signal` aborts, then resolves once stopped. A rejection stops the manager
   * (and every other runnable) and is what `start` rejects with.
   */
  run(signal: AbortSignal): Promise<void>;
}
