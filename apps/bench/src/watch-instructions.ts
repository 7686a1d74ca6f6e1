// Machine instructions per watch event, layer by layer: the client's own work, counted by
// valgrind instead of timed. The CPU time of an event on a shared 2-core virtual machine
// swings by a third from one quiet run to the next (wake-ups, caches and cores shared with
// kube-apiserver); an instruction count does not, so it can tell whether a change made the
// watch path cheaper by a few per cent.
//
//   node src/watch-instructions.ts [--events N] [--warmup W] [--only SLUGS] [--parallel P]
//                                  [--repeats R] [--max-spread PERCENT]
//                                  [--max-deviation PERCENT] [--extra-repeats X]
//
// Each layer of watch-floor.ts runs in its own process under `valgrind --tool=cachegrind`
// (the API server child it forks runs natively, uncounted), once with N events and once
// with 3N, both after the same W events that are not measured (default 2,000, read as a
// backlog like the measured ones); the difference divided by 2N is the layer's instructions
// per event, with the process's start, module loading, the opening of the watch and the
// warm-up cancelled out. Everything the process executes is counted: socket, TLS and HTTP
// reading, JSON.parse, the client, V8's compilers and the garbage collector.
//
// A figure is the difference of two whole processes, so anything one process does and the
// other does not lands in it. What made processes differ, and what is done about it:
// - Work that grows with wall time (polls, timers, bookmarks sent every 10 s): watch-floor.ts
//   runs none in the measured process (see there), so the count does not depend on load.
// - V8's random seeds: each process draws a hash seed (a few million instructions, a
//   different number each time) and a Math.random state; both are fixed here.
// - The garbage collector's schedule: by default V8 sizes the old generation from its
//   measured GC and mutator speeds, in wall-clock time, so whether a major collection falls
//   before the process exits depended on the machine's load; one did in a kubets pipeline
//   process of 2026-11-29 and cost 737 million instructions (184,000 per event of the
//   window), all of it marking, sweeping and evacuation by name in cachegrind's output.
//   `--predictable-gc-schedule` fixes the growing factor and the semi-space size and turns
//   the memory reducer off: collections then follow what the process allocates.
// - Threads: `--single-threaded` puts compiler and GC work on the main thread, in an order
//   that does not depend on thread timing.
// Processes of the same layer and events then agree within about 0.1 %. Each layer is
// measured R times (default 3); a process whose total lies further from the median of the
// R with its events than --max-deviation (default 1 %) of the layer's 2N-event difference
// counted work the others did not, and is measured again (up to X times, default 2) rather
// than let into a figure. A repeat with a major collection in its extra events (from
// `--trace-gc`, over the whole process) is set aside and measured again too. The table
// gives each layer's median with its spread ((max - min) / median), void over --max-spread
// (default 3 %), and the collections of each repeat's extra events.
//
// What the figure is not: steady state. V8 still compiles the client's hot functions with
// TurboFan thousands of events after the warm-up (in the same places in every process, so
// repeats agree); the window includes that work. Run with --parallel 1 on an otherwise idle
// machine for figures to publish. Needs valgrind (the Debian package `valgrind`); a layer
// takes one to three minutes per process.

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type Collections, collectionsBetween } from './gc-count.ts';
import { pool } from './pool.ts';

const watchFloor = fileURLToPath(new URL('./watch-floor.ts', import.meta.url));

/** The layers of watch-floor.ts counted by default, the two references first. */
const defaultLayers = [
  'floor',
  'client-node-informer',
  'https-lines',
  'kubets-watch',
  'kubets-informer',
  'kubets-informer-unshared',
  'kubets-pipeline',
  'client-node-watch',
];

/** The total from cachegrind's summary (`==123== I   refs:      3,711,644,735`). */
export function parseInstructionTotal(valgrindOutput: string): number | undefined {
  const match = /I\s+refs:\s+([\d,]+)/.exec(valgrindOutput);
  return match === null ? undefined : Number(match[1]!.replaceAll(',', ''));
}

/** Instructions per event from the totals of two runs of `events` and `moreEvents`. */
export function perEvent(
  total: number,
  events: number,
  moreTotal: number,
  moreEvents: number,
): number {
  if (!(moreEvents > events)) throw new RangeError('the second run must have more events');
  return (moreTotal - total) / (moreEvents - events);
}

/** A layer's figure over its repeated measurements. */
export type LayerSummary =
  | { valid: true; median: number; spread: number }
  | { valid: false; spread: number };

