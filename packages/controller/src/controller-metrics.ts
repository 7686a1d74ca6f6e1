/** The `result` label of `controller_runtime_reconcile_total`: how a reconcile ended. */
export type ReconcileResultLabel = 'success' | 'error' | 'requeue' | 'requeue_after';

/**
 * Where a {@link Controller} records its reconciles: controller-runtime's controller
 * metrics, without tying the controller to a metrics library. A `Manager` with a
 * `metricsBindAddress` passes one backed by prom-client.
 */
export interface ControllerMetricsRecorder {
  /** The controller starts with `workers` workers: sets the gauges and zeroes the counters. */
  started(controller: string, workers: number): void;
  /** A reconcile began (`delta` 1) or ended (`delta` -1). */
  activeWorkers(controller: string, delta: 1 | -1): void;
  /**
   * A reconcile ended after `seconds` with `result`; `terminal` when it threw a
   * `TerminalError`.
   */
  reconciled(
    controller: string,
    result: ReconcileResultLabel,
    seconds: number,
    terminal: boolean,
  ): void;
  /**
   * A reconcile's `reconcileTimeoutMs` ran out (`controller_runtime_reconcile_timeouts_total`).
   * Optional, so recorders written before it keep working.
   */
  reconcileTimedOut?(controller: string): void;
}
