// The rendered project type-checks (strict, nodenext) against the workspace's @kubets packages,
// for the defaults and for names that take the templates' other paths; and what the templates
// pin stays in step with the workspace.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { namesInUse, type ScaffoldOptions } from './names.js';
import { projectFiles } from './project.js';
import { thirdPartyVersions } from './templates.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const tsc = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin/tsc');

// Inside the package, so the project resolves @kubets/* through this package's node_modules
// (its devDependencies are the packages a new project depends on).
const scratchRoot = path.join(packageDir, '.kubets-tmp');
afterAll(() => rm(scratchRoot, { recursive: true, force: true }));

async function typecheck(options: ScaffoldOptions): Promise<string> {
  await mkdir(scratchRoot, { recursive: true });
  const dir = await mkdtemp(path.join(scratchRoot, 'typecheck-'));
  for (const file of projectFiles(options)) {
    await mkdir(path.dirname(path.join(dir, file.path)), { recursive: true });
    await writeFile(path.join(dir, file.path), file.content);
  }
  try {
    await promisify(execFile)(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.json'], {
      cwd: dir,
    });
    return '';
  } catch (err) {
    return (err as { stdout?: string }).stdout || String(err);
  }
}

describe('the rendered project', () => {
  it.each<ScaffoldOptions>([
    { name: 'my-operator' },
    { name: 'db-operator', group: 'db.example.org', kind: 'DatabaseCluster', version: 'v1-beta1' },
  ])(
    'type-checks with tsc --strict, nodenext: %j',
    async (options) => {
      expect(await typecheck(options)).toBe('');
    },
    120_000,
  );

  it('fails to type-check when a template is broken (the check can fail)', async () => {
    const files = projectFiles({ name: 'broken' });
    const reconciler = files.find((f) => f.path === 'src/reconciler.ts');
    expect(reconciler?.content).toContain('website.spec.message');
    await mkdir(scratchRoot, { recursive: true });
    const dir = await mkdtemp(path.join(scratchRoot, 'broken-'));
    for (const file of files) {
      const content =
        file === reconciler
          ? file.content.replace('website.spec.message', 'website.spec.missing')
          : file.content;
      await mkdir(path.dirname(path.join(dir, file.path)), { recursive: true });
      await writeFile(path.join(dir, file.path), content);
    }
    const run = promisify(execFile)(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.json'], {
      cwd: dir,
    });
    await expect(run).rejects.toMatchObject({
      stdout: expect.stringContaining("Property 'missing' does not exist"),
    });
  }, 120_000);

  it('imports no capitalised name that a kind could shadow unchecked', () => {
    const imported = new Set<string>();
    for (const file of projectFiles({ name: 'x' })) {
      for (const [, list = ''] of file.content.matchAll(/^import (?:type )?\{([^}]*)\}/gm)) {
        for (const item of list.split(',')) {
          const name = item.trim().replace(/^type /, '');
          if (/^[A-Z]/.test(name)) imported.add(name);
        }
      }
      for (const [, name = ''] of file.content.matchAll(/^import ([A-Z]\w*) from/gm))
        imported.add(name);
    }
    imported.delete('Website'); // the kind's own type
    expect([...imported].sort()).toEqual([...namesInUse].sort());
  });
});

describe('the versions a new project pins', () => {
  const workspace = async (file: string) =>
    JSON.parse(await readFile(path.join(packageDir, '../..', file), 'utf8'));
  /** `^a.b.c` accepts `version` (same major, and not older). */
  const caretAccepts = (range: string, version: string) => {
    const [min = [], got = []] = [range.slice(1), version].map((v) => v.split('.').map(Number));
    if (got[0] !== min[0]) return false;
    for (let i = 1; i < 3; i++)
      if ((got[i] ?? 0) !== (min[i] ?? 0)) return (got[i] ?? 0) > (min[i] ?? 0);
    return true;
  };

  it('accept the versions the workspace builds and tests with', async () => {
    const root = await workspace('package.json');
    for (const name of ['typescript', 'vitest', '@types/node'] as const) {
      expect(caretAccepts(thirdPartyVersions[name], root.devDependencies[name]), name).toBe(true);
    }
    const crd = await workspace('packages/crd/package.json');
    expect(thirdPartyVersions.typebox).toBe(crd.peerDependencies.typebox);
    const controller = await workspace('packages/controller/package.json');
    expect(caretAccepts(thirdPartyVersions['prom-client'], '15.1.3')).toBe(true);
    expect(controller.peerDependencies['prom-client']).toBe('^15.0.0');
  });
});
