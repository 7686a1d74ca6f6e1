import { describe, expect, it } from 'vitest';
import {
  checkIssue20Targets,
  checkTargets,
  completeResult,
  cpuPer10kUpdates,
  fmt,
  median,
  pairedCpuRatios,
  pairedRatios,
  pairedRatiosTable,
  type RunnerResult,
  ratio,
  resultsTable,
  roundOrder,
  summarize,
  targetsTable,
  type Variant,
  variants,
} from './stats.ts';

function result(variant: Variant, round: number, over: Partial<RunnerResult> = {}): RunnerResult {
  return {
    variant,
    round,
    pods: 10_000,
    cached: 10_000,
    syncMs: 1000,
    drainMs: 1100,
    syncPeakRssBytes: 240e6,
    baselineHeapBytes: 30e6,
    storeHeapBytes: 40e6,
    heapPerObjectBytes: 4000,
    rssAfterSyncBytes: 200e6,
    updates: 10_000,
    updateCpuSeconds: 0.4,
    updateWallMs: 60_000,
    updateSleeps: 12_000,
    relistMs: 800,
    relistPeakHeapBytes: 56e6,
    relistPeakRatio: 1.4,
    relistPeakRssBytes: 260e6,
    relistLists: 1,
    workMisses: 0,
    ...over,
  };
}

describe('median', () => {
  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });

  it('ignores missing values and is NaN when nothing is left', () => {
    expect(median([Number.NaN, 5, Number.POSITIVE_INFINITY, 1])).toBe(3);
    expect(median([])).toBeNaN();
  });
});

describe('ratio and fmt', () => {
  it('divides, and is NaN for a missing or zero reference', () => {
    expect(ratio(0.7, 1.4)).toBe(0.5);
    expect(ratio(1, 0)).toBeNaN();
    expect(ratio(Number.NaN, 1)).toBeNaN();
  });

  it('formats numbers and shows a dash for missing ones', () => {
    expect(fmt(1.2345)).toBe('1.23');
    expect(fmt(2, 0)).toBe('2');
    expect(fmt(Number.NaN)).toBe('—');
  });
});

describe('summarize', () => {
  it('takes medians per variant in a fixed order, scaling CPU to 10,000 updates', () => {
    const s = summarize([
      result('client-node', 0, { syncMs: 1500 }),
      result('kubets', 0, { syncMs: 900, updates: 5000, updateCpuSeconds: 0.1 }),
      result('kubets', 1, { syncMs: 700, updates: 5000, updateCpuSeconds: 0.2 }),
      result('kubets', 2, { syncMs: 800, updates: 5000, updateCpuSeconds: 0.3 }),
    ]);
    expect(s.map((x) => x.variant)).toEqual(['kubets', 'client-node']);
    const k = s[0]!;
    expect(k.rounds).toBe(3);
    expect(k.syncS).toBeCloseTo(0.8);
    expect(k.cpuPer10kUpdatesS).toBeCloseTo(0.4);
    expect(k.heapPerObjectKB).toBeCloseTo(4);
    expect(s[1]!.syncS).toBeCloseTo(1.5);
  });

  it('gives the sleeps per update event, and none for a runner that saw no update', () => {
    const [woken, idle] = summarize([
      result('kubets', 0, { updates: 20_000, updateSleeps: 25_000 }),
      result('client-node', 0, { updates: 0, updateSleeps: 3 }),
    ]);
    expect(woken!.sleepsPerUpdate).toBeCloseTo(1.25);
    expect(idle!.sleepsPerUpdate).toBeNaN();
    const table = resultsTable([woken!, idle!]).split('\n');
    const column = table[0]!.split(' | ').indexOf('sleeps per update');
    expect(table[2]!.split(' | ')[column]).toBe('1.25');
    expect(table[3]!.split(' | ')[column]).toBe('—');
  });
});

