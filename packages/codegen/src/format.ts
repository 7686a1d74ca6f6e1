import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Formats one generated file: `(path relative to the output directory, source) → formatted`. */
export type Formatter = (path: string, source: string) => Promise<string>;

/** Raised when Biome is needed but cannot be found or fails. */
export class FormatterError extends Error {
  /** Always `'FormatterError'`. */
  override readonly name = 'FormatterError';
}

/**
 * The path of Biome's launcher script (`@biomejs/biome/bin/biome`), looked up from each of
 * `from` in turn and then from this package; `undefined` when it is not installed.
 */
export function findBiome(from: readonly string[] = []): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const dir of [...from, here]) {
    try {
      const require = createRequire(join(resolve(dir), 'noop.js'));
      const pkg = require.resolve('@biomejs/biome/package.json');
      const bin = join(dirname(pkg), 'bin', 'biome');
      if (existsSync(bin)) return bin;
    } catch {
      // not installed there; try the next place
    }
  }
  return undefined;
}

/** The nearest existing directory at or above `dir`. */
function existingDir(dir: string): string {
  let current = resolve(dir);
  while (!existsSync(current)) {
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return current;
}

/**
 * A formatter that runs Biome (`biome check --write --stdin-file-path=...`: organize imports,
 * safe fixes and format) on each file through stdin, so generated code is exactly what
 * `biome check --write` would leave in `outDir` — under the Biome configuration found from
 * there. Biome is found from `outDir`, the current directory, then this package.
 *
 * @throws {FormatterError} (when called) if Biome is not installed or rejects the file.
 */
export function biomeFormatter(outDir: string = process.cwd()): Formatter {
  const cwd = existingDir(outDir);
  const bin = findBiome([cwd, process.cwd()]);
  return (path, source) =>
    new Promise((resolvePromise, reject) => {
      if (bin === undefined) {
        reject(
          new FormatterError(
            'kubets-gen formats its output with Biome, which is not installed: add @biomejs/biome to your devDependencies, or pass --no-format (API: format: false)',
          ),
        );
        return;
      }
      const child = spawn(
        process.execPath,
        [bin, 'check', '--write', `--stdin-file-path=${join(cwd, path)}`],
        { cwd, stdio: ['pipe', 'pipe', 'pipe'] },
      );
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
      child.once('error', (err) => reject(new FormatterError(`cannot run Biome: ${err.message}`)));
      child.once('close', (code) => {
        if (code === 0) {
          resolvePromise(Buffer.concat(stdout).toString('utf8'));
          return;
        }
        const message =
          `${Buffer.concat(stderr).toString('utf8')}${Buffer.concat(stdout).toString('utf8')}`.trim();
        reject(new FormatterError(`Biome could not format ${path} (exit ${code}):\n${message}`));
      });
      child.stdin.end(source);
    });
}
