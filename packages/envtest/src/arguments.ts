import { execFile } from 'node:child_process';
import { childEnv } from './process.js';

/**
 * Command-line flags by name, without the leading `--`. A string sets the flag once
 * (`--name=value`), an array repeats it, and `null` removes a flag envtest would otherwise
 * pass. Entries are merged over envtest's defaults.
 */
export type EnvtestFlags = Readonly<Record<string, string | readonly string[] | null>>;

/** Merges `overrides` over `defaults` and renders `--name=value` arguments. */
export function renderFlags(defaults: EnvtestFlags, overrides: EnvtestFlags = {}): string[] {
  const merged = new Map<string, string | readonly string[] | null>(Object.entries(defaults));
  for (const [name, value] of Object.entries(overrides)) {
    merged.set(name.replace(/^--/, ''), value);
  }
  const args: string[] = [];
  for (const [name, value] of merged) {
    if (value === null) continue;
    for (const one of typeof value === 'string' ? [value] : value) args.push(`--${name}=${one}`);
  }
  return args;
}

/** Flags a binary's `--help` lists, so envtest only passes flags the installed version knows. */
const helpCache = new Map<string, Promise<ReadonlySet<string>>>();

/** The flags `binary --help` lists (read once per binary). */
export function knownFlags(binary: string): Promise<ReadonlySet<string>> {
  let cached = helpCache.get(binary);
  if (!cached) {
    cached = new Promise((resolve) => {
      execFile(
        binary,
        ['--help'],
        { timeout: 20_000, maxBuffer: 16 * 1024 * 1024, env: childEnv() },
        (_error, stdout, stderr) => {
          // Some versions exit non-zero after printing help; the text is what matters.
          const flags = new Set<string>();
          for (const match of `${stdout}\n${stderr}`.matchAll(/--([a-z0-9][a-z0-9-]*)/g)) {
            if (match[1] !== undefined) flags.add(match[1]);
          }
          resolve(flags);
        },
      );
    });
    helpCache.set(binary, cached);
  }
  return cached;
}
