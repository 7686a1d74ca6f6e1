import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { CodegenError } from './errors.js';
import { FormatterError } from './format.js';
import { type CrdSource, compareWithDirectory, generate, writeFiles } from './generate.js';
import type { ImportExtension } from './render.js';

/** The usage text of `kubets-gen`. */
export const usage = `usage: kubets-gen --crd <file.yaml>... --out <dir> [options]

Generates TypeScript (types, resource descriptor, typed client, informer, lister) for every
served version of the CustomResourceDefinitions in the given YAML files.

  --crd <file>...          CRD YAML file(s); repeat the flag or list several files after it
  --out <dir>              output directory (files are written as <group>/<version>/*.ts + index.ts)
  --check                  write nothing; exit 1 listing the files that differ from the output
  --import-extension <ext> extension of imports between generated files: .js (default) or .ts
  --no-format              do not run Biome on the output
  -h, --help               show this help
`;

/** Where {@link runCli} writes and resolves relative paths. */
export interface CliIO {
  /** Receives normal output (the list of written files). */
  stdout: (text: string) => void;
  /** Receives diagnostics and error messages. */
  stderr: (text: string) => void;
  /** The directory relative paths are resolved against. */
  cwd: string;
}

interface CliArgs {
  crds: string[];
  out: string;
  check: boolean;
  format: boolean;
  importExtension: ImportExtension;
}

class UsageError extends Error {}

function parseArgs(argv: readonly string[]): CliArgs | 'help' {
  const crds: string[] = [];
  let out: string | undefined;
  let check = false;
  let format = true;
  let importExtension: ImportExtension = '.js';
  let collectingCrds = false;
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!;
    if (raw === '--') continue;
    const eq = raw.startsWith('--') ? raw.indexOf('=') : -1;
    const flag = eq > 0 ? raw.slice(0, eq) : raw;
    const inline = eq > 0 ? raw.slice(eq + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('-')) throw new UsageError(`${flag} needs a value`);
      i++;
      return next;
    };
    if (!flag.startsWith('-')) {
      if (!collectingCrds) throw new UsageError(`unexpected argument "${raw}"`);
      crds.push(raw);
      continue;
    }
    collectingCrds = false;
    switch (flag) {
      case '-h':
      case '--help':
        return 'help';
      case '--crd':
        crds.push(value());
        collectingCrds = true;
        break;
      case '--out':
        out = value();
        break;
      case '--check':
        check = true;
        break;
      case '--no-format':
        format = false;
        break;
      case '--import-extension': {
        const ext = value();
        const normalized = ext.startsWith('.') ? ext : `.${ext}`;
        if (normalized !== '.js' && normalized !== '.ts') {
          throw new UsageError(`--import-extension must be .js or .ts, not "${ext}"`);
        }
        importExtension = normalized;
        break;
      }
      default:
        throw new UsageError(`unknown flag ${flag}`);
    }
  }
  if (crds.length === 0) throw new UsageError('no --crd file given');
  if (out === undefined) throw new UsageError('no --out directory given');
  return { crds, out, check, format, importExtension };
}

/**
 * Runs `kubets-gen` with `argv` (without the node and script paths) and returns the exit
 * code: 0 done (or up to date with `--check`), 1 invalid input or (with `--check`) out of
 * date, 2 bad usage.
 */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  let args: CliArgs | 'help';
  try {
    args = parseArgs(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`kubets-gen: ${err.message}\n${usage}`);
      return 2;
    }
    throw err;
  }
  if (args === 'help') {
    io.stdout(usage);
    return 0;
  }
  const outDir = isAbsolute(args.out) ? args.out : resolve(io.cwd, args.out);
  try {
    const sources: CrdSource[] = args.crds.map((fileName) => {
      let text: string;
      try {
        text = readFileSync(isAbsolute(fileName) ? fileName : resolve(io.cwd, fileName), 'utf8');
      } catch (err) {
        throw new CodegenError(
          { file: fileName, path: [] },
          `cannot read: ${(err as Error).message}`,
        );
      }
      return { fileName, text };
    });
    const files = await generate(sources, {
      format: args.format,
      outDir,
      importExtension: args.importExtension,
    });
    if (args.check) {
      const differences = compareWithDirectory(files, outDir);
      if (differences.length === 0) {
        io.stdout(`kubets-gen: ${args.out} is up to date (${files.size} files)\n`);
        return 0;
      }
      const lines = differences.map((d) => `  ${d.kind}: ${d.path}`).join('\n');
      io.stderr(
        `kubets-gen: generated code in ${args.out} is out of date:\n${lines}\nrun: kubets-gen ${argv.filter((a) => a !== '--check').join(' ')}\n`,
      );
      return 1;
    }
    const differences = writeFiles(files, outDir);
    const count = (kind: string): number => differences.filter((d) => d.kind === kind).length;
    io.stdout(
      `kubets-gen: ${files.size} files in ${args.out} (${count('missing')} new, ${count('changed')} changed, ${count('stale')} removed)\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof CodegenError || err instanceof FormatterError) {
      io.stderr(`kubets-gen: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}