describe('tables', () => {
  const summaries = summarize([
    result('kubets', 0, { syncMs: 700 }),
    result('client-node', 0, { syncMs: 1400 }),
    result('kubets-transform', 0, { heapPerObjectBytes: 2600 }),
  ]);

  it('has a row per variant and a ratio row per kubets variant', () => {
    const table = resultsTable(summaries);
    const lines = table.split('\n');
    expect(lines).toHaveLength(2 + 3 + 2);
    expect(lines[0]).toMatch(/^\| variant \| rounds \| initial sync \(s\) \|/);
    expect(lines[2]).toContain('| kubets, informer + work queue (full Pods) | 1 | 0.70 |');
    expect(table).toContain('| *kubets / client-node* |  | *0.50×* |');
    for (const line of lines) expect(line.split('|').length).toBe(lines[0]!.split('|').length);
  });

  it('checks the BRIEF targets, saying which are missed', () => {
    const checks = checkTargets(summaries);
    expect(checks.map((c) => c.met)).toEqual([true, true, false, true, true]);
    const table = targetsTable(checks);
    expect(table).toContain(
      '| initial sync ≤ 0.7 × client-node | 0.70 s vs 1.40 s = 0.50× | yes |',
    );
    expect(table).toContain('| 2.60 KB | **no** |');
  });

  it('reports n/a when a variant did not run', () => {
    const checks = checkTargets(summarize([result('kubets', 0)]));
    expect(checks[0]!.met).toBeUndefined();
    expect(targetsTable(checks)).toContain('| n/a |');
  });
});

