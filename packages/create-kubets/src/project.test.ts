import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScaffoldError } from './names.js';
import { createProject, projectFiles } from './project.js';

const ownManifest = JSON.parse(
  await readFile(new URL('../package.json', import.meta.url), 'utf8'),
) as { version: string };

let scratch: string;
beforeEach(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'create-kubets-'));
});
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** Every file under `dir`, relative, sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

const expectedFiles = [
  '.dockerignore',
  '.gitignore',
  'Dockerfile',
  'README.md',
  'package.json',
  'src/api.ts',
  'src/controller.ts',
  'src/main.ts',
  'src/manifests.test.ts',
  'src/manifests.ts',
  'src/operator.e2e.test.ts',
  'src/options.ts',
  'src/reconciler.test.ts',
  'src/reconciler.ts',
  'tsconfig.build.json',
  'tsconfig.json',
  'vitest.config.ts',
  'vitest.e2e.config.ts',
];

describe('createProject', () => {
  it('writes the project into a new folder named after it', async () => {
    const target = path.join(scratch, 'my-operator');
    const written = await createProject(target);
    expect([...written].sort()).toEqual(expectedFiles);
    expect(await filesUnder(target)).toEqual(expectedFiles);
    const pkg = JSON.parse(await readFile(path.join(target, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('my-operator');
    expect(await readFile(path.join(target, 'src/api.ts'), 'utf8')).toContain("kind: 'Website'");
  });

  it('writes into an existing empty folder', async () => {
    const target = path.join(scratch, 'empty');
    await mkdir(target);
    await createProject(target, { name: 'other-name' });
    expect(await filesUnder(target)).toEqual(expectedFiles);
    expect(JSON.parse(await readFile(path.join(target, 'package.json'), 'utf8')).name).toBe(
      'other-name',
    );
  });

  it('refuses a folder that is not empty, and writes nothing', async () => {
    const target = path.join(scratch, 'my-operator');
    await mkdir(target);
    await writeFile(path.join(target, 'notes.txt'), 'mine');
    const refusal = createProject(target);
    await expect(refusal).rejects.toBeInstanceOf(ScaffoldError);
    await expect(refusal).rejects.toThrow(
      `--directory: ${target} exists and is not empty (notes.txt): choose a new folder or empty this one`,
    );
    expect(await filesUnder(target)).toEqual(['notes.txt']);
  });

  it('names a few of the entries of a full folder', async () => {
    const target = path.join(scratch, 'full');
    await mkdir(target);
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f', 'g'])
      await writeFile(path.join(target, name), '');
    await expect(createProject(target)).rejects.toThrow('(a, b, c, d, e, and 2 more)');
  });

  it('refuses a path that is a file', async () => {
    const target = path.join(scratch, 'file');
    await writeFile(target, 'x');
    await expect(createProject(target)).rejects.toThrow(`${target} exists and is not a folder`);
  });

  it('refuses invalid names before creating the folder', async () => {
    const target = path.join(scratch, 'Bad_Name');
    await expect(createProject(target, { group: 'nodot' })).rejects.toThrow(
      /--name: "Bad_Name" names the operator's Deployment[^\n]*\n {2}--group: spec\.group: Invalid value: "nodot": should be a domain with at least one dot/,
    );
    expect(await readdir(scratch)).toEqual([]);
  });
});

describe('projectFiles', () => {
  const manifest = (files: ReturnType<typeof projectFiles>) =>
    JSON.parse(files.find((f) => f.path === 'package.json')?.content ?? '{}');

  it('makes the @kubets packages depend on create-kubets own version', () => {
    const pkg = manifest(projectFiles({ name: 'x' }));
    const kubets = Object.entries({ ...pkg.dependencies, ...pkg.devDependencies }).filter(([n]) =>
      n.startsWith('@kubets/'),
    );
    expect(kubets.map(([n]) => n).sort()).toEqual([
      '@kubets/apimachinery',
      '@kubets/apiserver',
      '@kubets/clientset',
      '@kubets/controller',
      '@kubets/crd',
      '@kubets/envtest',
      '@kubets/rest',
    ]);
    for (const [, range] of kubets) expect(range).toBe(`^${ownManifest.version}`);
  });

  it('takes another @kubets version when told', () => {
    const pkg = manifest(projectFiles({ name: 'x', kubetsVersion: '1.2.3' }));
    expect(pkg.dependencies['@kubets/controller']).toBe('^1.2.3');
    expect(pkg.devDependencies['@kubets/envtest']).toBe('^1.2.3');
  });

  it('declares every package its sources import', () => {
    const files = projectFiles({ name: 'x' });
    const pkg = manifest(files);
    const declared = new Set(Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }));
    const imported = new Set<string>();
    for (const file of files.filter((f) => f.path.endsWith('.ts'))) {
      for (const [, specifier = ''] of file.content.matchAll(/\bfrom '([^'.][^']*)'/g)) {
        if (specifier.startsWith('node:')) continue;
        const parts = specifier.split('/');
        imported.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? ''));
      }
    }
    expect([...imported].filter((name) => !declared.has(name))).toEqual([]);
  });

  it('writes the scripts the project is run with', () => {
    expect(manifest(projectFiles({ name: 'x' })).scripts).toMatchObject({
      test: 'vitest run',
      'test:e2e': 'vitest run --config vitest.e2e.config.ts',
      manifests: 'node src/manifests.ts config',
      typecheck: 'tsc --noEmit',
    });
  });
});