/**
 * The median of a layer's instructions per event over its repeats and their spread,
 * `(max - min) / median`; over `maxSpread` the figure did not repeat and is void.
 */
export function summarizeLayer(perEventRuns: readonly number[], maxSpread: number): LayerSummary {
  if (perEventRuns.length === 0) throw new RangeError('a layer needs at least one run');
  const median = medianOf(perEventRuns);
  const spread = (Math.max(...perEventRuns) - Math.min(...perEventRuns)) / median;
  return spread > maxSpread ? { valid: false, spread } : { valid: true, median, spread };
}

/** V8 flags that make the collections of a process depend on what it allocates only. */
const gcScheduleFlags = ['--predictable-gc-schedule'];

// Far above the one to three minutes a run takes under valgrind.
const runTimeoutMs = 30 * 60_000;

/** One run's total and the collections in its measured events. */
export interface Counted {
  instructions: number;
  collections: Collections | undefined;
}

function countInstructions(layer: string, events: number, warmup: number): Promise<Counted> {
  return new Promise((resolve, reject) => {
    execFile(
      'valgrind',
      [
        '--tool=cachegrind',
        '--cache-sim=no',
        '--cachegrind-out-file=/dev/null',
        // V8 writes the machine code it runs: valgrind must notice code that changes.
        '--smc-check=all-non-file',
        process.execPath,
        // Everything on the main thread (no concurrent compiler or GC threads), so the
        // order of work, and the count, do not depend on how threads interleave.
        '--single-threaded',
        // The same hash seed and Math.random in every process: a random seed costs a
        // different number of instructions to make, and hash tables collide differently.
        '--hash-seed=1',
        '--random-seed=1',
        ...gcScheduleFlags,
        // Every collection of the process, start to exit, as its instruction total counts.
        '--trace-gc',
        watchFloor,
        // The events queue while the process waits, then are read many per socket read
        // in the same way whatever the layer's speed.
        '--backlog',
        '--events',
        String(events),
        '--warmup',
        String(warmup),
        '--rounds',
        '1',
        '--only',
        layer,
      ],
      // A layer that never sees its events would otherwise wait for ever.
      { maxBuffer: 64 * 1024 * 1024, timeout: runTimeoutMs },
      (err, stdout, stderr) => {
        if ((err as NodeJS.ErrnoException | null)?.code === 'ENOENT') {
          reject(new Error('valgrind is not on PATH (Debian package `valgrind`)'));
          return;
        }
        const total = parseInstructionTotal(stderr);
        const pid = parseValgrindPid(stderr);
        if (err !== null || total === undefined || pid === undefined) {
          const tail = `${stdout}${stderr}`.trim().split('\n').slice(-5).join('\n');
          reject(new Error(`${layer} with ${events} events under valgrind failed:\n${tail}`));
          return;
        }
        resolve({ instructions: total, collections: parseTraceGc(stdout, pid) });
      },
    );
  });
}

/** A layer's two runs of one repeat: `few` with N events, `many` with 3N. */
export interface Repeat {
  few: Counted;
  many: Counted;
}

/** Collections that fell in a repeat's extra events (`many`'s process minus `few`'s). */
export function windowCollections(repeat: Repeat): Collections | undefined {
  const { few, many } = repeat;
  if (few.collections === undefined || many.collections === undefined) return undefined;
  return collectionsBetween(few.collections, many.collections);
}

/**
 * Whether a repeat counts towards its layer's figure: a major collection in its extra events
 * costs hundreds of thousands of instructions per event in one window and none in the next
 * (they come every few thousand events in a steady watch), so such a repeat is set aside
 * and measured again rather than averaged in. Minor collections stay: they are the
 * per-event cost of the garbage a layer makes, and a window of thousands of events holds
 * about as many in every repeat.
 */
export function countsTowardsFigure(repeat: Repeat): boolean {
  return (windowCollections(repeat)?.major ?? 0) === 0;
}

