// The install size of issue 35: what `npm install @kubets/controller` puts on a user's disk.
// Packs every publishable package as it would be published (scripts/pack-tarballs.mjs, from
// the built dist/ this benchmark runs against), serves the tarballs to npm for the @kubets
// scope from a registry on loopback (scripts/local-registry.mjs), installs @kubets/controller
// into a fresh project in a temp folder without optional and peer dependencies (so without
// @kubernetes/client-node, prom-client or pino), and sums the bytes of the files under
// node_modules per package (install-size.ts). Third-party packages come from the registry npm is
// configured with, npm's cache first.

import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type InstalledFile, installSizeTable, summarizeInstall } from './install-size.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');
const run = promisify(execFile);

/** The package a new operator installs, and the target of issue 35. */
export const installedPackage = '@kubets/controller';
const limitBytes = 12 * 2 ** 20;

// The repo's scripts are plain JavaScript without declarations: typed here by what is used.
interface PackTarballs {
  packTarballs(
    dest: string,
    options: { build: boolean },
  ): { name: string; version: string; file: string }[];
}
interface LocalRegistry {
  startLocalRegistry(dir: string): Promise<{ url: string; stop(): Promise<void> }>;
}

/** Every regular file under `dir` (symbolic links, such as npm's `.bin` entries, skipped). */
export function listFiles(dir: string): InstalledFile[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const file = path.join(entry.parentPath, entry.name);
      return {
        path: path.relative(dir, file).split(path.sep).join('/'),
        bytes: statSync(file).size,
      };
    });
}

/**
 * Installs {@link installedPackage} from freshly packed tarballs into a temp project and
 * returns the markdown block: the command, the total against the target, the largest packages.
 */
export async function measureInstallSize(log: (message: string) => void): Promise<string> {
  const { packTarballs } = (await import(
    path.join(repoRoot, 'scripts/pack-tarballs.mjs')
  )) as PackTarballs;
  const { startLocalRegistry } = (await import(
    path.join(repoRoot, 'scripts/local-registry.mjs')
  )) as LocalRegistry;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'kubets-install-size-'));
  let registry: Awaited<ReturnType<LocalRegistry['startLocalRegistry']>> | undefined;
  try {
    const tarballs = path.join(tmp, 'tarballs');
    const packed = packTarballs(tarballs, { build: false });
    registry = await startLocalRegistry(tarballs);
    log(`install size: ${packed.length} tarballs packed, served at ${registry.url}`);
    const project = path.join(tmp, 'project');
    mkdirSync(project);
    writeFileSync(
      path.join(project, 'package.json'),
      `${JSON.stringify({ name: 'install-size', version: '0.0.0', private: true }, null, 2)}\n`,
    );
    const args = [
      'install',
      installedPackage,
      '--omit=optional',
      '--omit=peer',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
    ];
    log(`install size: npm ${args.join(' ')}`);
    // Asynchronous: the registry answers npm from this process's event loop.
    await run('npm', args, {
      cwd: project,
      env: {
        ...process.env,
        'npm_config_@kubets:registry': registry.url,
        npm_config_update_notifier: 'false',
        npm_config_loglevel: 'error',
      },
      maxBuffer: 16 << 20,
    });
    const summary = summarizeInstall(listFiles(path.join(project, 'node_modules')));
    return [
      `Install size: \`npm ${args.join(' ')}\` in an empty project, ${installedPackage} and every other @kubets package from the tarballs \`pnpm pack\` makes of the built packages (scripts/pack-tarballs.mjs), the rest from npm's registry; bytes of the regular files under node_modules (symbolic links not counted); npm ${await npmVersion()}; MB = MiB`,
      '',
      installSizeTable(summary, {
        installed: installedPackage,
        ownScope: '@kubets',
        limitBytes,
        top: 8,
      }),
    ].join('\n');
  } finally {
    await registry?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function npmVersion(): Promise<string> {
  const { stdout } = await run('npm', ['--version']);
  return stdout.trim();
}
