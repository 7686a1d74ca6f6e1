import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from './run.js';

let cwd: string;
beforeEach(async () => {
  cwd = await mkdtemp(path.join(tmpdir(), 'create-kubets-cli-'));
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    cwd,
  });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

it('creates the project from the directory and the flags, and says what is next', async () => {
  const result = await run(
    'shop-operator',
    '--group',
    'shop.example.org',
    '--kind',
    'Order',
    '--version',
    'v1',
  );
  expect(result).toMatchObject({ code: 0, stderr: '' });
  expect(result.stdout).toBe(
    'Created shop-operator (18 files).\n\nNext:\n  cd shop-operator\n  npm install\n  npm test\n',
  );
  const api = await readFile(path.join(cwd, 'shop-operator/src/api.ts'), 'utf8');
  expect(api).toContain("group: 'shop.example.org',\n  kind: 'Order',");
  expect(api).toContain('export const orderResource = orders.versions.v1;');
});

it('exits 1 naming each broken rule, and writes nothing', async () => {
  const result = await run('op', '--kind', 'web_site', '--group', 'shop');
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('create-kubets: cannot create the project:\n');
  expect(result.stderr).toContain(
    '--group: spec.group: Invalid value: "shop": should be a domain with at least one dot',
  );
  expect(result.stderr).toContain(
    '--kind: spec.names.kind: Invalid value: "web_site": may have mixed case',
  );
  expect(await readdir(cwd)).toEqual([]);
});

it('exits 2 with the usage for a missing directory or an unknown flag', async () => {
  const missing = await run();
  expect(missing.code).toBe(2);
  expect(missing.stderr).toMatch(
    /^create-kubets: expected one directory, got 0\n\nUsage: npm create kubets@latest/,
  );
  const unknown = await run('op', '--knd', 'Website');
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain("Unknown option '--knd'");
});

it('prints the usage for --help', async () => {
  const result = await run('--help');
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('--kind K      its kind, PascalCase (default Website)');
});
