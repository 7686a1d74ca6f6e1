// Machine instructions per watch event, layer by layer: the client's own work, counted by
// valgrind instead of timed. The CPU time of an event on a shared 2-core virtual machine
// swings by a third from one quiet run to the next (wake-ups, caches and cores shared with
// kube-apiserver); an instruction count does not, so it can tell whether a change made the
// watch path cheaper by a few per cent.
//
//   node src/watch-instructions.ts [--events N] [--warmup W] [--only SLUGS] [--parallel P]
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
// Needs valgrind (the Debian package `valgrind`); a layer takes one to three minutes.

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
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

// Far above the one to three minutes a run takes under valgrind.
const runTimeoutMs = 30 * 60_000;

function countInstructions(layer: string, events: number, warmup: number): Promise<number> {
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
        resolve(total);
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
      parallel: { type: 'string', default: '2' },
    },
  });
  const events = Number(values.events);
  const warmup = Number(values.warmup);
  const parallel = Number(values.parallel);
  if (!(events > 0) || !(warmup >= 0) || !(parallel >= 1)) {
    throw new Error('--events and --parallel must be positive numbers, --warmup at least 0');
  }
  const layers = [...new Set(values.only?.split(',') ?? defaultLayers)];
  const runs = layers.flatMap((layer) => [
    { layer, events },
    { layer, events: events * 3 },
  ]);
  const totals: number[] = [];
  await pool(runs.length, parallel, async (i) => {
    const run = runs[i]!;
    totals[i] = await countInstructions(run.layer, run.events, warmup);
    console.error(
      `[watch-instructions] ${run.layer}, ${run.events} events: ${totals[i]} instructions`,
    );
  });
  const perLayer = new Map(
    layers.map((layer, i) => [
      layer,
      perEvent(totals[2 * i]!, events, totals[2 * i + 1]!, events * 3),
    ]),
  );
  const ratio = (layer: string, reference: string): string => {
    const value = perLayer.get(layer);
    const ref = perLayer.get(reference);
    return value === undefined || ref === undefined ? '—' : `${(value / ref).toFixed(2)}×`;
  };
  const lines = [
    `${events} and ${events * 3} events per layer after ${warmup} not measured, Node ${process.version}; instructions per event = difference / ${events * 2}`,
    '',
    '| layer | instructions per event | / floor | / client-node informer |',
    '| --- | ---: | ---: | ---: |',
    ...layers.map(
      (layer) =>
        `| ${layer} | ${Math.round(perLayer.get(layer)!).toLocaleString('en-US')} | ${ratio(layer, 'floor')} | ${ratio(layer, 'client-node-informer')} |`,
    ),
  ];
  process.stdout.write(`\n${lines.join('\n')}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
