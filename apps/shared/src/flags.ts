import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { errorMessage } from './klog.ts';

/** A flag taking a value: `--name value` or `--name=value`. */
export interface StringFlag {
  readonly type: 'string';
  readonly description: string;
  readonly default?: string;
  /**
   * Turns the text into the flag's value (e.g. {@link positiveInt}, {@link duration}); a
   * throw becomes a {@link FlagError} naming the flag. The default is parsed too.
   */
  readonly parse?: (value: string) => unknown;
}

/** A switch: `--name`. */
export interface BooleanFlag {
  readonly type: 'boolean';
  readonly description: string;
}

export type FlagSpec = StringFlag | BooleanFlag;
export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

type Parsed<S> = S extends { readonly parse: (value: string) => infer T } ? T : string;

type FlagValue<S extends FlagSpec> = S extends BooleanFlag
  ? boolean
  : S extends { readonly default: string }
    ? Parsed<S>
    : Parsed<S> | undefined;

/** The parsed flags: one property per flag, plus the positional arguments in `args`. */
export type Flags<S extends FlagSpecs> = { readonly [K in keyof S]: FlagValue<S[K]> } & {
  readonly args: readonly string[];
};

/** The flags of every app: where the cluster is (as in the seeds), and the demo switch. */
export const clusterFlags = {
  kubeconfig: { type: 'string', description: 'absolute path to the kubeconfig file' },
  master: {
    type: 'string',
    description: 'master url (overrides the server of the kubeconfig)',
  },
  demo: {
    type: 'boolean',
    description:
      'run on the embedded in-memory API server with the scripted demo, even when a cluster is configured',
  },
} as const satisfies FlagSpecs;

/** What the usage text says about a program. */
export interface Command {
  /** The program's name, e.g. `pod-controller`. */
  readonly name: string;
  /** One line saying what it does. */
  readonly summary: string;
  /** The positional arguments, e.g. `[resource]`. */
  readonly args?: string;
  /** Lines shown after the flags (what positional arguments mean, examples). */
  readonly details?: string;
}

/** A command line that cannot be parsed; `parseFlags` prints it with the usage and exits 2. */
export class FlagError extends Error {
  override readonly name = 'FlagError';
}

/** The usage text: synopsis, summary, and every flag with its default. */
export function usage(command: Command, specs: FlagSpecs): string {
  const lines = [
    `Usage: node src/main.ts [flags]${command.args ? ` ${command.args}` : ''}`,
    '',
    command.summary,
    '',
    'Flags:',
  ];
  const all: FlagSpecs = {
    ...clusterFlags,
    ...specs,
    help: { type: 'boolean', description: 'show this help' },
  };
  for (const [name, spec] of Object.entries(all)) {
    const left = spec.type === 'string' ? `--${name} <value>` : `--${name}`;
    const def =
      spec.type === 'string' && spec.default !== undefined ? ` (default ${spec.default})` : '';
    lines.push(`  ${left.padEnd(24)} ${spec.description}${def}`);
  }
  if (command.details) lines.push('', command.details);
  return `${lines.join('\n')}\n`;
}

/**
 * Parses `argv` against the cluster flags and `specs`, as Go's `flag` package would (long
 * options with two dashes). Throws {@link FlagError} for an unknown flag, a missing value,
 * a value its `parse` function refuses, and, when `command.args` is not set, for positional
 * arguments. `--help` / `-h` gives `help: true`.
 */
export function parseCommandLine<const S extends FlagSpecs>(
  command: Command,
  specs: S,
  argv: readonly string[],
): Flags<typeof clusterFlags & S> & { readonly help: boolean } {
  const all: FlagSpecs = { ...clusterFlags, ...specs };
  const options: ParseArgsOptionsConfig = { help: { type: 'boolean', short: 'h' } };
  for (const [name, spec] of Object.entries(all)) {
    options[name] =
      spec.type === 'string' && spec.default !== undefined
        ? { type: 'string', default: spec.default }
        : { type: spec.type };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options,
      strict: true,
      allowPositionals: command.args !== undefined,
    });
  } catch (err) {
    throw new FlagError(errorMessage(err));
  }
  const values: Record<string, unknown> = { args: parsed.positionals, help: false };
  for (const name of Object.keys(options)) {
    const value = parsed.values[name];
    const spec = all[name];
    if (spec?.type === 'boolean' || name === 'help') {
      values[name] = value === true;
    } else if (typeof value === 'string' && spec?.parse) {
      try {
        values[name] = spec.parse(value);
      } catch (err) {
        throw new FlagError(`invalid value "${value}" for flag --${name}: ${errorMessage(err)}`);
      }
    } else {
      values[name] = value;
    }
  }
  return values as Flags<typeof clusterFlags & S> & { readonly help: boolean };
}

/**
 * Parses `process.argv` against the cluster flags (`--kubeconfig`, `--master`, `--demo`) and
 * the app's own `specs`. `--help` prints the usage and exits 0; a bad command line prints the
 * error and the usage to stderr and exits 2, as Go's `flag.Parse` does.
 *
 * ```ts
 * const flags = parseFlags({ name: 'pod-controller', summary: '...' }, {
 *   threadiness: { type: 'string', default: '1', parse: positiveInt, description: 'number of workers' },
 * });
 * flags.kubeconfig; // string | undefined
 * flags.threadiness; // number
 * ```
 */
export function parseFlags<const S extends FlagSpecs>(
  command: Command,
  specs: S,
  argv: readonly string[] = process.argv.slice(2),
): Flags<typeof clusterFlags & S> {
  try {
    const flags = parseCommandLine(command, specs, argv);
    if (flags.help) {
      process.stdout.write(usage(command, specs));
      process.exit(0);
    }
    return flags;
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    process.stderr.write(`${command.name}: ${err.message}\n\n${usage(command, specs)}`);
    process.exit(2);
  }
}

/** A flag parser: a whole number ≥ 1 (e.g. `--threadiness`). */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new Error('want a whole number ≥ 1');
  }
  return n;
}

const durationUnits: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * A flag parser: a Go-style duration (`60s`, `2s`, `1m30s`, `500ms`, `0`) in milliseconds, as
 * the Go programs' `time.Duration` flags accept.
 */
export function duration(value: string): number {
  const text = value.trim();
  if (text === '0') return 0;
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h)/y;
  let total = 0;
  let index = 0;
  while (index < text.length) {
    part.lastIndex = index;
    const match = part.exec(text);
    if (!match) break;
    total += Number(match[1]) * (durationUnits[match[2] ?? ''] ?? Number.NaN);
    index = part.lastIndex;
  }
  if (text === '' || index !== text.length || !Number.isFinite(total)) {
    throw new Error('want a duration such as 60s, 2s, 1m30s or 500ms');
  }
  return Math.round(total);
}