describe('the issue 20 variants', () => {
  // CPU per 10k updates: floor 0.5, handler 0.55, pipeline 0.7, client-node 0.8, client-go 1.4.
  const cpu = (variant: Variant, seconds: number, over: Partial<RunnerResult> = {}) =>
    result(variant, 0, { updateCpuSeconds: seconds, ...over });
  const summaries = summarize([
    cpu('client-go', 1.4),
    cpu('kubets', 0.7, { rssAfterSyncBytes: 150e6, syncMs: 500, syncPeakRssBytes: 500e6 }),
    cpu('client-node', 0.8, { rssAfterSyncBytes: 280e6, syncMs: 1000, syncPeakRssBytes: 1000e6 }),
    cpu('floor', 0.5),
    cpu('kubets-handler', 0.55),
  ]);

  it('come in table order, with ratios to client-node for all and to the floor for kubets', () => {
    expect(summaries.map((s) => s.variant)).toEqual([
      'floor',
      'kubets',
      'kubets-handler',
      'client-node',
      'client-go',
    ]);
    const lines = resultsTable(summaries).split('\n');
    const ratioRows = lines.filter((l) => l.startsWith('| *')).map((l) => l.split(' | ')[0]);
    expect(ratioRows).toEqual([
      '| *floor / client-node*',
      '| *kubets / client-node*',
      '| *kubets-handler / client-node*',
      '| *client-go / client-node*',
      '| *kubets / floor*',
      '| *kubets-handler / floor*',
    ]);
    const cpuColumn = lines[0]!.split(' | ').indexOf('CPU per 10k updates (s)');
    const cpuOf = (label: string) =>
      lines.find((l) => l.startsWith(`| *${label}*`))!.split(' | ')[cpuColumn];
    expect(cpuOf('kubets / floor')).toBe('*1.40×*');
    expect(cpuOf('kubets-handler / floor')).toBe('*1.10×*');
    expect(cpuOf('client-go / client-node')).toBe('*1.75×*');
  });

  it('show the peak RSS during sync', () => {
    expect(summaries.find((s) => s.variant === 'kubets')!.syncPeakRssMB).toBe(500);
    expect(resultsTable(summaries)).toContain('peak RSS during sync (MB)');
  });

  it('are checked against issue 20, the 100,000-Pod targets only at that size', () => {
    const small = checkIssue20Targets(summaries, 10_000);
    expect(small.map((c) => [c.target, c.met])).toEqual([
      ['CPU per 10k updates, informer + handler ≤ 1.2 × floor', true],
      ['CPU per 10k updates, informer + handler ≤ 0.75 × client-node', true],
      ['CPU per 10k updates, full pipeline with a work queue ≤ 1.2 × floor', false],
      ['CPU per 10k updates, full pipeline with a work queue ≤ 0.75 × client-node', false],
      ['RSS after sync ≤ 0.6 × client-node', true],
    ]);
    expect(small[0]!.measured).toBe('0.55 s vs 0.50 s = 1.10×');
    const large = checkIssue20Targets(summaries, 100_000);
    expect(large.slice(5).map((c) => [c.target, c.measured, c.met])).toEqual([
      ['initial sync ≤ 0.55 × client-node', '0.50 s vs 1.00 s = 0.50×', true],
      ['peak RSS during sync ≤ 0.55 × client-node', '500.00 MB vs 1000.00 MB = 0.50×', true],
    ]);
    const table = targetsTable(large, 'issue 20');
    expect(table.split('\n')[0]).toBe('| target (issue 20) | kubets measured | met? |');
    expect(table).toContain('| **no** |');
  });

  it('are n/a without the floor or client-node', () => {
    const checks = checkIssue20Targets(summarize([cpu('kubets', 0.7)]), 10_000);
    expect(checks.map((c) => c.met)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('completeResult', () => {
  it('reads a figure a runner left out as missing', () => {
    const { relistMs, relistPeakRatio, ...partial } = result('client-go', 0);
    const complete = completeResult(partial);
    expect(complete.relistMs).toBeNaN();
    expect(complete.relistPeakRatio).toBeNaN();
    expect(complete.syncMs).toBe(1000);
    expect(fmt(summarize([complete])[0]!.relistS)).toBe('—');
  });

  it('rejects a result of an unknown variant', () => {
    expect(() => completeResult({ ...result('kubets', 0), variant: 'client-rs' })).toThrow(
      /unknown variant: "client-rs"/,
    );
  });
});

describe('roundOrder', () => {
  it('alternates the order of the variants from round to round', () => {
    expect(roundOrder(0)).toEqual([...variants]);
    expect(roundOrder(1)).toEqual([...variants].reverse());
    expect(roundOrder(2, ['kubets', 'client-node'])).toEqual(['kubets', 'client-node']);
  });
});

describe('paired ratios (issue 20)', () => {
  // CPU-s of the update window per round; 10,000 updates each unless said otherwise.
  const cpu: Record<string, number[]> = {
    floor: [0.8, 1.0, 0.9],
    'kubets-handler': [0.88, 1.05, 1.08],
    kubets: [1.2, 1.1, 0.99],
    'client-node': [1.3, 1.1, 1.2],
  };
  const results = Object.entries(cpu).flatMap(([variant, values]) =>
    values.map((updateCpuSeconds, round) =>
      result(variant as Variant, round, { updateCpuSeconds }),
    ),
  );

  it('scale CPU to 10,000 updates, NaN without updates', () => {
    expect(cpuPer10kUpdates(result('kubets', 0, { updates: 20_000, updateCpuSeconds: 2 }))).toBe(1);
    expect(cpuPer10kUpdates(result('kubets', 0, { updates: 0 }))).toBeNaN();
  });

  it('divide within each round, in round order, skipping rounds one side missed', () => {
    const r = pairedRatios(results, 'kubets', 'floor').map((x) => Number(x.toFixed(4)));
    expect(r).toEqual([1.5, 1.1, 1.1]);
    const partial = results.filter((x) => !(x.variant === 'floor' && x.round === 1));
    expect(pairedRatios(partial, 'kubets', 'floor').map((x) => Number(x.toFixed(4)))).toEqual([
      1.5, 1.1,
    ]);
    // Results arrive in run order (alternating variants): the round decides, not the order.
    expect(pairedRatios([...results].reverse(), 'kubets', 'floor')[0]).toBeCloseTo(1.5);
  });

  it('give the median of per-round ratios beside the ratio of medians', () => {
    const rows = pairedCpuRatios(results);
    expect(rows.map((r) => `${r.variant}/${r.reference}`)).toEqual([
      'kubets-handler/floor',
      'kubets/floor',
      'kubets-handler/client-node',
      'kubets/client-node',
    ]);
    const handlerFloor = rows[0]!;
    // Per round 1.10, 1.05, 1.20: median 1.10; medians 1.05 / 0.9 = 1.1667.
    expect(handlerFloor.medianOfRatios).toBeCloseTo(1.1);
    expect(handlerFloor.ratioOfMedians).toBeCloseTo(1.05 / 0.9);
    expect(handlerFloor.limit).toBe(1.2);
    const pipelinePeer = rows[3]!;
    expect(pipelinePeer.perRound.map((x) => Number(x.toFixed(4)))).toEqual([0.9231, 1, 0.825]);
    expect(pipelinePeer.limit).toBe(0.75);
  });

  it('leave out pairs of which a variant did not run; the table says which limits are met', () => {
    const noPeer = results.filter((r) => r.variant !== 'client-node');
    const rows = pairedCpuRatios(noPeer);
    expect(rows.map((r) => r.reference)).toEqual(['floor', 'floor']);
    const table = pairedRatiosTable(rows);
    expect(table).toContain(
      '| kubets-handler / floor ≤ 1.2 | 1.10×, 1.05×, 1.20× | 1.10× | 1.17× | yes / yes |',
    );
    expect(table).toContain(
      '| kubets / floor ≤ 1.2 | 1.50×, 1.10×, 1.10× | 1.10× | 1.22× | yes / **no** |',
    );
    expect(pairedRatiosTable(pairedCpuRatios(results))).toContain(
      '| kubets / client-node ≤ 0.75 | 0.92×, 1.00×, 0.83× | 0.92× | 0.92× | **no** / **no** |',
    );
    expect(pairedRatiosTable([])).toBe('');
  });
});
