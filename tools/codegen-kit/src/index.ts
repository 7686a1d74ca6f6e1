// The driver of the built-in resources' generator (builtins.ts): formatting the generated
// sources through the repository's Biome, and writing them or, with `--check`, comparing them
// with the committed files (missing, out-of-date and stale files). Runs under Node's type
// stripping (no build step) and inside vitest, so only erasable TypeScript here.

import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { biomeFormatter, compareFileContents } from '@kubets/codegen';

/** Generated files: contents by path relative to the package directory, sorted by path. */
export type GeneratedFiles = ReadonlyMap<string, string>;

/**
 * Formats every file (paths relative to `packageDir`) with the repository's Biome (organize
 * imports + format, via stdin, under the repository's `biome.json`), keeping the order of
 * `files`. The formatter is kubets-gen's (`biomeFormatter` of @kubets/codegen), so built-in and
 * custom-resource code is formatted alike.
 */
export async function formatFiles(
  packageDir: string,
  files: ReadonlyMap<string, string>,
): Promise<Map<string, string>> {
  const format = biomeFormatter(packageDir);
  const entries = [...files];
  const formatted = await Promise.all(entries.map(([path, source]) => format(path, source)));
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
  const problems = compareFileContents(files, packageDir).map(({ path, kind }) =>
    kind === 'missing' ? `missing: ${path}` : `out of date: ${path}`,
  );
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
 * The `generate.ts` driver. Without arguments it writes every rendered file and
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
