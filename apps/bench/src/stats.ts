// The pure part of the harness: what a runner reports, medians over rounds, ratios against
// client-node, and the markdown tables. No I/O here, so it is unit tested.

/** The informers under test, in the order of the tables. */
export const variants = [
  'floor',
  'kubets',
  'kubets-handler',
  'client-node',
  'client-go',
  'kubets-transform',
  'kubets-metadata',
  'kubets-h2',
  'kubets-h2-handler',
] as const;
export type Variant = (typeof variants)[number];

/**
 * The variants a run without `--variants` takes: all but the HTTP/2 ones, which run when
 * named (`Config.http2` is opt-in in this release).
 */
export const defaultVariants: readonly Variant[] = variants.filter(
  (variant) => variant !== 'kubets-h2' && variant !== 'kubets-h2-handler',
);

/** What the runner of each variant does, for the tables. */
export const variantLabels: Readonly<Record<Variant, string>> = {
  floor: 'floor: node:https + JSON.parse',
  kubets: 'kubets, informer + work queue (full Pods)',
  'kubets-handler': 'kubets, informer + counting handler',
  'client-node': '@kubernetes/client-node 2.0.1',
  'client-go': 'client-go 1.20 (Go), informer + work queue',
  'kubets-transform': 'kubets, transform drops managedFields',
  'kubets-metadata': 'kubets, metadata-only',
  'kubets-h2': 'kubets over HTTP/2, informer + work queue',
  'kubets-h2-handler': 'kubets over HTTP/2, informer + counting handler',
};

/** The variants whose CPU per update is held against the floor's (issue 20). */
export const floorRatioVariants: readonly Variant[] = [
  'kubets',
  'kubets-handler',
  'kubets-h2',
  'kubets-h2-handler',
];

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
  /** The process's peak RSS up to that point (getrusage maxrss): the initial sync's peak. */
  syncPeakRssBytes: number;
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
  /**
   * Voluntary context switches of the runner's threads in the same window (getrusage
   * `ru_nvcsw`): how often a thread went to sleep waiting, so had to be woken again. About
   * one per update means every event woke the process on its own, a price per event the
   * client cannot lower (see wake-cost.ts).
   */
  updateSleeps: number;
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

type NumericField = {
  [K in keyof RunnerResult]: RunnerResult[K] extends number ? K : never;
}[keyof RunnerResult];

const numericFields: readonly NumericField[] = [
  'round',
  'pods',
  'cached',
  'syncMs',
  'drainMs',
  'syncPeakRssBytes',
  'baselineHeapBytes',
  'storeHeapBytes',
  'heapPerObjectBytes',
  'rssAfterSyncBytes',
  'updates',
  'updateCpuSeconds',
  'updateWallMs',
  'updateSleeps',
  'relistMs',
  'relistPeakHeapBytes',
  'relistPeakRatio',
  'relistPeakRssBytes',
  'relistLists',
  'workMisses',
];

/**
 * A runner's result as received: a figure it could not measure (JSON has no NaN, so a runner
 * leaves it out) becomes NaN, shown as `—`; an unknown variant is an error.
 */
export function completeResult(received: unknown): RunnerResult {
  const raw = received as Record<string, unknown>;
  if (!(variants as readonly unknown[]).includes(raw.variant)) {
    throw new Error(`a runner result names an unknown variant: ${JSON.stringify(raw.variant)}`);
  }
  const result = { ...raw } as unknown as RunnerResult;
  for (const field of numericFields) {
    if (typeof raw[field] !== 'number') result[field] = Number.NaN;
  }
  return result;
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
  syncPeakRssMB: number;
  heapPerObjectKB: number;
  rssAfterSyncMB: number;
  /** CPU seconds for the update round, scaled to 10,000 update events. */
  cpuPer10kUpdatesS: number;
  /** Voluntary context switches per update event (see {@link RunnerResult.updateSleeps}). */
  sleepsPerUpdate: number;
  updateWallS: number;
  relistS: number;
  relistPeakRatio: number;
  relistPeakRssMB: number;
}

const KB = 1000;
const MB = 1000 * 1000;

