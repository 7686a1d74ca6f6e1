// The pure part of the harness: what a runner reports, medians over rounds, ratios against
// client-node, and the markdown tables. No I/O here, so it is unit tested.

/** The informers under test. */
export const variants = ['kubets', 'client-node', 'kubets-transform', 'kubets-metadata'] as const;
export type Variant = (typeof variants)[number];

/** What the runner of each variant does, for the tables. */
export const variantLabels: Readonly<Record<Variant, string>> = {
  kubets: 'kubets (full Pods)',
  'client-node': '@kubernetes/client-node 2.0.1',
  'kubets-transform': 'kubets, transform drops managedFields',
  'kubets-metadata': 'kubets, metadata-only',
};

/** One runner's measurements (one JSON line on its stdout). Bytes, milliseconds, seconds. */
export interface RunnerResult {
  variant: Variant;
  round: number;
  pods: number;
  /** Objects in the cache after the initial sync. */
  cached: number;
  /** Start of the informer → it reports synced (every listed object cached and handed on). */
  syncMs: number;
  /** Start → the worker has processed the N keys of the initial list. */
  drainMs: number;
  /** heapUsed after GC before the informer started (clients created, modules loaded). */
  baselineHeapBytes: number;
  /** heapUsed after sync, drain and GC, minus the baseline: the cache's cost. */
  storeHeapBytes: number;
  /** storeHeapBytes / pods. */
  heapPerObjectBytes: number;
  /** RSS after sync, drain and GC. */
  rssAfterSyncBytes: number;
  /** Update events received for the patch round (should equal pods). */
  updates: number;
  /** User+system CPU of the runner from the first update event to the last one processed. */
  updateCpuSeconds: number;
  /** Wall time of the same window (bounded by the patcher's pace). */
  updateWallMs: number;
  /** Start of the forced relist → the relisted objects are all in the cache. */
  relistMs: number;
  /** Highest heapUsed sampled during the relist, minus the baseline. */
  relistPeakHeapBytes: number;
  /** relistPeakHeapBytes / storeHeapBytes measured just before the relist. */
  relistPeakRatio: number;
  /** Highest RSS sampled during the relist. */
  relistPeakRssBytes: number;
  /** List requests the relist made (1 expected). */
  relistLists: number;
  /** Keys the worker did not find in the cache (0 expected). */
  workMisses: number;
}

/** The median of `values` (mean of the two middle ones for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  const xs = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return Number.NaN;
  const mid = Math.floor(xs.length / 2);
  return xs.length % 2 === 1 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
}

/** `value / reference`; NaN when either is missing or the reference is 0. */
export function ratio(value: number, reference: number): number {
  if (!Number.isFinite(value) || !Number.isFinite(reference) || reference === 0) return Number.NaN;
  return value / reference;
}

/** The figures of one variant, medians over its rounds. */
export interface Summary {
  variant: Variant;
  rounds: number;
  pods: number;
  syncS: number;
  drainS: number;
  heapPerObjectKB: number;
  rssAfterSyncMB: number;
  /** CPU seconds for the update round, scaled to 10,000 update events. */
  cpuPer10kUpdatesS: number;
  updateWallS: number;
  relistS: number;
  relistPeakRatio: number;
  relistPeakRssMB: number;
}

const KB = 1000;
const MB = 1000 * 1000;

/** Medians over rounds, per variant, in the order of {@link variants}; variants not run are left out. */
export function summarize(results: readonly RunnerResult[]): Summary[] {
  const out: Summary[] = [];
  for (const variant of variants) {
    const rs = results.filter((r) => r.variant === variant);
    if (rs.length === 0) continue;
    const m = (f: (r: RunnerResult) => number): number => median(rs.map(f));
    out.push({
      variant,
      rounds: rs.length,
      pods: m((r) => r.pods),
      syncS: m((r) => r.syncMs / 1000),
      drainS: m((r) => r.drainMs / 1000),
      heapPerObjectKB: m((r) => r.heapPerObjectBytes / KB),
      rssAfterSyncMB: m((r) => r.rssAfterSyncBytes / MB),
      cpuPer10kUpdatesS: m((r) =>
        r.updates > 0 ? (r.updateCpuSeconds * 10_000) / r.updates : Number.NaN,
      ),
      updateWallS: m((r) => r.updateWallMs / 1000),
      relistS: m((r) => r.relistMs / 1000),
      relistPeakRatio: m((r) => r.relistPeakRatio),
      relistPeakRssMB: m((r) => r.relistPeakRssBytes / MB),
    });
  }
  return out;
}

/** A number with `digits` decimals, or `—` when it is missing. */
export function fmt(value: number, digits = 2): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '—';
}

