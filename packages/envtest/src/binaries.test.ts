import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultEnvtestAssetsDir, findEnvtestBinaries } from './binaries.js';
import { EnvtestError, isEnvtestError } from './errors.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'kubets-binaries-test-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Makes `dir` with executable files of the given names; returns the dir. */
async function binDir(name: string, binaries: string[], mode = 0o755): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  for (const binary of binaries) {
    await writeFile(join(dir, binary), '#!/bin/sh\nexit 0\n');
    await chmod(join(dir, binary), mode);
  }
  return dir;
}

async function rejection(promise: Promise<unknown>): Promise<EnvtestError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof EnvtestError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

const both = ['etcd', 'kube-apiserver'];

describe('findEnvtestBinaries lookup order', () => {
  it('prefers KUBEBUILDER_ASSETS over PATH over the default assets dir', async () => {
    const assets = await binDir('assets', both);
    const path1 = await binDir('path1', both);
    const fallback = await binDir('fallback', both);
    const env = { KUBEBUILDER_ASSETS: assets, PATH: path1, KUBETS_ASSETS_DIR: fallback };

    const found = await findEnvtestBinaries({ env });
    expect(found.etcd).toEqual({
      name: 'etcd',
      path: join(assets, 'etcd'),
      source: 'KUBEBUILDER_ASSETS',
    });
    expect(found.kubeApiserver).toEqual({
      name: 'kube-apiserver',
      path: join(assets, 'kube-apiserver'),
      source: 'KUBEBUILDER_ASSETS',
    });

    const withoutAssets = await findEnvtestBinaries({ env: { ...env, KUBEBUILDER_ASSETS: '' } });
    expect(withoutAssets.etcd).toMatchObject({ path: join(path1, 'etcd'), source: 'PATH' });

    const onlyDefault = await findEnvtestBinaries({
      env: { KUBETS_ASSETS_DIR: fallback, PATH: '' },
    });
    expect(onlyDefault.kubeApiserver).toMatchObject({
      path: join(fallback, 'kube-apiserver'),
      source: 'default',
    });
  });

  it('resolves each binary on its own and takes the first PATH entry that has it', async () => {
    const empty = await binDir('empty', []);
    const first = await binDir('first', ['etcd']);
    const second = await binDir('second', ['etcd', 'kube-apiserver']);
    const found = await findEnvtestBinaries({
      env: { KUBEBUILDER_ASSETS: empty, PATH: [empty, first, second].join(delimiter) },
    });
    expect(found.etcd).toMatchObject({ path: join(first, 'etcd'), source: 'PATH' });
    expect(found.kubeApiserver).toMatchObject({
      path: join(second, 'kube-apiserver'),
      source: 'PATH',
    });
  });

  it('skips files that are not executable', async () => {
    const notExec = await binDir('noexec', both, 0o644);
    const good = await binDir('good', both);
    const found = await findEnvtestBinaries({ env: { KUBEBUILDER_ASSETS: notExec, PATH: good } });
    expect(found.etcd.path).toBe(join(good, 'etcd'));
  });

  it('looks only in assetsDir when that option is given', async () => {
    const explicit = await binDir('explicit', both);
    const onPath = await binDir('onpath', both);
    const found = await findEnvtestBinaries({
      assetsDir: explicit,
      env: { KUBEBUILDER_ASSETS: onPath, PATH: onPath },
    });
    expect(found.etcd).toMatchObject({ path: join(explicit, 'etcd'), source: 'assetsDir' });

    const partial = await binDir('partial', ['etcd']);
    const error = await rejection(
      findEnvtestBinaries({
        assetsDir: partial,
        env: { KUBEBUILDER_ASSETS: onPath, PATH: onPath },
      }),
    );
    expect(error.code).toBe('BinaryNotFound');
    expect(error.binary).toBe('kube-apiserver');
    expect(error.message).toContain(
      `the assetsDir option: ${join(partial, 'kube-apiserver')} does not exist`,
    );
    expect(error.message).not.toContain(onPath);
  });
});

describe('the missing-binary error', () => {
  it('says which binary is missing, every place looked, and how to get it', async () => {
    const assets = await binDir('assets', ['etcd']);
    const pathA = await binDir('a', []);
    const pathB = await binDir('b', ['kube-apiserver'], 0o644);
    const fallback = join(root, 'nowhere');
    const error = await rejection(
      findEnvtestBinaries({
        env: {
          KUBEBUILDER_ASSETS: assets,
          PATH: [pathA, pathB].join(delimiter),
          KUBETS_ASSETS_DIR: fallback,
        },
      }),
    );
    expect(isEnvtestError(error)).toBe(true);
    expect(error.code).toBe('BinaryNotFound');
    expect(error.binary).toBe('kube-apiserver');
    expect(error.message).toBe(
      [
        'envtest could not find kube-apiserver.',
        'kube-apiserver was not found. Looked in:',
        `  - KUBEBUILDER_ASSETS: ${join(assets, 'kube-apiserver')} does not exist`,
        `  - PATH: ${join(pathB, 'kube-apiserver')} is not executable`,
        `  - PATH: not in ${pathA}`,
        `  - the default assets directory: ${join(fallback, 'kube-apiserver')} does not exist`,
        'To get it: run `bash scripts/provision-envtest.sh` in the kubets repository (it links ' +
          "etcd from Debian's etcd-server package and builds kube-apiserver from Debian's " +
          'kubernetes source package into ~/.cache/kubets/assets, which envtest also looks in), ' +
          'then `export KUBEBUILDER_ASSETS=~/.cache/kubets/assets`; or put a kube-apiserver ' +
          'binary (1.20 or later) on PATH.',
      ].join('\n'),
    );
  });

  it('names both binaries when both are missing, with the etcd-server hint for etcd', async () => {
    const empty = await binDir('empty', []);
    const error = await rejection(
      findEnvtestBinaries({ env: { PATH: empty, KUBETS_ASSETS_DIR: empty } }),
    );
    expect(error.binary).toBe('etcd, kube-apiserver');
    expect(error.message).toMatch(/^envtest could not find etcd or kube-apiserver\./);
    expect(error.message).toContain(
      'etcd was not found. Looked in:\n  - KUBEBUILDER_ASSETS: not set',
    );
    expect(error.message).toContain('`apt-get install etcd-server` on Debian');
    expect(error.message).toContain('kube-apiserver was not found.');
    expect(error.message).toContain('bash scripts/provision-envtest.sh');
    expect(error.message).toContain('export KUBEBUILDER_ASSETS=~/.cache/kubets/assets');
  });
});

describe('defaultEnvtestAssetsDir', () => {
  it('is KUBETS_ASSETS_DIR when set, else ~/.cache/kubets/assets', () => {
    expect(defaultEnvtestAssetsDir({ KUBETS_ASSETS_DIR: '/x/y' })).toBe('/x/y');
    expect(defaultEnvtestAssetsDir({})).toBe(join(homedir(), '.cache', 'kubets', 'assets'));
  });
});