/** CPU seconds of a runner's update window scaled to 10,000 update events; NaN when it saw none. */
export function cpuPer10kUpdates(r: RunnerResult): number {
  return r.updates > 0 ? (r.updateCpuSeconds * 10_000) / r.updates : Number.NaN;
}

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
      syncPeakRssMB: m((r) => r.syncPeakRssBytes / MB),
      heapPerObjectKB: m((r) => r.heapPerObjectBytes / KB),
      rssAfterSyncMB: m((r) => r.rssAfterSyncBytes / MB),
      cpuPer10kUpdatesS: m(cpuPer10kUpdates),
      sleepsPerUpdate: m((r) => (r.updates > 0 ? r.updateSleeps / r.updates : Number.NaN)),
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
  { title: 'peak RSS during sync (MB)', get: (s) => s.syncPeakRssMB, digits: 0 },
  { title: 'heap / object (KB)', get: (s) => s.heapPerObjectKB, digits: 2 },
  { title: 'RSS after sync (MB)', get: (s) => s.rssAfterSyncMB, digits: 0 },
  { title: 'CPU per 10k updates (s)', get: (s) => s.cpuPer10kUpdatesS, digits: 2 },
  { title: 'sleeps per update', get: (s) => s.sleepsPerUpdate, digits: 2 },
  { title: 'relist peak heap / store', get: (s) => s.relistPeakRatio, digits: 2 },
  { title: 'relist peak RSS (MB)', get: (s) => s.relistPeakRssMB, digits: 0 },
  { title: 'relist (s)', get: (s) => s.relistS, digits: 2 },
];

/**
 * The results as a markdown table: one row per variant (medians), then the ratio of every
 * other variant to client-node, and of kubets and kubets-handler to the floor.
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
  const ratioRows = (reference: Variant, over: readonly Summary[]): void => {
    const ref = summaries.find((s) => s.variant === reference);
    if (ref === undefined) return;
    for (const s of over) {
      if (s.variant === reference) continue;
      lines.push(
        row([
          `*${s.variant} / ${reference}*`,
          '',
          ...columns.map((c) => `*${fmt(ratio(c.get(s), c.get(ref)))}×*`),
        ]),
      );
    }
  };
  ratioRows('client-node', summaries);
  ratioRows(
    'floor',
    summaries.filter((s) => floorRatioVariants.includes(s.variant)),
  );
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

/** `variant`'s figure against `limit` × the same figure of `reference`. */
function ratioCheck(
  target: string,
  value: number,
  reference: number,
  limit: number,
  unit: string,
): TargetCheck {
  const r = ratio(value, reference);
  return {
    target,
    measured: `${fmt(value)} ${unit} vs ${fmt(reference)} ${unit} = ${fmt(r)}×`,
    met: check(r, limit),
  };
}

/** Pod counts from which issue 20's 100,000-Pod targets apply. */
export const largeRunPods = 100_000;

/**
 * Issue 20's "must show" targets against the medians: CPU per update of the informer with a
 * handler and of the full pipeline against the floor and client-node, RSS after sync; and,
 * for runs of {@link largeRunPods} or more, sync time and peak RSS during sync.
 */
export function checkIssue20Targets(summaries: readonly Summary[], pods: number): TargetCheck[] {
  const figure = (v: Variant, f: (s: Summary) => number): number => {
    const s = summaries.find((x) => x.variant === v);
    return s === undefined ? Number.NaN : f(s);
  };
  const cpu = (s: Summary): number => s.cpuPer10kUpdatesS;
  const checks: TargetCheck[] = [];
  for (const [variant, what] of [
    ['kubets-handler', 'informer + handler'],
    ['kubets', 'full pipeline with a work queue'],
  ] as const) {
    checks.push(
      ratioCheck(
        `CPU per 10k updates, ${what} ≤ 1.2 × floor`,
        figure(variant, cpu),
        figure('floor', cpu),
        1.2,
        's',
      ),
      ratioCheck(
        `CPU per 10k updates, ${what} ≤ 0.75 × client-node`,
        figure(variant, cpu),
        figure('client-node', cpu),
        0.75,
        's',
      ),
    );
  }
  const rss = (s: Summary): number => s.rssAfterSyncMB;
  checks.push(
    ratioCheck(
      'RSS after sync ≤ 0.6 × client-node',
      figure('kubets', rss),
      figure('client-node', rss),
      0.6,
      'MB',
    ),
  );
  if (pods >= largeRunPods) {
    const sync = (s: Summary): number => s.syncS;
    const peak = (s: Summary): number => s.syncPeakRssMB;
    checks.push(
      ratioCheck(
        'initial sync ≤ 0.55 × client-node',
        figure('kubets', sync),
        figure('client-node', sync),
        0.55,
        's',
      ),
      ratioCheck(
        'peak RSS during sync ≤ 0.55 × client-node',
        figure('kubets', peak),
        figure('client-node', peak),
        0.55,
        'MB',
      ),
    );
  }
  return checks;
}