function row(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

const columns: readonly { title: string; get: (s: Summary) => number; digits: number }[] = [
  { title: 'initial sync (s)', get: (s) => s.syncS, digits: 2 },
  { title: 'sync + N keys worked (s)', get: (s) => s.drainS, digits: 2 },
  { title: 'heap / object (KB)', get: (s) => s.heapPerObjectKB, digits: 2 },
  { title: 'RSS after sync (MB)', get: (s) => s.rssAfterSyncMB, digits: 0 },
  { title: 'CPU per 10k updates (s)', get: (s) => s.cpuPer10kUpdatesS, digits: 2 },
  { title: 'relist peak heap / store', get: (s) => s.relistPeakRatio, digits: 2 },
  { title: 'relist peak RSS (MB)', get: (s) => s.relistPeakRssMB, digits: 0 },
  { title: 'relist (s)', get: (s) => s.relistS, digits: 2 },
];

/**
 * The results as a markdown table: one row per variant (medians), then one row per kubets
 * variant with its ratio to client-node.
 */
export function resultsTable(summaries: readonly Summary[]): string {
  const lines = [
    row(['variant', 'rounds', ...columns.map((c) => c.title)]),
    row(['---', '---:', ...columns.map(() => '---:')]),
  ];
  for (const s of summaries) {
    lines.push(
      row([
        variantLabels[s.variant],
        String(s.rounds),
        ...columns.map((c) => fmt(c.get(s), c.digits)),
      ]),
    );
  }
  const peer = summaries.find((s) => s.variant === 'client-node');
  if (peer !== undefined) {
    for (const s of summaries) {
      if (s.variant === 'client-node') continue;
      lines.push(
        row([
          `*${s.variant} / client-node*`,
          '',
          ...columns.map((c) => `*${fmt(ratio(c.get(s), c.get(peer)))}×*`),
        ]),
      );
    }
  }
  return lines.join('\n');
}

/** One BRIEF §6 target, checked against the medians. */
export interface TargetCheck {
  target: string;
  measured: string;
  /** undefined when a figure it needs is missing. */
  met: boolean | undefined;
}

function check(value: number, limit: number): boolean | undefined {
  return Number.isFinite(value) ? value <= limit : undefined;
}

/** The BRIEF §6 targets at 10,000 Pods, against the medians. */
export function checkTargets(summaries: readonly Summary[]): TargetCheck[] {
  const get = (v: Variant): Summary | undefined => summaries.find((s) => s.variant === v);
  const k = get('kubets');
  const peer = get('client-node');
  const t = get('kubets-transform');
  const syncRatio = ratio(k?.syncS ?? Number.NaN, peer?.syncS ?? Number.NaN);
  return [
    {
      target: 'initial sync ≤ 0.7 × client-node',
      measured: `${fmt(k?.syncS ?? Number.NaN)} s vs ${fmt(peer?.syncS ?? Number.NaN)} s = ${fmt(syncRatio)}×`,
      met: check(syncRatio, 0.7),
    },
    {
      target: 'heap ≤ 4.5 KB / object',
      measured: `${fmt(k?.heapPerObjectKB ?? Number.NaN)} KB`,
      met: check(k?.heapPerObjectKB ?? Number.NaN, 4.5),
    },
    {
      target: 'heap ≤ 2.5 KB / object with managedFields dropped',
      measured: `${fmt(t?.heapPerObjectKB ?? Number.NaN)} KB`,
      met: check(t?.heapPerObjectKB ?? Number.NaN, 2.5),
    },
    {
      target: '≤ 0.5 CPU-s per 10,000 update events (full pipeline)',
      measured: `${fmt(k?.cpuPer10kUpdatesS ?? Number.NaN)} s`,
      met: check(k?.cpuPer10kUpdatesS ?? Number.NaN, 0.5),
    },
    {
      target: 'relist peak ≤ 1.5 × store',
      measured: `${fmt(k?.relistPeakRatio ?? Number.NaN)}×`,
      met: check(k?.relistPeakRatio ?? Number.NaN, 1.5),
    },
  ];
}

/** The target checks as a markdown table. */
export function targetsTable(checks: readonly TargetCheck[]): string {
  const lines = [row(['target (BRIEF §6)', 'kubets measured', 'met?']), row(['---', '---', '---'])];
  for (const c of checks) {
    lines.push(row([c.target, c.measured, c.met === undefined ? 'n/a' : c.met ? 'yes' : '**no**']));
  }
  return lines.join('\n');
}

/** The order of the variants in round `round` (0-based): alternated so neither always goes first. */
export function roundOrder(round: number, selected: readonly Variant[] = variants): Variant[] {
  const order = [...selected];
  return round % 2 === 0 ? order : order.reverse();
}
