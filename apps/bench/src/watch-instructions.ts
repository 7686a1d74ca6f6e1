// Machine instructions per watch event, layer by layer: the client's own work, counted by
// valgrind instead of timed. The CPU time of an event on a shared 2-core virtual machine
// swings by a third from one quiet run to the next (wake-ups, caches and cores shared with
// kube-apiserver); an instruction count does not, so it can tell whether a change made the
// watch path cheaper by a few per cent.
//
//   node src/watch-instructions.ts [--events N] [--warmup W] [--only SLUGS] [--parallel P]
//                                  [--repeats R] [--max-spread PERCENT]
//
// Each layer of watch-floor.ts runs in its own process under `valgrind --tool=cachegrind`
// (the API server child it forks runs natively, uncounted), once with N events and once
// with 3N, both after the same W events that are not measured (default 2,000: by then V8
// has optimised the hot code, as in a long-running controller); the difference divided by
// 2N is the layer's instructions per event, with the process's start, module loading, the
// opening of the watch and the warm-up cancelled out. Everything the process executes is
// counted: socket, TLS and HTTP reading, JSON.parse, the client and the garbage collector.
// The process runs with V8's `--single-threaded` (compiler and GC work on the main thread,
// in an order that does not depend on thread timing) and reads the events as a backlog
// (watch-floor.ts --backlog: many per socket read, no wake-up per event), so two runs
// agree within about 2 %; the garbage collections that fall in the window are the rest.
// So each layer is measured R times (default 3) and printed as the median with its spread
// ((max - min) / median) and the major collections of each measured window; a layer whose
// spread is over --max-spread (default 3 %) is void: its figure did not repeat, and the
// table says so instead of printing it. Run with --parallel 1 on an otherwise idle
// machine: two layers counted side by side read their events in different batches.
// Needs valgrind (the Debian package `valgrind`); a layer takes one to three minutes.

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type Collections, parseCollections } from './gc-count.ts';
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
  const sorted = [...perEventRuns].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  const spread = (sorted.at(-1)! - sorted[0]!) / median;
  return spread > maxSpread ? { valid: false, spread } : { valid: true, median, spread };
}

// Far above the one to three minutes a run takes under valgrind.
const runTimeoutMs = 30 * 60_000;

interface Counted {
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
        if (err !== null || total === undefined) {
          const tail = `${stdout}${stderr}`.trim().split('\n').slice(-5).join('\n');
          reject(new Error(`${layer} with ${events} events under valgrind failed:\n${tail}`));
          return;
        }
        resolve({ instructions: total, collections: parseCollections(`${stdout}${stderr}`) });
      },
    );
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '1000' },
      warmup: { type: 'string', default: '2000' },
      only: { type: 'string' },
      parallel: { type: 'string', default: '1' },
      repeats: { type: 'string', default: '3' },
      'max-spread': { type: 'string', default: '3' },
    },
  });
  const events = Number(values.events);
  const warmup = Number(values.warmup);
  const parallel = Number(values.parallel);
  const repeats = Number(values.repeats);
  const maxSpread = Number(values['max-spread']) / 100;
  if (!(events > 0) || !(warmup >= 0) || !(parallel >= 1) || !(repeats >= 1)) {
    throw new Error(
      '--events, --parallel and --repeats must be positive numbers, --warmup at least 0',
    );
  }
  if (!(maxSpread >= 0)) throw new Error('--max-spread must be a percentage, at least 0');
  const layers = [...new Set(values.only?.split(',') ?? defaultLayers)];
  // Repeat-major order: a load that comes and goes touches every layer instead of one.
  const runs = Array.from({ length: repeats }, (_, repeat) =>
    layers.flatMap((layer) => [
      { layer, repeat, events },
      { layer, repeat, events: events * 3 },
    ]),
  ).flat();
  const counted: Counted[] = [];
  await pool(runs.length, parallel, async (i) => {
    const run = runs[i]!;
    counted[i] = await countInstructions(run.layer, run.events, warmup);
    const gc = counted[i].collections;
    console.error(
      `[watch-instructions] ${run.layer}, repeat ${run.repeat + 1}, ${run.events} events: ` +
        `${counted[i].instructions} instructions` +
        (gc === undefined ? '' : `, ${gc.major} major and ${gc.minor} minor collections`),
    );
  });
  const runsOf = (layer: string) =>
    Array.from({ length: repeats }, (_, repeat) => {
      const at = runs.findIndex((run) => run.layer === layer && run.repeat === repeat);
      return { few: counted[at]!, many: counted[at + 1]! };
    });
  const summaries = new Map(
    layers.map((layer) => {
      const perRepeat = runsOf(layer).map(({ few, many }) =>
        perEvent(few.instructions, events, many.instructions, events * 3),
      );
      return [layer, summarizeLayer(perRepeat, maxSpread)] as const;
    }),
  );
  const majors = (layer: string): string =>
    runsOf(layer)
      .map(({ few, many }) =>
        few.collections === undefined || many.collections === undefined
          ? '?'
          : String(many.collections.major - few.collections.major),
      )
      .join(', ');
  const figure = (layer: string): number | undefined => {
    const summary = summaries.get(layer);
    return summary?.valid === true ? summary.median : undefined;
  };
  const ratio = (layer: string, reference: string): string => {
    const value = figure(layer);
    const ref = figure(reference);
    return value === undefined || ref === undefined ? '—' : `${(value / ref).toFixed(2)}×`;
  };
  const percent = (spread: number): string => `${(spread * 100).toFixed(1)} %`;
  const lines = [
    `${events} and ${events * 3} events per layer after ${warmup} not measured, ${repeats} repeat(s), Node ${process.version}; instructions per event = difference / ${events * 2}; void when the spread is over ${percent(maxSpread)}`,
    '',
    '| layer | instructions per event (median) | spread | / floor | / client-node informer | major collections in the extra events, per repeat |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
    ...layers.map((layer) => {
      const summary = summaries.get(layer)!;
      const value = summary.valid
        ? Math.round(summary.median).toLocaleString('en-US')
        : 'void (did not repeat)';
      return `| ${layer} | ${value} | ${percent(summary.spread)} | ${ratio(layer, 'floor')} | ${ratio(layer, 'client-node-informer')} | ${majors(layer)} |`;
    }),
  ];
  process.stdout.write(`\n${lines.join('\n')}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
