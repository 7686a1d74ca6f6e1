// The reconcile-throughput figures (issue 35): how fast a manager takes N existing objects
// through a no-op reconciler, with 1, 2 and 4 workers. The pure part: samples, medians and
// the markdown table; reconcile-run.ts measures.

import { median } from './stats.ts';

/** One run of reconcile-run.ts. */
export interface ReconcileSample {
  workers: number;
  pods: number;
  /** Distinct objects reconciled when the run ended (every one, unless the manager failed). */
  reconciled: number;
  /** From `manager.start` to the last object's first reconcile: list, sync and the queue. */
  elapsedMs: number;
  /** CPU (user + system) of the whole process over the same window. */
  cpuSeconds: number;
  peakRssBytes: number;
}

/** The worker counts measured, as the issue asks. */
export const reconcileWorkers = [1, 2, 4] as const;

/** The markdown table of the medians per worker count. */
export function reconcileTable(samples: readonly ReconcileSample[]): string {
  const rows = [...new Set(samples.map((sample) => sample.workers))]
    .sort((a, b) => a - b)
    .map((workers) => {
      const runs = samples.filter((sample) => sample.workers === workers);
      const incomplete = runs.filter((run) => run.reconciled < run.pods).length;
      const elapsed = median(runs.map((run) => run.elapsedMs)) / 1000;
      const pods = runs[0]!.pods;
      const cpuPerReconcile = median(runs.map((run) => (run.cpuSeconds / run.pods) * 1e6));
      const peakRss = median(runs.map((run) => run.peakRssBytes)) / 1e6;
      return `| ${workers} | ${elapsed.toFixed(2)} | ${Math.round(pods / elapsed).toLocaleString('en-US')} | ${cpuPerReconcile.toFixed(1)} | ${peakRss.toFixed(0)} | ${runs.length}${incomplete > 0 ? ` (${incomplete} incomplete)` : ''} |`;
    });
  return [
    '| workers | start to all reconciled (s) | reconciles per second | CPU per reconcile (µs) | peak RSS (MB) | runs |',
    '| ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
}
