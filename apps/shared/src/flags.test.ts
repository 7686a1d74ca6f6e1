import { describe, expect, it } from 'vitest';
import { duration, FlagError, parseCommandLine, positiveInt, usage } from './flags.ts';

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

describe('usage', () => {
  it('lists every flag with its default', () => {
    const text = usage(command, specs);
    expect(text).toContain('Usage: node src/main.ts [flags]');
    expect(text).toMatch(/--kubeconfig <value> +absolute path to the kubeconfig file/);
    expect(text).toMatch(/--master <value> +master url/);
    expect(text).toMatch(/--threadiness <value> +number of workers \(default 1\)/);
    expect(text).toMatch(/--demo +run on the embedded/);
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
