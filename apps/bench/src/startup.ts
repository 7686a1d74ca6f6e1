// The pure part of the startup benchmark (issue 20): what a probe reports, medians per
// subject, and the markdown table. No I/O here, so it is unit tested; startup-run.ts starts
// the probes (startup-probe.mjs), each in a fresh `node` process.

import { median } from './stats.ts';

/** What one probe process measures. */
export type StartupSubject =
  /** Nothing imported: the RSS of bare Node running the probe. */
  | { kind: 'bare' }
  /** `await import(specifier)`. */
  | { kind: 'import'; specifier: string }
  /**
   * Import a client, then load a kubeconfig with it (kubets `loadConfig`, client-node
   * `KubeConfig.loadFromFile`). `format` is how the file is written: JSON is YAML too, and
   * kubets reads it with `JSON.parse`, without loading the YAML parser.
   */
  | {
      kind: 'kubeconfig';
      client: 'kubets' | 'client-node';
      user: string;
      format: 'JSON' | 'YAML';
      kubeconfig: string;
    }
  /** An idle controller: a Pod informer whose handler feeds a work queue drained by one worker, synced, then idle. */
  | { kind: 'controller'; client: 'kubets' | 'client-node'; kubeconfig: string; namespace: string }
  /**
   * An idle controller configured as in a pod: the probe's environment has
   * `KUBERNETES_SERVICE_HOST`/`_PORT` and the service-account directory `token` and `ca.crt`.
   * `floor` is what any Node controller pays: `node:https` list and watch, `JSON.parse`, a
   * `Map` for the cache and an array for the queue. `floor-importing-kubets` is the floor after
   * importing `@kubets/rest`, `@kubets/cache` and `@kubets/workqueue` without using them: what
   * the presence of their code costs, apart from running it.
   */
  | {
      kind: 'in-cluster-controller';
      client: 'kubets' | 'floor' | 'floor-importing-kubets';
      serviceAccount: ServiceAccountFiles;
      namespace: string;
    };

/** A pod's view of the API server, as the startup benchmark fakes it on loopback. */
export interface ServiceAccountFiles {
  /** The directory holding `token`, `ca.crt` and `namespace`. */
  dir: string;
  /** `KUBERNETES_SERVICE_HOST`. */
  host: string;
  /** `KUBERNETES_SERVICE_PORT`. */
  port: string;
}

/** One probe's figures. */
export interface StartupSample {
  /** The row the sample belongs to (see {@link subjectLabel}). */
  label: string;
  /** Milliseconds from before the import to done (imported, kubeconfig loaded, or controller synced). */
  ms: number;
  /** RSS of the probe before the import (bare Node running the probe script). */
  rssBeforeBytes: number;
  /** RSS when done (for a controller: after sync, one idle second and a GC). */
  rssAfterBytes: number;
  /**
   * The anonymous part of that RSS (Linux `RssAnon`): what the process holds of its own, apart
   * from the pages of the `node` binary and other files it maps, which every Node process on
   * the machine shares. `null` where the system does not say.
   */
  rssAnonAfterBytes: number | null;
}

/** The `RssAnon` line of a Linux `/proc/<pid>/status` text, in bytes; `null` when absent. */
export function parseRssAnon(status: string): number | null {
  const match = /^RssAnon:\s+(\d+) kB$/m.exec(status);
  return match ? Number(match[1]) * 1024 : null;
}

/** The row label of a subject. */
export function subjectLabel(subject: StartupSubject): string {
  switch (subject.kind) {
    case 'bare':
      return 'bare Node';
    case 'import':
      return `import('${subject.specifier}')`;
    case 'kubeconfig':
      return subject.client === 'kubets'
        ? `import('@kubets/rest') + loadConfig, ${subject.user} kubeconfig (${subject.format})`
        : `import('@kubernetes/client-node') + KubeConfig.loadFromFile, ${subject.user} kubeconfig (${subject.format})`;
    case 'controller':
      return subject.client === 'kubets'
        ? 'idle controller: kubets informer + rate-limiting queue'
        : 'idle controller: client-node makeInformer + array queue';
    case 'in-cluster-controller':
      switch (subject.client) {
        case 'kubets':
          return 'idle controller, in-cluster config: kubets informer + rate-limiting queue';
        case 'floor':
          return 'idle controller, in-cluster config: floor (node:https list + watch, JSON.parse, Map, array queue)';
        case 'floor-importing-kubets':
          return 'idle controller, in-cluster config: floor, with @kubets/rest, cache and workqueue imported and unused';
      }
  }
}

/** The median figures of one row. */
export interface StartupSummary {
  label: string;
  runs: number;
  ms: number;
  /** Median of rssAfter − rssBefore within each process: what the import (or controller) added. */
  addedMB: number;
  /** Median RSS when done. */
  rssMB: number;
  /** Median anonymous RSS when done, over the samples that have it; `null` when none has. */
  anonMB: number | null;
}

const MB = 2 ** 20;

/** Medians per label, in the order the labels first appear. */
export function summarizeStartup(samples: readonly StartupSample[]): StartupSummary[] {
  const byLabel = new Map<string, StartupSample[]>();
  for (const sample of samples) {
    const group = byLabel.get(sample.label) ?? [];
    group.push(sample);
    byLabel.set(sample.label, group);
  }
  return [...byLabel].map(([label, group]) => {
    const anon = group.flatMap((s) => (s.rssAnonAfterBytes === null ? [] : [s.rssAnonAfterBytes]));
    return {
      label,
      runs: group.length,
      ms: median(group.map((s) => s.ms)),
      addedMB: median(group.map((s) => (s.rssAfterBytes - s.rssBeforeBytes) / MB)),
      rssMB: median(group.map((s) => s.rssAfterBytes / MB)),
      anonMB: anon.length > 0 ? median(anon.map((bytes) => bytes / MB)) : null,
    };
  });
}

/** The markdown table of {@link summarizeStartup}'s rows (MB = MiB). */
export function startupTable(rows: readonly StartupSummary[]): string {
  const lines = [
    '| startup (fresh process each run) | runs | time (median) | RSS added (median) | RSS (median) | of it anonymous (median) |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const row of rows) {
    const time = row.label === 'bare Node' ? '—' : `${row.ms.toFixed(1)} ms`;
    const added = row.label === 'bare Node' ? '—' : `+${row.addedMB.toFixed(1)} MB`;
    const anon = row.anonMB === null ? '—' : `${row.anonMB.toFixed(1)} MB`;
    lines.push(
      `| ${row.label} | ${row.runs} | ${time} | ${added} | ${row.rssMB.toFixed(1)} MB | ${anon} |`,
    );
  }
  return lines.join('\n');
}