/** The target checks as a markdown table; `source` names where the targets come from. */
export function targetsTable(checks: readonly TargetCheck[], source = 'BRIEF §6'): string {
  const lines = [
    row([`target (${source})`, 'kubets measured', 'met?']),
    row(['---', '---', '---']),
  ];
  for (const c of checks) {
    lines.push(row([c.target, c.measured, c.met === undefined ? 'n/a' : c.met ? 'yes' : '**no**']));
  }
  return lines.join('\n');
}

/**
 * `variant`'s figure divided by `reference`'s figure of the same round, for every round in
 * which both ran, in round order. Both runners of a round ran minutes apart on the same
 * server and machine, so the ratio cancels much of what the load of the machine does to both.
 */
export function pairedRatios(
  results: readonly RunnerResult[],
  variant: Variant,
  reference: Variant,
  figure: (r: RunnerResult) => number = cpuPer10kUpdates,
): number[] {
  const rounds = [...new Set(results.map((r) => r.round))].sort((a, b) => a - b);
  const out: number[] = [];
  for (const round of rounds) {
    const mine = results.find((r) => r.round === round && r.variant === variant);
    const ref = results.find((r) => r.round === round && r.variant === reference);
    if (mine === undefined || ref === undefined) continue;
    out.push(ratio(figure(mine), figure(ref)));
  }
  return out;
}

/** One issue 20 CPU target, as the ratio of medians and as per-round paired ratios. */
export interface PairedCpuRatio {
  variant: Variant;
  reference: Variant;
  /** The target: at most this ratio. */
  limit: number;
  /** variant / reference within each round (rounds where both ran), in round order. */
  perRound: number[];
  /** The median of {@link perRound}. */
  medianOfRatios: number;
  /** median(variant) / median(reference): the figure of the results table. */
  ratioOfMedians: number;
}

/** The pairs issue 20 holds CPU per update to: with a handler and the full pipeline, against the floor and client-node. */
export const pairedCpuTargets: readonly {
  variant: Variant;
  reference: Variant;
  limit: number;
}[] = [
  { variant: 'kubets-handler', reference: 'floor', limit: 1.2 },
  { variant: 'kubets', reference: 'floor', limit: 1.2 },
  { variant: 'kubets-handler', reference: 'client-node', limit: 0.75 },
  { variant: 'kubets', reference: 'client-node', limit: 0.75 },
];

/** The issue 20 CPU ratios of `results`, for the pairs of which both variants ran. */
export function pairedCpuRatios(results: readonly RunnerResult[]): PairedCpuRatio[] {
  const medianCpu = (v: Variant): number =>
    median(results.filter((r) => r.variant === v).map(cpuPer10kUpdates));
  const out: PairedCpuRatio[] = [];
  for (const { variant, reference, limit } of pairedCpuTargets) {
    const perRound = pairedRatios(results, variant, reference);
    if (perRound.length === 0) continue;
    out.push({
      variant,
      reference,
      limit,
      perRound,
      medianOfRatios: median(perRound),
      ratioOfMedians: ratio(medianCpu(variant), medianCpu(reference)),
    });
  }
  return out;
}

/** The paired CPU ratios as a markdown table (empty string when there are none). */
export function pairedRatiosTable(rows: readonly PairedCpuRatio[]): string {
  if (rows.length === 0) return '';
  const met = (value: number, limit: number): string =>
    Number.isFinite(value) ? (value <= limit ? 'yes' : '**no**') : 'n/a';
  const lines = [
    row([
      'CPU per 10k updates (issue 20)',
      'per round (run order)',
      'median of per-round ratios',
      'ratio of medians',
      'met? (per-round / medians)',
    ]),
    row(['---', '---', '---:', '---:', '---']),
  ];
  for (const r of rows) {
    lines.push(
      row([
        `${r.variant} / ${r.reference} ≤ ${r.limit}`,
        r.perRound.map((x) => `${fmt(x)}×`).join(', '),
        `${fmt(r.medianOfRatios)}×`,
        `${fmt(r.ratioOfMedians)}×`,
        `${met(r.medianOfRatios, r.limit)} / ${met(r.ratioOfMedians, r.limit)}`,
      ]),
    );
  }
  return lines.join('\n');
}

/** The order of the variants in round `round` (0-based): alternated so neither always goes first. */
export function roundOrder(round: number, selected: readonly Variant[] = variants): Variant[] {
  const order = [...selected];
  return round % 2 === 0 ? order : order.reverse();
}