/** The median of `values` (at least one). */
function medianOf(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('a median needs at least one value');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Which of the totals of processes that ran the same events do not fit: those further from
 * the group's median than `tolerance` instructions. The processes of a layer run the same
 * code on the same events, so their totals agree closely (within 0.1 % on 2026-11-29);
 * one that counted work the others did not (a collection or a compile that fell
 * differently) stands out, and is measured again rather than let into a figure. Needs three
 * totals or more: of two that disagree neither can be told to be the odd one.
 */
export function outliers(totals: readonly number[], tolerance: number): boolean[] {
  if (totals.length < 3) return totals.map(() => false);
  const median = medianOf(totals);
  return totals.map((total) => !(Math.abs(total - median) <= tolerance));
}

/**
 * How far a process's total may lie from the median of its group (see {@link outliers}):
 * `maxDeviation` of the layer's median difference between its 3N- and N-event processes
 * (2N events' worth), so that one such process moves a figure by at most `maxDeviation`.
 */
export function outlierTolerance(repeats: readonly Repeat[], maxDeviation: number): number {
  const difference =
    medianOf(repeats.map(({ many }) => many.instructions)) -
    medianOf(repeats.map(({ few }) => few.instructions));
  return maxDeviation * Math.abs(difference);
}

/**
 * The collections of process `pid` in V8's `--trace-gc` lines
 * (`[4187:0x6cc4000]    21777 ms: Scavenge 9.2 (9.6) -> 8.8 (9.6) MB, ...`), from its start
 * to its exit: what its instruction total covers. (Lines of other processes, such as the
 * API server child, are left out.)
 */
export function parseTraceGc(output: string, pid: number): Collections {
  const collections: Collections = { major: 0, minor: 0 };
  for (const [, linePid, kind] of output.matchAll(
    /^\[(\d+):0x[\da-f]+\]\s+[\d.]+ ms: (Mark-Compact|Scavenge|Minor Mark-Sweep)/gm,
  )) {
    if (Number(linePid) !== pid) continue;
    if (kind === 'Mark-Compact') collections.major++;
    else collections.minor++;
  }
  return collections;
}

/** The process id in valgrind's output (`==4187== I   refs: ...`). */
export function parseValgrindPid(valgrindOutput: string): number | undefined {
  const match = /^==(\d+)==/m.exec(valgrindOutput);
  return match === null ? undefined : Number(match[1]);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '2000' },
      warmup: { type: 'string', default: '2000' },
      only: { type: 'string' },
      parallel: { type: 'string', default: '1' },
      repeats: { type: 'string', default: '3' },
      'max-spread': { type: 'string', default: '3' },
      'max-deviation': { type: 'string', default: '1' },
      'extra-repeats': { type: 'string', default: '2' },
    },
  });
  const events = Number(values.events);
  const warmup = Number(values.warmup);
  const parallel = Number(values.parallel);
  const repeats = Number(values.repeats);
  const extraRepeats = Number(values['extra-repeats']);
  const maxSpread = Number(values['max-spread']) / 100;
  const maxDeviation = Number(values['max-deviation']) / 100;
  if (!(events > 0) || !(warmup >= 0) || !(parallel >= 1) || !(repeats >= 1)) {
    throw new Error(
      '--events, --parallel and --repeats must be positive numbers, --warmup at least 0',
    );
  }
  if (!(extraRepeats >= 0)) throw new Error('--extra-repeats must be a number, at least 0');
  if (!(maxSpread >= 0)) throw new Error('--max-spread must be a percentage, at least 0');
  if (!(maxDeviation >= 0)) throw new Error('--max-deviation must be a percentage, at least 0');
  const layers = [...new Set(values.only?.split(',') ?? defaultLayers)];
  const repeatsOf = new Map<string, Repeat[]>(layers.map((layer) => [layer, []]));
  // Per layer, the processes measured again because their totals did not fit.
  const remeasured = new Map<string, string[]>(layers.map((layer) => [layer, []]));
  type Side = keyof Repeat;
  const eventsOf = (side: Side): number => (side === 'few' ? events : events * 3);
  const count = async (
    runs: { layer: string; repeat: number; side: Side }[],
  ): Promise<Counted[]> => {
    const counted: Counted[] = [];
    await pool(runs.length, parallel, async (i) => {
      const run = runs[i]!;
      counted[i] = await countInstructions(run.layer, eventsOf(run.side), warmup);
      const gc = counted[i].collections;
      console.error(
        `[watch-instructions] ${run.layer}, repeat ${run.repeat + 1}, ${eventsOf(run.side)} events: ` +
          `${counted[i].instructions} instructions` +
          (gc === undefined ? '' : `, ${gc.major} major and ${gc.minor} minor collections`),
      );
    });
    return counted;
  };
  const measure = async (plan: { layer: string; repeat: number }[]): Promise<void> => {
    const counted = await count(
      plan.flatMap(({ layer, repeat }) => [
        { layer, repeat, side: 'few' as const },
        { layer, repeat, side: 'many' as const },
      ]),
    );
    plan.forEach(({ layer }, i) => {
      repeatsOf.get(layer)!.push({ few: counted[2 * i]!, many: counted[2 * i + 1]! });
    });
  };
  // Repeat-major order: a load that comes and goes touches every layer instead of one.
  await measure(
    Array.from({ length: repeats }, (_, repeat) =>
      layers.map((layer) => ({ layer, repeat })),
    ).flat(),
  );
  const counting = (layer: string): Repeat[] => repeatsOf.get(layer)!.filter(countsTowardsFigure);
  for (let extra = 0; extra < extraRepeats; extra++) {
    // A process whose total does not fit those of the same events is measured again...
    const misfits = layers.flatMap((layer) => {
      const all = repeatsOf.get(layer)!;
      const tolerance = outlierTolerance(all, maxDeviation);
      return (['few', 'many'] as const).flatMap((side) => {
        const odd = outliers(
          all.map((repeat) => repeat[side].instructions),
          tolerance,
        );
        return all.flatMap((_, repeat) => (odd[repeat] ? [{ layer, repeat, side }] : []));
      });
    });
    if (misfits.length > 0) {
      const counted = await count(misfits);
      misfits.forEach(({ layer, repeat, side }, i) => {
        repeatsOf.get(layer)![repeat]![side] = counted[i]!;
        remeasured.get(layer)!.push(`repeat ${repeat + 1}, ${eventsOf(side)} events`);
      });
    }
    // ...and a repeat more is run for each one set aside for a major collection.
    const short = layers.filter((layer) => counting(layer).length < repeats);
    if (short.length > 0) {
      await measure(short.map((layer) => ({ layer, repeat: repeatsOf.get(layer)!.length })));
    }
    if (misfits.length === 0 && short.length === 0) break;
  }
  const perEventOf = ({ few, many }: Repeat): number =>
    perEvent(few.instructions, events, many.instructions, events * 3);
  const summaries = new Map(
    layers.map((layer) => {
      const kept = counting(layer);
      const summary: LayerSummary =
        kept.length === 0
          ? { valid: false, spread: Number.NaN }
          : summarizeLayer(kept.map(perEventOf), maxSpread);
      return [layer, summary] as const;
    }),
  );
  const collectionsColumn = (layer: string, kind: keyof Collections): string =>
    repeatsOf
      .get(layer)!
      .map((repeat) => String(windowCollections(repeat)?.[kind] ?? '?'))
      .join(', ');
  const remeasuredColumn = (layer: string): string => remeasured.get(layer)!.join('; ') || 'none';
  const figure = (layer: string): number | undefined => {
    const summary = summaries.get(layer);
    return summary?.valid === true ? summary.median : undefined;
  };
  const ratio = (layer: string, reference: string): string => {
    const value = figure(layer);
    const ref = figure(reference);
    return value === undefined || ref === undefined ? '—' : `${(value / ref).toFixed(3)}×`;
  };
  const lines = [
    `${events} and ${events * 3} events per layer after ${warmup} not measured, ${repeats} repeat(s) without a major collection in the extra events (up to ${extraRepeats} more run to replace those with one); a process whose total lies further than ${percent(maxDeviation)} of the layer's ${events * 2}-event difference from the median of those with its events is measured again; Node ${process.version}; instructions per event = difference / ${events * 2}; void when the spread is over ${percent(maxSpread)}`,
    '',
    '| layer | instructions per event (median) | spread | / floor | / client-node informer | per repeat, in the extra events: major collections | minor collections | processes measured again |',
    '| --- | ---: | ---: | ---: | ---: | --- | --- | --- |',
    ...layers.map((layer) => {
      const summary = summaries.get(layer)!;
      const value = summary.valid
        ? Math.round(summary.median).toLocaleString('en-US')
        : 'void (did not repeat)';
      return `| ${layer} | ${value} | ${percent(summary.spread)} | ${ratio(layer, 'floor')} | ${ratio(layer, 'client-node-informer')} | ${collectionsColumn(layer, 'major')} | ${collectionsColumn(layer, 'minor')} | ${remeasuredColumn(layer)} |`;
    }),
  ];
  process.stdout.write(`\n${lines.join('\n')}\n`);
}

function percent(fraction: number): string {
  return Number.isNaN(fraction) ? '—' : `${(fraction * 100).toFixed(1)} %`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
