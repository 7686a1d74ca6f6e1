import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from './args.ts';
import {
  notOn,
  parseRuntimes,
  runnerLaunch,
  runtimesTable,
  runtimeVersion,
  unsupportedReasons,
} from './runtimes.ts';
import { completeResult, type RunnerResult, type Variant } from './stats.ts';

/** A runner's result with only the figures the side-by-side table reads. */
function measured(variant: Variant, cpuSeconds: number, syncMs: number): RunnerResult {
  return completeResult({
    variant,
    round: 0,
    updates: 10_000,
    updateCpuSeconds: cpuSeconds,
    syncMs,
    rssAfterSyncBytes: 100e6,
    relistMs: 500,
  });
}

describe('parseRuntimes', () => {
  it('takes any subset, in the tables’ order', () => {
    expect(parseRuntimes('deno,node')).toEqual(['node', 'deno']);
    expect(parseRuntimes(' bun ')).toEqual(['bun']);
    expect(parseRuntimes('node,bun,deno')).toEqual(['node', 'bun', 'deno']);
  });

  it('names an unknown runtime', () => {
    expect(() => parseRuntimes('node,workerd')).toThrow(
      '--runtimes: unknown runtime workerd; one of node, bun, deno',
    );
  });

  it('is Node alone unless --runtimes says otherwise', () => {
    expect(parseBenchArgs([]).runtimes).toEqual(['node']);
    expect(parseBenchArgs(['--runtimes', 'node,bun,deno']).runtimes).toEqual([
      'node',
      'bun',
      'deno',
    ]);
  });
});

describe('runnerLaunch', () => {
  it('exposes V8’s gc on Node and Deno, runs Deno’s script with every permission', () => {
    expect(runnerLaunch('node', '/n', ['--cpu-prof'])).toEqual({
      execPath: '/n',
      execArgv: ['--expose-gc', '--cpu-prof'],
    });
    expect(runnerLaunch('deno', '/d')).toEqual({
      execPath: '/d',
      execArgv: ['run', '--allow-all', '--v8-flags=--expose-gc'],
    });
  });

  it('passes Bun no flag: its runner collects with Bun.gc', () => {
    expect(runnerLaunch('bun', '/b', ['--cpu-prof'])).toEqual({ execPath: '/b', execArgv: [] });
  });
});

describe('runtimesTable', () => {
  it('shows every runtime that ran side by side, with its ratio to Node', () => {
    const table = runtimesTable(
      new Map([
        ['node', [measured('kubets', 0.4, 1000)]],
        ['bun', [measured('kubets', 0.6, 800)]],
        ['deno', []],
      ]),
      { node: 'node v24.1.0', bun: 'bun 1.4.5' },
    );
    const lines = table.split('\n');
    expect(lines[0]).toBe('| variant | figure | node v24.1.0 | bun 1.4.5 | bun / node |');
    expect(lines).toContain(
      '| kubets, informer + work queue (full Pods) | CPU per 10k updates (s) | 0.40 | 0.60 | 1.50× |',
    );
    expect(lines).toContain(
      '| kubets, informer + work queue (full Pods) | initial sync (s) | 1.00 | 0.80 | 0.80× |',
    );
    expect(table).not.toContain('deno');
  });

  it('leaves the ratios out without Node, and marks a variant a runtime did not run', () => {
    const table = runtimesTable(
      new Map([
        ['bun', [measured('kubets', 0.6, 800)]],
        ['deno', [measured('client-node', 0.9, 900)]],
      ]),
      {},
    );
    const lines = table.split('\n');
    expect(lines[0]).toBe('| variant | figure | bun | deno |');
    expect(lines).toContain(
      '| @kubernetes/client-node 2.0.1 | CPU per 10k updates (s) | — | 0.90 |',
    );
  });
});

describe('runtimeVersion', () => {
  it('names the runtime and the version it reports', () => {
    const expected = process.versions.bun
      ? `bun ${process.versions.bun}`
      : process.versions.deno
        ? `deno ${process.versions.deno}`
        : `node ${process.version}`;
    const runtime = expected.split(' ')[0] as 'node' | 'bun' | 'deno';
    expect(runtimeVersion(runtime, process.execPath)).toBe(expected);
  });
});

describe('notOn', () => {
  it('leaves client-node out on Bun only, saying why', () => {
    expect(notOn('bun')).toEqual(['client-node']);
    expect(notOn('node')).toEqual([]);
    expect(notOn('deno')).toEqual([]);
    expect(unsupportedReasons['client-node']).toMatch(/does not sync on Bun/);
  });
});
