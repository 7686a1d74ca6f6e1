import type { RequestResult } from '@kubets/rest';
import type * as PromClient from 'prom-client';
import type { ControllerMetricsRecorder } from './controller-metrics.js';

/** Histogram buckets of controller-runtime's `controller_runtime_reconcile_time_seconds`. */
const reconcileTimeBuckets = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
  1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

const results = ['success', 'error', 'requeue', 'requeue_after'] as const;

/**
 * controller-runtime's controller metrics, names and help as it registers them, in
 * `registry`. `prom` is the prom-client module, passed in because it is an optional peer
 * dependency loaded only when metrics are asked for.
 */
export function newPrometheusControllerMetrics(
  prom: typeof PromClient,
  registry: PromClient.Registry,
): ControllerMetricsRecorder {
  const registers = [registry];
  const labelNames = ['controller'] as const;
  const total = new prom.Counter({
    name: 'controller_runtime_reconcile_total',
    help: 'Total number of reconciliations per controller',
    labelNames: ['controller', 'result'] as const,
    registers,
  });
  const time = new prom.Histogram({
    name: 'controller_runtime_reconcile_time_seconds',
    help: 'Length of time per reconciliation per controller',
    labelNames,
    buckets: reconcileTimeBuckets,
    registers,
  });
  // The per-controller series differ only in name and help.
  const named = (name: string, help: string) => ({
    name: `controller_runtime_${name}`,
    help,
    labelNames,
    registers,
  });
  const errors = new prom.Counter(
    named('reconcile_errors_total', 'Total number of reconciliation errors per controller'),
  );
  const terminal = new prom.Counter(
    named(
      'terminal_reconcile_errors_total',
      'Total number of terminal reconciliation errors per controller',
    ),
  );
  const timeouts = new prom.Counter(
    named('reconcile_timeouts_total', 'Total number of reconciliation timeouts per controller'),
  );
  const maxConcurrent = new prom.Gauge(
    named('max_concurrent_reconciles', 'Maximum number of concurrent reconciles per controller'),
  );
  const active = new prom.Gauge(
    named('active_workers', 'Number of currently used workers per controller'),
  );
  return {
    started(controller, workers) {
      // As controller-runtime: every series exists from the start, so rates and alerts
      // work before the first error.
      for (const result of results) total.inc({ controller, result }, 0);
      errors.inc({ controller }, 0);
      terminal.inc({ controller }, 0);
      timeouts.inc({ controller }, 0);
      active.set({ controller }, 0);
      maxConcurrent.set({ controller }, workers);
    },
    reconcileTimedOut(controller) {
      timeouts.inc({ controller });
    },
    activeWorkers(controller, delta) {
      active.inc({ controller }, delta);
    },
    reconciled(controller, result, seconds, isTerminal) {
      total.inc({ controller, result });
      if (result === 'error') errors.inc({ controller });
      if (isTerminal) terminal.inc({ controller });
      time.observe({ controller }, seconds);
    },
  };
}

/** What a manager records besides its controllers: leadership and its clients' requests. */
export interface ManagerMetricsRecorder {
  /** Whether this replica leads the Lease `name` (`leader_election_master_status`). */
  leader(name: string, leading: boolean): void;
  /** One request of the manager's clients ended (`rest_client_requests_total`). */
  requestResult(result: RequestResult): void;
}

/**
 * The manager-wide metrics controller-runtime registers, names and help as it does:
 * `leader_election_master_status`, `rest_client_requests_total`, and the process metrics
 * (prom-client's default collectors: `process_*` and `nodejs_*`, where Go has `process_*`
 * and `go_*`).
 */
export function newPrometheusManagerMetrics(
  prom: typeof PromClient,
  registry: PromClient.Registry,
): ManagerMetricsRecorder {
  const registers = [registry];
  const leaderGauge = new prom.Gauge({
    name: 'leader_election_master_status',
    help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
    labelNames: ['name'] as const,
    registers,
  });
  const requests = new prom.Counter({
    name: 'rest_client_requests_total',
    help: 'Number of HTTP requests, partitioned by status code, method, and host.',
    labelNames: ['code', 'method', 'host'] as const,
    registers,
  });
  prom.collectDefaultMetrics({ register: registry });
  return {
    leader: (name, leading) => leaderGauge.set({ name }, leading ? 1 : 0),
    requestResult: ({ code, method, host }) => requests.inc({ code, method, host }),
  };
}
