import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { EnvtestError } from './errors.js';

/** The binaries envtest runs. */
export type EnvtestBinaryName = 'etcd' | 'kube-apiserver';

/** Where a binary was found. */
export type EnvtestBinarySource = 'assetsDir' | 'KUBEBUILDER_ASSETS' | 'PATH' | 'default';

/** A binary envtest found, and where it found it. */
export interface EnvtestBinary {
  /** `etcd` or `kube-apiserver`. */
  name: EnvtestBinaryName;
  /** Absolute path of the executable. */
  path: string;
  /** Which place in the lookup order it came from. */
  source: EnvtestBinarySource;
}

/** Both binaries envtest needs. */
export interface EnvtestBinaries {
  /** The etcd binary. */
  etcd: EnvtestBinary;
  /** The kube-apiserver binary. */
  kubeApiserver: EnvtestBinary;
}

/** Options for {@link findEnvtestBinaries}. */
export interface FindEnvtestBinariesOptions {
  /**
   * A directory holding both binaries. When given, it is the only place looked at: the
   * environment, `PATH` and the default directory are not consulted.
   */
  assetsDir?: string;
  /** The environment to read `KUBEBUILDER_ASSETS`, `PATH` and `KUBETS_ASSETS_DIR` from. Defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The directory `scripts/provision-envtest.sh` installs into: `$KUBETS_ASSETS_DIR` when set,
 * else `~/.cache/kubets/assets`.
 */
export function defaultEnvtestAssetsDir(
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const fromEnv = env.KUBETS_ASSETS_DIR;
  return fromEnv !== undefined && fromEnv !== ''
    ? fromEnv
    : join(homedir(), '.cache', 'kubets', 'assets');
}

type Probe = { ok: true } | { ok: false; why: string };

async function probeExecutable(path: string): Promise<Probe> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return { ok: false, why: 'is not a file' };
  } catch {
    return { ok: false, why: 'does not exist' };
  }
  try {
    await access(path, constants.X_OK);
    return { ok: true };
  } catch {
    return { ok: false, why: 'is not executable' };
  }
}

function howToGet(name: EnvtestBinaryName): string {
  const provision =
    'run `bash scripts/provision-envtest.sh` in the kubets repository (it links etcd from ' +
    "Debian's etcd-server package and builds kube-apiserver from Debian's kubernetes source " +
    'package into ~/.cache/kubets/assets, which envtest also looks in), then ' +
    '`export KUBEBUILDER_ASSETS=~/.cache/kubets/assets`';
  return name === 'etcd'
    ? `To get it: ${provision}; or install etcd (\`apt-get install etcd-server\` on Debian) so that \`etcd\` is on PATH.`
    : `To get it: ${provision}; or put a kube-apiserver binary (1.20 or later) on PATH.`;
}

async function findOne(
  name: EnvtestBinaryName,
  options: FindEnvtestBinariesOptions,
): Promise<EnvtestBinary | { missing: string }> {
  const env = options.env ?? process.env;
  const tried: string[] = [];

  const tryDir = async (
    source: EnvtestBinarySource,
    label: string,
    dir: string,
  ): Promise<EnvtestBinary | undefined> => {
    const path = join(dir, name);
    const probe = await probeExecutable(path);
    if (probe.ok) return { name, path, source };
    tried.push(`${label}: ${path} ${probe.why}`);
    return undefined;
  };

  if (options.assetsDir !== undefined) {
    const found = await tryDir('assetsDir', 'the assetsDir option', options.assetsDir);
    if (found) return found;
  } else {
    const assets = env.KUBEBUILDER_ASSETS;
    if (assets !== undefined && assets !== '') {
      const found = await tryDir('KUBEBUILDER_ASSETS', 'KUBEBUILDER_ASSETS', assets);
      if (found) return found;
    } else {
      tried.push('KUBEBUILDER_ASSETS: not set');
    }

    const pathDirs = (env.PATH ?? '').split(delimiter).filter((dir) => dir !== '');
    const absentFrom: string[] = [];
    for (const dir of pathDirs) {
      const path = join(dir, name);
      const probe = await probeExecutable(path);
      if (probe.ok) return { name, path, source: 'PATH' };
      // One that exists but cannot run is worth naming; plain misses are summed up below.
      if (probe.why === 'does not exist') absentFrom.push(dir);
      else tried.push(`PATH: ${path} ${probe.why}`);
    }
    if (pathDirs.length === 0) tried.push('PATH: empty');
    else if (absentFrom.length > 0) tried.push(`PATH: not in ${absentFrom.join(', ')}`);

    const found = await tryDir(
      'default',
      'the default assets directory',
      defaultEnvtestAssetsDir(env),
    );
    if (found) return found;
  }
  return {
    missing: `${name} was not found. Looked in:\n${tried.map((line) => `  - ${line}`).join('\n')}\n${howToGet(name)}`,
  };
}

/**
 * Finds `etcd` and `kube-apiserver`. Each is looked for, in order: in `options.assetsDir` only
 * when given; otherwise in `$KUBEBUILDER_ASSETS`, then on `PATH`, then in the directory
 * `scripts/provision-envtest.sh` installs into ({@link defaultEnvtestAssetsDir}).
 *
 * @throws {EnvtestError} with code `BinaryNotFound` naming every missing binary, each place
 *   looked at, and how to get it.
 */
export async function findEnvtestBinaries(
  options: FindEnvtestBinariesOptions = {},
): Promise<EnvtestBinaries> {
  const [etcd, kubeApiserver] = await Promise.all([
    findOne('etcd', options),
    findOne('kube-apiserver', options),
  ]);
  if ('missing' in etcd || 'missing' in kubeApiserver) {
    const missing = [etcd, kubeApiserver].flatMap((r) => ('missing' in r ? [r.missing] : []));
    const names = [
      ...('missing' in etcd ? ['etcd'] : []),
      ...('missing' in kubeApiserver ? ['kube-apiserver'] : []),
    ];
    throw new EnvtestError(
      'BinaryNotFound',
      `envtest could not find ${names.join(' or ')}.\n${missing.join('\n')}`,
      { binary: names.join(', ') },
    );
  }
  return { etcd, kubeApiserver };
}
