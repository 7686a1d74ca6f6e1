// Shared by the code generators of @kubets/clientset and @kubets/informers: formatting the
// generated sources through the repository's Biome, and the `scripts/generate.ts` driver
// (write, `--check`, stale files). Runs under Node's type stripping (no build step) and inside
// vitest, so only erasable TypeScript here.

import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Generated files: contents by path relative to the package directory, sorted by path. */
export type GeneratedFiles = ReadonlyMap<string, string>;

function biomeEntry(packageDir: string): string {
  const require = createRequire(join(packageDir, 'package.json'));
  return join(dirname(require.resolve('@biomejs/biome/package.json')), 'bin', 'biome');
}

/**
 * Formats one file with the repository's Biome (organize imports + format), via stdin, run in
 * `packageDir` so the repository's `biome.json` applies. `path` (relative to `packageDir`) only
 * tells Biome the language and appears in errors.
 */
export function formatWithBiome(packageDir: string, path: string, source: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      process.execPath,
      [biomeEntry(packageDir), 'check', '--write', `--stdin-file-path=${path}`],
      { cwd: packageDir, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) {
        resolvePromise(Buffer.concat(stdout).toString('utf8'));
      } else {
        const message = Buffer.concat(stderr).toString('utf8').trim();
        reject(new Error(`biome could not format ${path} (exit ${code}): ${message}`));
      }
    });
    child.stdin.end(source);
  });
}

/** Formats every file with {@link formatWithBiome}, keeping the order of `files`. */
export async function formatFiles(
  packageDir: string,
  files: ReadonlyMap<string, string>,
): Promise<Map<string, string>> {
  const entries = [...files];
  const formatted = await Promise.all(
    entries.map(([path, source]) => formatWithBiome(packageDir, path, source)),
  );
  return new Map(entries.map(([path], index) => [path, formatted[index] ?? '']));
}

/** The `.ts` files now in `generatedDir`, as paths relative to the package, sorted. */
export function listGeneratedFiles(packageDir: string, generatedDir: string): string[] {
  try {
    return readdirSync(join(packageDir, generatedDir))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `${generatedDir}/${name}`)
      .sort();
  } catch {
    return [];
  }
}

/**
 * How the files on disk differ from `files`: one line per missing, out-of-date or stale
 * (in `generatedDir` but no longer generated) file; empty when they match.
 */
export function diffGeneratedFiles(
  packageDir: string,
  generatedDir: string,
  files: GeneratedFiles,
): string[] {
  const problems: string[] = [];
  for (const [path, content] of files) {
    let current: string | undefined;
    try {
      current = readFileSync(join(packageDir, path), 'utf8');
    } catch {
      current = undefined;
    }
    if (current === undefined) problems.push(`missing: ${path}`);
    else if (current !== content) problems.push(`out of date: ${path}`);
  }
  for (const path of listGeneratedFiles(packageDir, generatedDir)) {
    if (!files.has(path)) problems.push(`stale (no longer generated): ${path}`);
  }
  return problems;
}

/** What {@link runGenerator} generates, and where. */
export interface Generator {
  /** What the code is, for messages: `clientset` → "generated clientset code is up to date". */
  name: string;
  /** The package's name, for the hint printed when `--check` fails. */
  packageName: string;
  /** The package directory; every path is relative to it. */
  packageDir: string;
  /** The directory the generator owns (`src/generated`): its other `.ts` files are stale. */
  generatedDir: string;
  /** The contents of every generated file, by path relative to the package. */
  render(): Promise<GeneratedFiles>;
}

export interface RunOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

const processOutput: RunOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/**
 * The `scripts/generate.ts` driver. Without arguments it writes every rendered file and
 * removes stale ones; with `--check` it writes nothing and returns 1, listing the differences,
 * when the files on disk are not what the generator renders. Returns the exit code (2 for
 * unknown arguments).
 */
export async function runGenerator(
  generator: Generator,
  argv: readonly string[],
  output: RunOutput = processOutput,
): Promise<number> {
  const check = argv.includes('--check');
  const unknown = argv.filter((arg) => arg !== '--check' && arg !== '--');
  if (unknown.length > 0) {
    output.stderr(`generate: unknown arguments: ${unknown.join(' ')}\nusage: generate [--check]\n`);
    return 2;
  }
  const { name, packageName, packageDir, generatedDir } = generator;
  const files = await generator.render();
  if (check) {
    const problems = diffGeneratedFiles(packageDir, generatedDir, files);
    if (problems.length > 0) {
      output.stderr(
        `generated ${name} code is out of date:\n  ${problems.join('\n  ')}\nrun: pnpm --filter ${packageName} generate\n`,
      );
      return 1;
    }
    output.stdout(`generated ${name} code is up to date (${files.size} files)\n`);
    return 0;
  }
  const stale = listGeneratedFiles(packageDir, generatedDir).filter((path) => !files.has(path));
  mkdirSync(join(packageDir, generatedDir), { recursive: true });
  for (const path of stale) rmSync(join(packageDir, path));
  for (const [path, content] of files) writeFileSync(join(packageDir, path), content);
  output.stdout(`wrote ${files.size} files to ${generatedDir}\n`);
  return 0;
}
