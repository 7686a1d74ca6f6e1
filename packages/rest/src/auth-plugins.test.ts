// The auth-provider loader imports client-node's authenticators by file path (client-node 2.0
// has no exports map), so a release that moves or renames one would break only the users of
// that provider, at their first request. These tests fail first: each file the loader
// imports must resolve in the installed client-node and export the class it constructs.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { authPluginFor, authPlugins, clientNodePackage, loadAuthPlugin } from './auth-plugins.js';

const srcDir = dirname(fileURLToPath(import.meta.url));
const packageJson = JSON.parse(readFileSync(join(srcDir, '..', 'package.json'), 'utf8')) as {
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe("client-node's file layout under the pinned range", () => {
  const requireFromRest = createRequire(join(srcDir, '..', 'package.json'));

  it('the installed client-node is the version range rest accepts', () => {
    const installed = requireFromRest(`${clientNodePackage}/package.json`) as { version: string };
    const range = packageJson.peerDependencies[clientNodePackage];
    expect(range).toMatch(/^~\d+\.\d+\.\d+$/);
    expect(packageJson.devDependencies[clientNodePackage]).toBe(range);
    const [major, minor] = (range ?? '').slice(1).split('.');
    expect(installed.version.startsWith(`${major}.${minor}.`)).toBe(true);
  });

  it.each(authPlugins.map((plugin) => [plugin.name, plugin] as const))(
    'the %s authenticator file exists and exports its class',
    async (_name, plugin) => {
      const packageDir = dirname(requireFromRest.resolve(`${clientNodePackage}/package.json`));
      const file = join(packageDir, plugin.module.file);
      const loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      expect(typeof loaded[plugin.module.exportName]).toBe('function');
      // And the loader itself resolves it by the package specifier.
      const authenticator = await loadAuthPlugin(plugin);
      expect(typeof authenticator.applyAuthentication).toBe('function');
    },
  );

  it('a missing client-node, file or export is reported as such', async () => {
    const exec = authPlugins.find((plugin) => plugin.name === 'exec');
    if (!exec) throw new Error('no exec plugin');
    await expect(loadAuthPlugin(exec, '@kubets/no-such-package')).rejects.toThrow(
      'the exec auth plugin needs @kubets/no-such-package ~2.0 installed beside @kubets/rest',
    );
    await expect(
      loadAuthPlugin({ ...exec, module: { file: 'dist/moved_auth.js', exportName: 'ExecAuth' } }),
    ).rejects.toThrow(
      `${clientNodePackage}/dist/moved_auth.js does not exist: an unsupported ${clientNodePackage} version`,
    );
    await expect(
      loadAuthPlugin({ ...exec, module: { file: 'dist/exec_auth.js', exportName: 'Renamed' } }),
    ).rejects.toThrow(
      `${clientNodePackage}/dist/exec_auth.js has no export Renamed: an unsupported ${clientNodePackage} version`,
    );
  });

  it('plugins are chosen in the order of KubeConfig.applyAuthorizationHeader', () => {
    expect(authPlugins.map((plugin) => plugin.name)).toEqual([
      'azure',
      'gcp',
      'exec',
      'tokenFile',
      'oidc',
    ]);
    expect(authPluginFor({ exec: { command: 'login' } })?.name).toBe('exec');
    expect(authPluginFor({ 'auth-provider': { name: 'oidc' } })?.name).toBe('oidc');
    expect(authPluginFor({ 'auth-provider': { name: 'keystone' } })).toBeUndefined();
  });

  it('auth-plugins.ts is the only source file that imports client-node', () => {
    // A module specifier is a quoted string; comments name the package in backquotes.
    const specifier = new RegExp(`['"]${clientNodePackage}[/'"]`);
    const naming = readdirSync(srcDir)
      .filter(
        (file) => file.endsWith('.ts') && !file.includes('.test.') && !file.includes('.bench.'),
      )
      .filter((file) => specifier.test(readFileSync(join(srcDir, file), 'utf8')));
    expect(naming).toEqual(['auth-plugins.ts']);
  });
});
