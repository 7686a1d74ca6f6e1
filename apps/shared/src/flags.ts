import { configureKlog, errorMessage, type KlogSettings } from './klog.ts';

/** A flag taking a value: `-name value`, `-name=value`, `--name value` or `--name=value`. */
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

/** A switch: `-name`, `--name`, or `-name=true|false` (never `-name false`, as in Go). */
export interface BooleanFlag {
  readonly type: 'boolean';
  readonly description: string;
  /** The value when the flag is not given; `false` unless set. */
  readonly default?: boolean;
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

/**
 * klog's log level: a whole number ≥ 0 (`-v=4`). klog's `V(n)` lines are written when
 * `-v` is at least n.
 */
export function logLevel(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) {
    throw new Error('want a whole number ≥ 0');
  }
  return n;
}

const severityNames: Readonly<Record<string, number>> = {
  INFO: 0,
  WARNING: 1,
  ERROR: 2,
  FATAL: 3,
};

/** klog's `-stderrthreshold`: INFO, WARNING, ERROR, FATAL (any case) or 0-3, as a number. */
export function severityThreshold(value: string): number {
  const text = value.trim();
  const named = severityNames[text.toUpperCase()];
  if (named !== undefined) return named;
  if (/^[0-3]$/.test(text)) return Number(text);
  throw new Error('want INFO, WARNING, ERROR, FATAL or 0-3');
}

/**
 * klog's flags, which every klog program has (`klog.InitFlags`). The apps log to stderr
 * only: with `-logtostderr` (the default) every line goes there; with `-logtostderr=false`
 * and without `-alsologtostderr`, only lines at or above `-stderrthreshold` do (klog would
 * write the rest to log files; the apps write none).
 */
export const klogFlags = {
  v: {
    type: 'string',
    default: '0',
    parse: logLevel,
    description: "number for the log level verbosity (from 4: the libraries' debug lines)",
  },
  logtostderr: {
    type: 'boolean',
    default: true,
    description: 'log to standard error instead of files',
  },
  alsologtostderr: {
    type: 'boolean',
    description: 'log to standard error as well as files',
  },
  stderrthreshold: {
    type: 'string',
    default: 'ERROR',
    parse: severityThreshold,
    description:
      'logs at or above this threshold go to stderr (INFO, WARNING, ERROR, FATAL or 0-3; every line does with -logtostderr)',
  },
} as const satisfies FlagSpecs;

/** The flags every app has, before its own. */
export type CommonFlags = typeof clusterFlags & typeof klogFlags;

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
    'Flags (one dash or two; -name=value or -name value; switches as -name or -name=false):',
  ];
  const all: FlagSpecs = {
    ...clusterFlags,
    ...specs,
    ...klogFlags,
    help: { type: 'boolean', description: 'show this help' },
  };
  for (const [name, spec] of Object.entries(all)) {
    const left = spec.type === 'string' ? `--${name} <value>` : `--${name}`;
    const def =
      spec.default !== undefined && spec.default !== false ? ` (default ${spec.default})` : '';
    lines.push(`  ${left.padEnd(26)} ${spec.description}${def}`);
  }
  if (command.details) lines.push('', command.details);
  return `${lines.join('\n')}\n`;
}

/** Go's `strconv.ParseBool`. */
function parseBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(text)) return false;
  return undefined;
}

function parseValue(spec: StringFlag, text: string, shown: string): unknown {
  if (!spec.parse) return text;
  try {
    return spec.parse(text);
  } catch (err) {
    throw new FlagError(`invalid value "${text}" for flag ${shown}: ${errorMessage(err)}`);
  }
}

/**
 * Parses `argv` against the cluster flags, klog's flags and `specs` as Go's `flag` package
 * does: a flag has one dash or two (`-v`, `--v`); a value follows `=` or comes as the next
 * argument (`-kubeconfig=PATH`, `-kubeconfig PATH`); a switch is `-name` or
 * `-name=true|false` (also 1/0, t/f) and never takes the next argument; the last occurrence
 * of a flag wins; flags end at the first argument that is not one (`-` alone included) or
 * after `--`. Throws {@link FlagError} for an unknown flag (`flag provided but not defined:
 * -x`), a missing value, a value its `parse` function refuses, and, when `command.args` is not
 * set, for positional arguments. `-help`, `--help`, `-h` give `help: true`.
 */
export function parseCommandLine<const S extends FlagSpecs>(
  command: Command,
  specs: S,
  argv: readonly string[],
): Flags<CommonFlags & S> & { readonly help: boolean } {
  const all: FlagSpecs = { ...clusterFlags, ...klogFlags, ...specs };
  const given = new Map<string, unknown>();
  let help = false;
  let index = 0;
  while (index < argv.length) {
    const arg = argv[index] ?? '';
    if (arg.length < 2 || !arg.startsWith('-')) break; // the first positional argument
    const dashes = arg.startsWith('--') ? 2 : 1;
    index += 1;
    if (arg === '--') break; // "--" ends the flags
    let name = arg.slice(dashes);
    if (name === '' || name.startsWith('-') || name.startsWith('=')) {
      throw new FlagError(`bad flag syntax: ${arg}`);
    }
    let value: string | undefined;
    const equals = name.indexOf('=');
    if (equals > 0) {
      value = name.slice(equals + 1);
      name = name.slice(0, equals);
    }
    const shown = `${'-'.repeat(dashes)}${name}`;
    const spec = Object.hasOwn(all, name) ? all[name] : undefined;
    if (spec === undefined) {
      if (name === 'help' || name === 'h') {
        help = true;
        continue;
      }
      throw new FlagError(`flag provided but not defined: ${shown}`);
    }
    if (spec.type === 'boolean') {
      const on = value === undefined ? true : parseBool(value);
      if (on === undefined) {
        throw new FlagError(`invalid boolean value "${value}" for ${shown}: want true or false`);
      }
      given.set(name, on);
      continue;
    }
    if (value === undefined) {
      if (index >= argv.length) throw new FlagError(`flag needs an argument: ${shown}`);
      value = argv[index] ?? '';
      index += 1;
    }
    given.set(name, parseValue(spec, value, shown));
  }
  const positionals = argv.slice(index);
  if (command.args === undefined && positionals.length > 0) {
    throw new FlagError(
      `unexpected argument "${positionals[0]}": ${command.name} takes flags only`,
    );
  }
  const values: Record<string, unknown> = { args: positionals, help };
  for (const [name, spec] of Object.entries(all)) {
    if (given.has(name)) values[name] = given.get(name);
    else if (spec.type === 'boolean') values[name] = spec.default ?? false;
    else if (spec.default !== undefined) values[name] = parseValue(spec, spec.default, `--${name}`);
    else values[name] = undefined;
  }
  return values as Flags<CommonFlags & S> & { readonly help: boolean };
}

/**
 * Parses `process.argv` against the cluster flags (`--kubeconfig`, `--master`, `--demo`),
 * klog's flags (`-v`, `-logtostderr`, `-alsologtostderr`, `-stderrthreshold`, applied to the
 * klog logger at once) and the app's own `specs`, as {@link parseCommandLine}. `--help`
 * prints the usage and exits 0; a bad command line prints the error and the usage to stderr
 * and exits 2, as Go's `flag.Parse` does.
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
): Flags<CommonFlags & S> {
  try {
    const flags = parseCommandLine(command, specs, argv);
    if (flags.help) {
      process.stdout.write(usage(command, specs));
      process.exit(0);
    }
    // klog's flags have the types of klogFlags (an app's specs do not redefine them)
    configureKlog(flags as unknown as KlogSettings);
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
