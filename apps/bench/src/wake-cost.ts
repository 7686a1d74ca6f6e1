// What waking up costs a Node.js process on this machine, with no work at all: the CPU time
// (user + system) charged per wake of a timer loop that sleeps `idleMs` between callbacks
// that do nothing. A watch whose events arrive one at a time wakes its process once per
// event, so this is a fixed price of every event that no client can avoid, and it decides
// how close the per-event CPU figures of all clients come to each other (see
// docs/benchmarks.md, issue 20's fifth round). On the virtual machines these benchmarks
// run on it is tens to hundreds of microseconds, more the longer the sleep; the same loop
// without sleeping (`setImmediate`) costs a few.
//
//   node src/wake-cost.ts [--idle-ms 1,10] [--wakes 500] [--json]
//
// main.ts runs it in a child process after the rounds and prints the result beside the
// machine's load average.

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** CPU charged per wake-up after sleeping `idleMs`. */
export interface WakeCost {
  idleMs: number;
  wakes: number;
  /** User + system CPU per wake, microseconds. */
  cpuMicros: number;
}

/** Wakes `wakes` times, sleeping `idleMs` before each, and returns the CPU charged per wake. */
export async function measureWakeCost(idleMs: number, wakes: number): Promise<WakeCost> {
  const start = process.cpuUsage();
  for (let i = 0; i < wakes; i++) {
    await new Promise((resolve) => setTimeout(resolve, idleMs));
  }
  const cpu = process.cpuUsage(start);
  return { idleMs, wakes, cpuMicros: (cpu.user + cpu.system) / wakes };
}

/** "46 µs after 1 ms idle, 190 µs after 10 ms": for a run's header. */
export function describeWakeCosts(costs: readonly WakeCost[]): string {
  return costs.map((c) => `${Math.round(c.cpuMicros)} µs after ${c.idleMs} ms idle`).join(', ');
}

/**
 * Runs the measurement in a fresh process (so nothing else of the caller's wakes it) and
 * resolves with its figures; undefined when that process fails.
 */
export function probeWakeCosts(
  idleMs: readonly number[] = [1, 10],
  wakes = 300,
): Promise<WakeCost[] | undefined> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        fileURLToPath(import.meta.url),
        '--idle-ms',
        idleMs.join(','),
        '--wakes',
        String(wakes),
        '--json',
      ],
      (err, stdout) => {
        if (err !== null) {
          resolve(undefined);
          return;
        }
        try {
          resolve(JSON.parse(stdout) as WakeCost[]);
        } catch {
          resolve(undefined);
        }
      },
    );
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'idle-ms': { type: 'string', default: '1,10' },
      wakes: { type: 'string', default: '500' },
      json: { type: 'boolean', default: false },
    },
  });
  const wakes = Number(values.wakes);
  const idles = values['idle-ms'].split(',').map(Number);
  if (!(wakes > 0) || idles.some((ms) => !(ms >= 0))) {
    throw new Error('--wakes must be a positive number and --idle-ms non-negative numbers');
  }
  const costs: WakeCost[] = [];
  for (const idleMs of idles) costs.push(await measureWakeCost(idleMs, wakes));
  process.stdout.write(
    values.json ? `${JSON.stringify(costs)}\n` : `wake-up cost: ${describeWakeCosts(costs)}\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
