import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { diffGeneratedFiles, formatFiles, type Generator, runGenerator } from './index.ts';

const kitDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

let dir: string;
let out: { stdout: string; stderr: string };
const output = {
  stdout: (text: string) => {
    out.stdout += text;
  },
  stderr: (text: string) => {
    out.stderr += text;
  },
};

function generator(files: Record<string, string>): Generator {
  return {
    name: 'demo',
    packageName: '@kubets/demo',
    packageDir: dir,
    generatedDir: 'src/generated',
    render: async () => new Map(Object.entries(files)),
  };
}

function generatedNow(): Record<string, string> {
  const names = readdirSync(join(dir, 'src/generated')).sort();
  return Object.fromEntries(
    names.map((name) => [name, readFileSync(join(dir, 'src/generated', name), 'utf8')]),
  );
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'codegen-kit-'));
  out = { stdout: '', stderr: '' };
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('runGenerator', () => {
  it('writes the rendered files, creating the directory and removing stale .ts files', async () => {
    expect(await runGenerator(generator({ 'src/generated/a.ts': 'a\n' }), [], output)).toBe(0);
    expect(generatedNow()).toEqual({ 'a.ts': 'a\n' });
    writeFileSync(join(dir, 'src/generated/notes.txt'), 'kept');
    const next = generator({ 'src/generated/b.ts': 'b\n', 'src/generated/c.ts': 'c\n' });
    expect(await runGenerator(next, ['--'], output)).toBe(0);
    expect(generatedNow()).toEqual({ 'b.ts': 'b\n', 'c.ts': 'c\n', 'notes.txt': 'kept' });
    expect(out.stdout).toBe('wrote 1 files to src/generated\nwrote 2 files to src/generated\n');
  });

  it('--check lists missing, out-of-date and stale files and writes nothing', async () => {
    mkdirSync(join(dir, 'src/generated'), { recursive: true });
    writeFileSync(join(dir, 'src/generated/same.ts'), 'same\n');
    writeFileSync(join(dir, 'src/generated/old.ts'), 'old\n');
    writeFileSync(join(dir, 'src/generated/gone.ts'), 'gone\n');
    const demo = generator({
      'src/generated/new.ts': 'new\n',
      'src/generated/old.ts': 'old, changed\n',
      'src/generated/same.ts': 'same\n',
    });
    expect(await runGenerator(demo, ['--check'], output)).toBe(1);
    expect(out.stderr).toBe(
      'generated demo code is out of date:\n' +
        '  missing: src/generated/new.ts\n' +
        '  out of date: src/generated/old.ts\n' +
        '  stale (no longer generated): src/generated/gone.ts\n' +
        'run: pnpm --filter @kubets/demo generate\n',
    );
    expect(generatedNow()).toEqual({ 'gone.ts': 'gone\n', 'old.ts': 'old\n', 'same.ts': 'same\n' });

    expect(await runGenerator(demo, [], output)).toBe(0);
    expect(await runGenerator(demo, ['--check'], output)).toBe(0);
    expect(out.stdout).toContain('generated demo code is up to date (3 files)\n');
    expect(diffGeneratedFiles(dir, 'src/generated', await demo.render())).toEqual([]);
  });

  it('refuses unknown arguments', async () => {
    expect(await runGenerator(generator({}), ['--chek'], output)).toBe(2);
    expect(out.stderr).toBe('generate: unknown arguments: --chek\nusage: generate [--check]\n');
  });
});

describe('formatFiles', () => {
  it("formats with the repository's Biome and keeps the order", async () => {
    const files = new Map([
      ['src/generated/b.ts', "import {b,a} from './x.js'\nexport const y = {a,b}"],
      ['src/generated/a.ts', 'export const x = "x"'],
    ]);
    const formatted = await formatFiles(kitDir, files);
    expect([...formatted]).toEqual([
      ['src/generated/b.ts', "import { a, b } from './x.js';\nexport const y = { a, b };\n"],
      ['src/generated/a.ts', "export const x = 'x';\n"],
    ]);
  }, 30_000);
});
