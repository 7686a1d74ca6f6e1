// The JavaScript runtimes the informer benchmark can run its runners on (`--runtimes`): Node,
// and Bun and Deno from scripts/provision-runtimes.sh. The patcher, envtest and the tables stay
// in this Node process; only the runner processes change runtime, so the same kube-apiserver
// and the same patches serve every runtime of a round.

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import {
  fmt,
  type RunnerResult,
  ratio,
  type Summary,
  summarize,
  type Variant,
  variantLabels,
} from './stats.ts';

/** The runtimes, in the order the tables show them. */
export const runtimes = ['node', 'bun', 'deno'] as const;

/** A runtime a runner can run on. */
export type Runtime = (typeof runtimes)[number];

/** Parses `--runtimes node,bun,deno` (any subset, any order; shown in {@link runtimes}' order). */
export function parseRuntimes(list: string): Runtime[] {
  const named = list.split(',').map((name) => name.trim());
  for (const name of named) {
    if (!(runtimes as readonly string[]).includes(name)) {
      throw new Error(`--runtimes: unknown runtime ${name}; one of ${runtimes.join(', ')}`);
    }
  }
  return runtimes.filter((runtime) => named.includes(runtime));
}

/** How to start a runner script on a runtime with `child_process.fork` (IPC works on all three). */
export interface RunnerLaunch {
  /** The runtime's binary (`fork`'s `execPath`). */
  execPath: string;
  /** Arguments before the script (`fork`'s `execArgv`). */
  execArgv: string[];
}

/**
 * The runner's launch on `runtime`. Node and Deno expose V8's `gc()` when asked; Bun has none,
 * and runner.ts collects with `Bun.gc(true)` there. CPU profiling (`nodeProfileArgs`) is a
 * Node flag: the other runtimes run unprofiled.
 */
export function runnerLaunch(
  runtime: Runtime,
  binary: string,
  nodeProfileArgs: readonly string[] = [],
): RunnerLaunch {
  switch (runtime) {
    case 'node':
      return { execPath: binary, execArgv: ['--expose-gc', ...nodeProfileArgs] };
    case 'bun':
      return { execPath: binary, execArgv: [] };
    case 'deno':
      return { execPath: binary, execArgv: ['run', '--allow-all', '--v8-flags=--expose-gc'] };
  }
}

/**
 * The binaries of `wanted`: this process's own Node, and Bun and Deno as
 * scripts/provision-runtimes.sh installs them (once; cached after).
 */
export function runtimeBinaries(
  repoRoot: string,
  wanted: readonly Runtime[],
): Record<Runtime, string> {
  const binaries = { node: process.execPath, bun: '', deno: '' };
  if (wanted.every((runtime) => runtime === 'node')) return binaries;
  const printed = execFileSync('bash', [path.join(repoRoot, 'scripts/provision-runtimes.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  for (const line of printed.split('\n')) {
    const [name, binary] = line.trim().split(/\s+/);
    if ((name === 'bun' || name === 'deno') && binary !== undefined) binaries[name] = binary;
  }
  for (const runtime of wanted) {
    if (binaries[runtime] === '') {
      throw new Error(`scripts/provision-runtimes.sh named no ${runtime} binary`);
    }
  }
  return binaries;
}

/** `node v24.1.0`, `bun 1.4.5`, `deno 2.9.6`: the runtime's name and its `--version`. */
export function runtimeVersion(runtime: Runtime, binary: string): string {
  const printed = execFileSync(binary, ['--version'], { encoding: 'utf8' });
  // Node prints `v24.1.0`, Bun `1.4.5`, Deno `deno 2.9.6 (stable, release, ...)` and more lines.
  const version = /\d+\.\d+\.\d+/.exec(printed)?.[0] ?? printed.trim();
  return `${runtime} ${runtime === 'node' ? 'v' : ''}${version}`;
}

/**
 * Variants left out on a runtime, with {@link unsupportedReasons}: @kubernetes/client-node's
 * informer never reports synced on Bun (seen with client-node 2.0.1 on Bun 1.4.5: its runner
 * waits out the sync timeout), so a run on Bun measures kubets and the floor only.
 */
export function notOn(runtime: Runtime): readonly Variant[] {
  return runtime === 'bun' ? ['client-node'] : [];
}

/** Why a variant is left out on a runtime ({@link notOn}). */
export const unsupportedReasons: Readonly<Partial<Record<Variant, string>>> = {
  'client-node': "@kubernetes/client-node's informer does not sync on Bun",
};

const sideBySide: readonly { title: string; get: (s: Summary) => number; digits: number }[] = [
  { title: 'CPU per 10k updates (s)', get: (s) => s.cpuPer10kUpdatesS, digits: 2 },
  { title: 'initial sync (s)', get: (s) => s.syncS, digits: 2 },
  { title: 'RSS after sync (MB)', get: (s) => s.rssAfterSyncMB, digits: 0 },
  { title: 'relist (s)', get: (s) => s.relistS, digits: 2 },
];

/**
 * One table of the variants on every runtime that ran, side by side: per variant and figure a
 * column per runtime (medians over the rounds), and each runtime's ratio to Node's. Heap per
 * object is left out: JavaScriptCore (Bun) counts its heap differently from V8, so the figure
 * does not compare across runtimes; RSS does.
 */
export function runtimesTable(
  resultsByRuntime: ReadonlyMap<Runtime, readonly RunnerResult[]>,
  versions: Readonly<Partial<Record<Runtime, string>>>,
): string {
  const ran = runtimes.filter((runtime) => (resultsByRuntime.get(runtime)?.length ?? 0) > 0);
  const summaries = new Map(
    ran.map((runtime) => [runtime, summarize(resultsByRuntime.get(runtime) ?? [])]),
  );
  const variantsRun: Variant[] = [];
  for (const runtime of ran) {
    for (const s of summaries.get(runtime) ?? []) {
      if (!variantsRun.includes(s.variant)) variantsRun.push(s.variant);
    }
  }
  const header = ['variant', 'figure', ...ran.map((runtime) => versions[runtime] ?? runtime)];
  const others = ran.filter((runtime) => runtime !== 'node');
  const ratioHeader = ran.includes('node') ? others.map((runtime) => `${runtime} / node`) : [];
  const lines = [
    `| ${[...header, ...ratioHeader].join(' | ')} |`,
    `| ${[...header.map((_, i) => (i < 2 ? '---' : '---:')), ...ratioHeader.map(() => '---:')].join(' | ')} |`,
  ];
  for (const variant of variantsRun) {
    for (const figure of sideBySide) {
      const value = (runtime: Runtime): number => {
        const s = summaries.get(runtime)?.find((x) => x.variant === variant);
        return s === undefined ? Number.NaN : figure.get(s);
      };
      const node = value('node');
      const cells = ran.map((runtime) => fmt(value(runtime), figure.digits));
      const ratios = ran.includes('node')
        ? others.map((runtime) => `${fmt(ratio(value(runtime), node))}×`)
        : [];
      lines.push(`| ${[variantLabels[variant], figure.title, ...cells, ...ratios].join(' | ')} |`);
    }
  }
  return lines.join('\n');
}
