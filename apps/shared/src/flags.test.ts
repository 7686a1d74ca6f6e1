import { describe, expect, it } from 'vitest';
import {
  duration,
  FlagError,
  logLevel,
  parseCommandLine,
  positiveInt,
  severityThreshold,
  usage,
} from './flags.ts';

const command = { name: 'pod-controller', summary: 'A Pod controller.' };
const specs = {
  threadiness: {
    type: 'string',
    default: '1',
    parse: positiveInt,
    description: 'number of workers',
  },
  'fail-pod': { type: 'string', description: 'pod whose sync fails' },
  resync: { type: 'string', parse: duration, description: 'resync period' },
} as const;

describe('parseCommandLine', () => {
  it('gives the cluster flags, defaults (parsed) and unset flags', () => {
    const flags = parseCommandLine(command, specs, []);
    expect(flags.kubeconfig).toBeUndefined();
    expect(flags.master).toBeUndefined();
    expect(flags.demo).toBe(false);
    expect(flags.help).toBe(false);
    expect(flags.threadiness).toBe(1);
    expect(flags['fail-pod']).toBeUndefined();
    expect(flags.resync).toBeUndefined();
    expect(flags.args).toEqual([]);
  });

  it('parses --name value and --name=value, switches, and parse functions', () => {
    const flags = parseCommandLine(command, specs, [
      '--kubeconfig',
      '/tmp/kubeconfig',
      '--master=https://127.0.0.1:6443',
      '--threadiness',
      '3',
      '--fail-pod=broken',
      '--resync',
      '1m30s',
      '--demo',
    ]);
    expect(flags.kubeconfig).toBe('/tmp/kubeconfig');
    expect(flags.master).toBe('https://127.0.0.1:6443');
    expect(flags.threadiness).toBe(3);
    expect(flags['fail-pod']).toBe('broken');
    expect(flags.resync).toBe(90_000);
    expect(flags.demo).toBe(true);
  });

  it('refuses unknown flags, missing values, bad values and unexpected arguments', () => {
    expect(() => parseCommandLine(command, specs, ['--nope'])).toThrow(FlagError);
    expect(() => parseCommandLine(command, specs, ['--kubeconfig'])).toThrow(FlagError);
    expect(() => parseCommandLine(command, specs, ['--threadiness', '0'])).toThrow(
      'invalid value "0" for flag --threadiness: want a whole number ≥ 1',
    );
    expect(() => parseCommandLine(command, specs, ['--resync', '5'])).toThrow(
      /invalid value "5" for flag --resync: want a duration/,
    );
    expect(() => parseCommandLine(command, specs, ['extra'])).toThrow(FlagError);
  });

  it('takes positional arguments when the command declares them', () => {
    const flags = parseCommandLine({ ...command, args: '[resource]' }, {}, ['deployments.v1.apps']);
    expect(flags.args).toEqual(['deployments.v1.apps']);
  });

  it('reports --help and -h', () => {
    expect(parseCommandLine(command, specs, ['--help']).help).toBe(true);
    expect(parseCommandLine(command, specs, ['-h']).help).toBe(true);
  });
});

// Go's flag package, as its flag_test.go (TestParse, TestParseError, the "--" and "-"
// handling of parseOne) pins it down, ported to these flags: `flag` is a switch, `kubeconfig`,
// `fail-pod` strings, `threadiness` a parsed value, `v` klog's level.
const goCommand = { ...command, args: '[arg...]' };
const goSpecs = { ...specs, flag: { type: 'boolean', description: 'a switch' } } as const;

