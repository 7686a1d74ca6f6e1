import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { type Envtest, startEnvtest } from '@kubets/envtest';
import { type Config, loadConfig, RESTClient } from '@kubets/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DiscoveryClient,
  DiskCachedDiscoveryClient,
  defaultDiskCacheTTLMs,
  discoveryCacheDirFor,
  isNoMatchError,
  MemCacheClient,
  NoKindMatchError,
  NoResourceMatchError,
  RESTMapper,
} from './index.js';

const run = promisify(execFile);
const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const distEntry = join(packageDir, 'dist', 'index.js');
const kubectl = '/usr/bin/kubectl';

let env: Envtest;
let config: Config;
let scratch: string;

beforeAll(async () => {
  env = await startEnvtest();
  config = loadConfig({ kubeconfig: env.kubeconfigPath });
  scratch = await mkdtemp(join(tmpdir(), 'kubets-discovery-e2e-'));
});

afterAll(async () => {
  await env?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function mtimes(dir: string): Promise<Map<string, number>> {
  const result = new Map<string, number>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    result.set(file, (await stat(file)).mtimeMs);
  }
  return result;
}

interface ChildReport {
  serverCalls: number;
  fresh: boolean;
  resources: string[];
}

// A second process reading the same cache dir through the built package; it counts every
// call that reaches the server.
async function readCacheInAnotherProcess(cacheDir: string): Promise<ChildReport> {
  const script = `
    import { loadConfig } from '@kubets/rest';
    import { DiscoveryClient, DiskCachedDiscoveryClient } from ${JSON.stringify(pathToFileURL(distEntry).href)};
    const direct = new DiscoveryClient(loadConfig({ kubeconfig: process.env.E2E_KUBECONFIG }));
    let serverCalls = 0;
    const counting = new Proxy(direct, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args) => { serverCalls++; return value.apply(target, args); };
      },
    });
    const cache = new DiskCachedDiscoveryClient(counting, process.env.E2E_CACHE_DIR);
    const lists = await cache.serverPreferredResources();
    const resources = lists.flatMap((l) => l.resources.map((r) => l.groupVersion + ' ' + r.name));
    process.stdout.write(JSON.stringify({ serverCalls, fresh: cache.fresh(), resources }));
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: packageDir,
    env: { ...process.env, E2E_KUBECONFIG: env.kubeconfigPath, E2E_CACHE_DIR: cacheDir },
  });
  return JSON.parse(stdout) as ChildReport;
}

describe('discovery against a real kube-apiserver', () => {
  it('lists exactly the resources kubectl api-resources lists', async () => {
    const discovery = new DiscoveryClient(config);
    const version = await discovery.serverVersion();
    expect(version.gitVersion).toMatch(/^v1\.\d+/);

    const { groups, resources } = await discovery.serverGroupsAndResources();
    expect(groups[0]?.name).toBe('');
    const apps = resources.find((list) => list.groupVersion === 'apps/v1');
    expect(apps?.resources.map((r) => r.name)).toContain('deployments');
    expect(apps?.resources.map((r) => r.name)).toContain('deployments/scale');

    const preferred = await discovery.serverPreferredResources();
    const ours = new Set(
      preferred.flatMap((list) => {
        const slash = list.groupVersion.indexOf('/');
        const group = slash === -1 ? '' : list.groupVersion.slice(0, slash);
        return list.resources.map((r) => (group ? `${r.name}.${group}` : r.name));
      }),
    );
    expect(ours.has('pods')).toBe(true);
    expect(ours.has('deployments.apps')).toBe(true);
    expect([...ours].some((name) => name.includes('/'))).toBe(false);

    if (!existsSync(kubectl)) {
      console.warn(`${kubectl} is absent: skipping the comparison with kubectl api-resources`);
      return;
    }
    const { stdout } = await run(kubectl, [
      '--kubeconfig',
      env.kubeconfigPath,
      '--cache-dir',
      join(scratch, 'kubectl-cache'),
      'api-resources',
      '-o',
      'name',
    ]);
    const theirs = new Set(stdout.split('\n').filter((line) => line.trim() !== ''));
    expect([...ours].sort()).toEqual([...theirs].sort());

    const namespaced = await discovery.serverPreferredNamespacedResources();
    const names = namespaced.flatMap((l) => l.resources.map((r) => r.name));
    expect(names).toContain('pods');
    expect(names).not.toContain('nodes');
  });

  it('shares the disk cache with a second process and refreshes it after the TTL or invalidate()', async () => {
    const cacheParent = join(scratch, 'disk-cache');
    const cache = DiskCachedDiscoveryClient.forConfig(config, { cacheDir: cacheParent });
    expect(cache.cacheDir).toBe(discoveryCacheDirFor(env.host, cacheParent));
    const expected = (await cache.serverPreferredResources()).flatMap((l) =>
      l.resources.map((r) => `${l.groupVersion} ${r.name}`),
    );
    expect(cache.fresh()).toBe(true);
    const written = await mtimes(cache.cacheDir);
    expect(written.has(join(cache.cacheDir, 'servergroups.json'))).toBe(true);
    expect(written.has(join(cache.cacheDir, 'apps', 'v1', 'serverresources.json'))).toBe(true);
    expect(written.has(join(cache.cacheDir, 'v1', 'serverresources.json'))).toBe(true);

    const child = await readCacheInAnotherProcess(cache.cacheDir);
    expect(child.serverCalls).toBe(0);
    expect(child.fresh).toBe(false);
    expect(child.resources).toEqual(expected);
    expect(await mtimes(cache.cacheDir)).toEqual(written);

    // A client whose clock is past the TTL asks the server again and rewrites every file.
    const later = new DiskCachedDiscoveryClient(new DiscoveryClient(config), cache.cacheDir, {
      now: () => Date.now() + defaultDiskCacheTTLMs + 60_000,
    });
    await later.serverPreferredResources();
    const refreshed = await mtimes(cache.cacheDir);
    for (const [file, mtime] of written) expect(refreshed.get(file), file).toBeGreaterThan(mtime);

    // The rewritten files are again good for the other process.
    expect((await readCacheInAnotherProcess(cache.cacheDir)).serverCalls).toBe(0);

    // invalidate(): the next call asks the server and rewrites what it reads.
    cache.invalidate();
    await cache.serverGroups();
    const afterInvalidate = await mtimes(cache.cacheDir);
    const groupsFile = join(cache.cacheDir, 'servergroups.json');
    expect(afterInvalidate.get(groupsFile)).toBeGreaterThan(refreshed.get(groupsFile) ?? 0);
    expect(afterInvalidate.get(join(cache.cacheDir, 'apps', 'v1', 'serverresources.json'))).toBe(
      refreshed.get(join(cache.cacheDir, 'apps', 'v1', 'serverresources.json')),
    );
  });

  it('maps kinds and resources with the RESTMapper, re-discovering for a new CRD', async () => {
    const mapper = new RESTMapper(new MemCacheClient(new DiscoveryClient(config)));
    const deployment = await mapper.mappingFor('Deployment');
    expect(deployment).toEqual({
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      groupVersionKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      scope: 'namespace',
    });
    expect(await mapper.restMapping({ group: 'apps', kind: 'Deployment' })).toEqual(deployment);
    expect(await mapper.resourceFor('deploy')).toEqual(deployment.resource);
    expect(await mapper.resourceFor('po')).toEqual({ group: '', version: 'v1', resource: 'pods' });
    expect((await mapper.mappingFor('ns')).scope).toBe('root');
    expect(mapper.loads).toBe(1);

    const unknown = await mapper
      .restMapping({ group: '', kind: 'Nonexistent' })
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(NoKindMatchError);
    expect((unknown as Error).message).toContain('no matches for kind "Nonexistent" in group ""');
    expect(mapper.loads).toBe(2);
    const unknownArg = await mapper.mappingFor('flibbertigibbets').catch((e: unknown) => e);
    expect(unknownArg).toBeInstanceOf(NoResourceMatchError);
    expect((unknownArg as Error).message).toContain('"flibbertigibbets"');

    // A CRD created after the mapper loaded is found through the one re-discovery.
    const crds = new RESTClient(
      { ...config, qps: -1 },
      { groupVersion: 'apiextensions.k8s.io/v1' },
    );
    await crds
      .post()
      .resource('customresourcedefinitions')
      .body({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'gadgets.mapper.kubets.dev' },
        spec: {
          group: 'mapper.kubets.dev',
          scope: 'Cluster',
          names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', shortNames: ['gd'] },
          versions: [
            {
              name: 'v1alpha1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          ],
        },
      })
      .do();
    const loadsBefore = mapper.loads;
    let gadgets: unknown;
    for (let attempt = 0; attempt < 100 && gadgets === undefined; attempt++) {
      gadgets = await mapper.mappingFor('gd').catch((err: unknown) => {
        if (!isNoMatchError(err)) throw err;
        return new Promise((resolve) => setTimeout(resolve, 100)).then(() => undefined);
      });
    }
    expect(gadgets).toEqual({
      resource: { group: 'mapper.kubets.dev', version: 'v1alpha1', resource: 'gadgets' },
      groupVersionKind: { group: 'mapper.kubets.dev', version: 'v1alpha1', kind: 'Gadget' },
      scope: 'root',
    });
    expect(mapper.loads).toBeGreaterThan(loadsBefore);
  });
});
