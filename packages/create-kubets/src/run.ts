import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultOptions, ScaffoldError } from './names.js';
import { createProject } from './project.js';

/** Where the command line writes, and the folder it resolves the target against. */
export interface CliIo {
  /** Writes to standard output. */
  stdout(text: string): void;
  /** Writes to standard error. */
  stderr(text: string): void;
  /** The current folder. */
  cwd: string;
}

const usage = `Usage: npm create kubets@latest <directory> -- [--group G] [--kind K] [--version V]

Creates a Kubernetes operator project on kubets in <directory> (a new or empty folder, whose
name is the project's): a CRD declared in TypeScript, a reconciler, unit tests on the in-memory
API server, an envtest e2e test, a Dockerfile and the manifests script.

Options:
  --group G     the custom resource's API group (default ${defaultOptions.group})
  --kind K      its kind, PascalCase (default ${defaultOptions.kind})
  --version V   its version (default ${defaultOptions.version})
  --name N      the project's name (default the folder's name)
  -h, --help    this text
`;

/** Runs `create-kubets` with `argv` (the arguments after the command); resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    io.stderr(`create-kubets: ${(err as Error).message}\n\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(usage);
    return 0;
  }
  if (positionals.length !== 1) {
    io.stderr(`create-kubets: expected one directory, got ${positionals.length}\n\n${usage}`);
    return 2;
  }
  const directory = path.resolve(io.cwd, positionals[0] ?? '');
  try {
    const written = await createProject(directory, {
      name: values.name,
      group: values.group,
      kind: values.kind,
      version: values.version,
    });
    const shown = path.relative(io.cwd, directory) || '.';
    io.stdout(
      `Created ${shown} (${written.length} files).\n\nNext:\n  cd ${shown}\n  npm install\n  npm test\n`,
    );
    return 0;
  } catch (err) {
    if (!(err instanceof ScaffoldError)) throw err;
    io.stderr(`create-kubets: ${err.message}\n`);
    return 1;
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      group: { type: 'string' },
      kind: { type: 'string' },
      version: { type: 'string' },
      name: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