describe("parseCommandLine follows Go's flag package", () => {
  const accepted: ReadonlyArray<{
    readonly name: string;
    readonly argv: readonly string[];
    readonly want: Readonly<Record<string, unknown>>;
  }> = [
    { name: 'one dash, =value', argv: ['-kubeconfig=/k'], want: { kubeconfig: '/k', args: [] } },
    { name: 'one dash, value next', argv: ['-kubeconfig', '/k'], want: { kubeconfig: '/k' } },
    { name: 'two dashes, =value', argv: ['--kubeconfig=/k'], want: { kubeconfig: '/k' } },
    { name: 'two dashes, value next', argv: ['--kubeconfig', '/k'], want: { kubeconfig: '/k' } },
    { name: 'empty value after =', argv: ['-fail-pod='], want: { 'fail-pod': '' } },
    { name: 'a value may look like a flag', argv: ['-fail-pod', '-x'], want: { 'fail-pod': '-x' } },
    { name: 'a value may contain =', argv: ['-fail-pod=a=b'], want: { 'fail-pod': 'a=b' } },
    { name: 'the last occurrence wins', argv: ['-v=2', '--v', '5'], want: { v: 5 } },
    { name: 'a switch alone', argv: ['-flag'], want: { flag: true } },
    { name: 'a switch, two dashes', argv: ['--flag'], want: { flag: true } },
    { name: 'switch =true', argv: ['-flag=true'], want: { flag: true } },
    { name: 'switch =false', argv: ['-flag=true', '-flag=false'], want: { flag: false } },
    { name: 'switch =1 / =0', argv: ['-flag=1', '-demo=0'], want: { flag: true, demo: false } },
    { name: 'switch =t, =F, =TRUE', argv: ['-flag=t', '-demo=TRUE'], want: { flag: true } },
    {
      name: 'a switch does not take the next argument',
      argv: ['-flag', 'false', '-v=3'],
      want: { flag: true, args: ['false', '-v=3'], v: 0 },
    },
    {
      name: 'flags stop at a positional',
      argv: ['a', '-flag'],
      want: { flag: false, args: ['a', '-flag'] },
    },
    {
      name: '"-" is a positional',
      argv: ['-flag', '-', '-v=1'],
      want: { flag: true, args: ['-', '-v=1'] },
    },
    {
      name: '"--" ends the flags',
      argv: ['-flag', '--', '-v=1'],
      want: { flag: true, args: ['-v=1'] },
    },
    { name: '"--" alone', argv: ['--'], want: { args: [] } },
    { name: 'a positional after a value', argv: ['-v', '2', 'x'], want: { v: 2, args: ['x'] } },
    {
      name: 'seed 003: crddemo',
      argv: [
        '--kubeconfig=/etc/k.kubeconfig',
        '--master=http://127.0.0.1:8080',
        '-alsologtostderr=true',
      ],
      want: {
        kubeconfig: '/etc/k.kubeconfig',
        master: 'http://127.0.0.1:8080',
        alsologtostderr: true,
      },
    },
    {
      name: "klog's defaults",
      argv: [],
      want: { v: 0, logtostderr: true, alsologtostderr: false, stderrthreshold: 2 },
    },
    {
      name: "klog's flags",
      argv: ['-v=4', '-logtostderr=false', '-alsologtostderr', '-stderrthreshold=WARNING'],
      want: { v: 4, logtostderr: false, alsologtostderr: true, stderrthreshold: 1 },
    },
    {
      name: '-stderrthreshold as a number',
      argv: ['--stderrthreshold', '3'],
      want: { stderrthreshold: 3 },
    },
    { name: '-help', argv: ['-help'], want: { help: true } },
    { name: '--h', argv: ['--h'], want: { help: true } },
  ];
  it.each(accepted)('accepts $name', ({ argv, want }) => {
    const flags = parseCommandLine(goCommand, goSpecs, argv) as unknown as Record<string, unknown>;
    for (const [name, value] of Object.entries(want)) expect(flags[name], name).toEqual(value);
  });

  const refused: ReadonlyArray<{ readonly argv: readonly string[]; readonly error: string }> = [
    { argv: ['-x'], error: 'flag provided but not defined: -x' },
    { argv: ['--nope=1'], error: 'flag provided but not defined: --nope' },
    { argv: ['-a', '-alsologtostderr'], error: 'flag provided but not defined: -a' },
    { argv: ['---flag'], error: 'bad flag syntax: ---flag' },
    { argv: ['-=x'], error: 'bad flag syntax: -=x' },
    { argv: ['--=x'], error: 'bad flag syntax: --=x' },
    { argv: ['-kubeconfig'], error: 'flag needs an argument: -kubeconfig' },
    { argv: ['-flag', '--v'], error: 'flag needs an argument: --v' },
    { argv: ['-flag=maybe'], error: 'invalid boolean value "maybe" for -flag: want true or false' },
    { argv: ['-flag='], error: 'invalid boolean value "" for -flag: want true or false' },
    { argv: ['-v=-1'], error: 'invalid value "-1" for flag -v: want a whole number ≥ 0' },
    { argv: ['-v', 'high'], error: 'invalid value "high" for flag -v: want a whole number ≥ 0' },
    {
      argv: ['-stderrthreshold=DEBUG'],
      error:
        'invalid value "DEBUG" for flag -stderrthreshold: want INFO, WARNING, ERROR, FATAL or 0-3',
    },
    {
      argv: ['-threadiness=0'],
      error: 'invalid value "0" for flag -threadiness: want a whole number ≥ 1',
    },
  ];
  it.each(refused)('refuses $argv with "$error"', ({ argv, error }) => {
    let thrown: unknown;
    try {
      parseCommandLine(goCommand, goSpecs, argv);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(FlagError);
    expect((thrown as FlagError).message).toBe(error);
  });

  it('refuses positional arguments a command does not declare, also after "--"', () => {
    expect(() => parseCommandLine(command, specs, ['--', 'x'])).toThrow(
      'unexpected argument "x": pod-controller takes flags only',
    );
  });
});

describe("klog's flag values", () => {
  it('parses -v and -stderrthreshold', () => {
    expect(logLevel('0')).toBe(0);
    expect(logLevel('10')).toBe(10);
    for (const bad of ['', '-1', '1.5', 'x']) expect(() => logLevel(bad)).toThrow();
    expect(severityThreshold('info')).toBe(0);
    expect(severityThreshold('WARNING')).toBe(1);
    expect(severityThreshold('Error')).toBe(2);
    expect(severityThreshold('FATAL')).toBe(3);
    expect(severityThreshold('2')).toBe(2);
    for (const bad of ['', '4', 'WARN', '-1']) expect(() => severityThreshold(bad)).toThrow();
  });
});

describe('usage', () => {
  it('lists every flag with its default', () => {
    const text = usage(command, specs);
    expect(text).toContain('Usage: node src/main.ts [flags]');
    expect(text).toMatch(/--kubeconfig <value> +absolute path to the kubeconfig file/);
    expect(text).toMatch(/--master <value> +master url/);
    expect(text).toMatch(/--threadiness <value> +number of workers \(default 1\)/);
    expect(text).toMatch(/--demo +run on the embedded/);
    expect(text).toMatch(/--v <value> +number for the log level verbosity.*\(default 0\)/);
    expect(text).toMatch(/--logtostderr +log to standard error instead of files \(default true\)/);
    expect(text).toMatch(/--alsologtostderr +log to standard error as well as files$/m);
    expect(text).toMatch(/--stderrthreshold <value> +logs at or above.*\(default ERROR\)/);
  });
});

describe('duration and positiveInt', () => {
  it('parses Go durations into milliseconds', () => {
    expect(duration('60s')).toBe(60_000);
    expect(duration('2s')).toBe(2_000);
    expect(duration('500ms')).toBe(500);
    expect(duration('1m30s')).toBe(90_000);
    expect(duration('1.5h')).toBe(5_400_000);
    expect(duration('0')).toBe(0);
    for (const bad of ['', '5', 's', '1x', '2s3', '-1s']) expect(() => duration(bad)).toThrow();
  });

  it('accepts whole numbers from 1', () => {
    expect(positiveInt('1')).toBe(1);
    expect(positiveInt('16')).toBe(16);
    for (const bad of ['0', '-1', '1.5', 'two', '']) expect(() => positiveInt(bad)).toThrow();
  });
});
