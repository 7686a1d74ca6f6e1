import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  cannedDiscovery,
  type StubDiscoveryServer,
  startDiscoveryServer,
} from '../test/fixtures.js';
import { DiscoveryClient } from './discovery.js';
import {
  DiskCachedDiscoveryClient,
  defaultDiskCacheTTLMs,
  discoveryCacheDirFor,
} from './diskcache.js';
import { isDiscoveryPartialError } from './errors.js';
import { MemCacheClient } from './memcache.js';

let server: StubDiscoveryServer;
let dir: string;

beforeEach(async () => {
  const canned = cannedDiscovery();
  canned.failing.clear();
  server = await startDiscoveryServer(canned);
  dir = await mkdtemp(join(tmpdir(), 'kubets-discovery-'));
});

afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function direct(): DiscoveryClient {
  return new DiscoveryClient({ host: server.url, qps: -1 });
}

async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
    .sort();
}

describe('MemCacheClient', () => {
  it('fetches everything once and answers later calls from memory', async () => {
    const cache = new MemCacheClient(direct());
    expect(cache.fresh()).toBe(false);
    await cache.serverGroupsAndResources();
    const afterFirst = server.paths.length;
    expect(afterFirst).toBe(2 + 8); // /api, /apis and eight group-versions
    await cache.serverPreferredResources();
    await cache.serverResourcesForGroupVersion('apps/v1');
    expect(server.paths.length).toBe(afterFirst);
    expect(cache.fresh()).toBe(true);
  });

  it('refetches after invalidate()', async () => {
    const cache = new MemCacheClient(direct());
    await cache.serverGroups();
    const before = server.paths.length;
    cache.invalidate();
    expect(cache.fresh()).toBe(false);
    await cache.serverGroups();
    expect(server.paths.length).toBe(before * 2);
  });

  it('hands out copies, so callers cannot change the cache', async () => {
    const cache = new MemCacheClient(direct());
    const first = await cache.serverResourcesForGroupVersion('apps/v1');
    first.resources.length = 0;
    const second = await cache.serverResourcesForGroupVersion('apps/v1');
    expect(second.resources.length).toBe(3);
  });

  it('shares one load between concurrent callers', async () => {
    const cache = new MemCacheClient(direct());
    await Promise.all([
      cache.serverGroups(),
      cache.serverGroups(),
      cache.serverPreferredResources(),
    ]);
    expect(server.paths.filter((p) => p === '/apis')).toHaveLength(1);
  });

  it('retries a group-version that failed when it is asked for again', async () => {
    await server.close();
    const canned = cannedDiscovery();
    server = await startDiscoveryServer(canned);
    const cache = new MemCacheClient(direct());
    const err = await cache.serverGroupsAndResources().catch((e: unknown) => e);
    expect(isDiscoveryPartialError(err) && [...err.failed.keys()]).toEqual([
      'broken.example.com/v1',
    ]);
    canned.failing.clear();
    const list = await cache.serverResourcesForGroupVersion('broken.example.com/v1');
    expect(list.resources.map((r) => r.name)).toEqual(['gadgets']);
    await cache.serverGroupsAndResources(); // now complete, from memory
    expect(server.paths.filter((p) => p === '/apis/broken.example.com/v1')).toHaveLength(2);
  });
});

describe('DiskCachedDiscoveryClient', () => {
  it('writes one file per group-version under the cache dir, as kubectl lays them out', async () => {
    const cache = new DiskCachedDiscoveryClient(direct(), dir);
    await cache.serverGroupsAndResources();
    expect(await listFiles(dir)).toEqual([
      'apps/v1/serverresources.json',
      'autoscaling/v1/serverresources.json',
      'autoscaling/v2beta1/serverresources.json',
      'batch/v1/serverresources.json',
      'batch/v1beta1/serverresources.json',
      'broken.example.com/v1/serverresources.json',
      'events.k8s.io/v1/serverresources.json',
      'servergroups.json',
      'v1/serverresources.json',
    ]);
    const apps = JSON.parse(await readFile(join(dir, 'apps/v1/serverresources.json'), 'utf8'));
    expect(apps.groupVersion).toBe('apps/v1');
    expect(cache.fresh()).toBe(true);
  });

  it('lets a second client on the same dir answer without the server', async () => {
    await new DiskCachedDiscoveryClient(direct(), dir).serverGroupsAndResources();
    const requests = server.paths.length;
    const second = new DiskCachedDiscoveryClient(direct(), dir);
    const preferred = await second.serverPreferredResources();
    expect(preferred.length).toBeGreaterThan(0);
    expect(server.paths.length).toBe(requests);
    expect(second.fresh()).toBe(false); // its answers came from files it did not write
  });

  it('asks the server again once the files are older than the TTL', async () => {
    await new DiskCachedDiscoveryClient(direct(), dir).serverGroupsAndResources();
    const requests = server.paths.length;
    const groupsFile = join(dir, 'servergroups.json');
    const minuteAgo = (Date.now() - 60_000) / 1000;
    await utimes(groupsFile, minuteAgo, minuteAgo); // still within the TTL; lets us see the rewrite
    let now = Date.now();
    const cache = new DiskCachedDiscoveryClient(direct(), dir, { now: () => now });
    await cache.serverGroupsAndResources();
    expect(server.paths.length).toBe(requests);
    now += defaultDiskCacheTTLMs + 1000;
    await cache.serverGroupsAndResources();
    expect(server.paths.length).toBe(requests * 2);
    expect((await stat(groupsFile)).mtimeMs).toBeGreaterThan(minuteAgo * 1000 + 1000);
  });

  it('honours a custom TTL', async () => {
    let now = Date.now();
    const cache = new DiskCachedDiscoveryClient(direct(), dir, { ttlMs: 5_000, now: () => now });
    await cache.serverGroups();
    now += 4_000;
    await cache.serverGroups();
    expect(server.paths.filter((p) => p === '/apis')).toHaveLength(1);
    now += 2_000;
    await cache.serverGroups();
    expect(server.paths.filter((p) => p === '/apis')).toHaveLength(2);
  });

  it('ignores older files after invalidate(), then reuses the ones it rewrote', async () => {
    await new DiskCachedDiscoveryClient(direct(), dir).serverGroupsAndResources();
    const cache = new DiskCachedDiscoveryClient(direct(), dir);
    await cache.serverGroups();
    expect(cache.fresh()).toBe(false);
    const before = server.paths.filter((p) => p === '/apis').length;
    cache.invalidate();
    expect(cache.fresh()).toBe(true);
    await cache.serverGroups();
    await cache.serverGroups();
    expect(server.paths.filter((p) => p === '/apis').length).toBe(before + 1);
    expect(cache.fresh()).toBe(true);
  });

  it('refetches a damaged file and replaces it', async () => {
    const cache = new DiskCachedDiscoveryClient(direct(), dir);
    await cache.serverResourcesForGroupVersion('apps/v1');
    const file = cache.resourcesFile('apps/v1');
    await writeFile(file, '{"groupVersion": "apps/v1", "resou');
    const fresh = await new DiskCachedDiscoveryClient(direct(), dir).serverResourcesForGroupVersion(
      'apps/v1',
    );
    expect(fresh.resources).toHaveLength(3);
    expect(JSON.parse(await readFile(file, 'utf8')).resources).toHaveLength(3);
  });

  it('treats a file with a future or past mtime by the injected clock', async () => {
    const cache = new DiskCachedDiscoveryClient(direct(), dir, { now: () => 10_000_000 });
    await cache.serverGroups();
    // Files dated at the fake clock's "now" are fresh for it.
    await utimes(cache.groupsFile(), 10_000, 10_000);
    await new DiskCachedDiscoveryClient(direct(), dir, { now: () => 10_000_000 }).serverGroups();
    expect(server.paths.filter((p) => p === '/apis')).toHaveLength(1);
  });

  it('keeps two clients writing the same dir at once consistent, leaving no temp files', async () => {
    const a = new DiskCachedDiscoveryClient(direct(), dir);
    const b = new DiskCachedDiscoveryClient(direct(), dir);
    const m = new MemCacheClient(new DiskCachedDiscoveryClient(direct(), dir));
    await Promise.all([
      a.serverGroupsAndResources(),
      b.serverGroupsAndResources(),
      m.serverGroupsAndResources(),
      a.serverPreferredResources(),
    ]);
    const files = await listFiles(dir);
    expect(files.some((f) => f.endsWith('.tmp'))).toBe(false);
    for (const file of files) {
      JSON.parse(await readFile(join(dir, file), 'utf8'));
    }
    expect(files).toHaveLength(9);
  });

  it('rejects group-versions that would escape the cache dir', () => {
    const cache = new DiskCachedDiscoveryClient(direct(), dir);
    expect(() => cache.resourcesFile('../v1')).toThrow(TypeError);
  });

  it('still answers when the cache dir cannot be written', async () => {
    const file = join(dir, 'not-a-dir');
    await writeFile(file, 'x');
    const cache = new DiskCachedDiscoveryClient(direct(), join(file, 'cache'));
    expect((await cache.serverGroups()).groups.length).toBe(6);
  });

  it('builds the per-server directory name like kubectl', () => {
    expect(discoveryCacheDirFor('https://127.0.0.1:6443', '/c')).toBe('/c/127.0.0.1_6443');
    expect(discoveryCacheDirFor('http://my-host.example.com:8080/prefix', '/c')).toBe(
      '/c/my_host.example.com_8080/prefix',
    );
    const viaConfig = DiskCachedDiscoveryClient.forConfig({ host: server.url }, { cacheDir: dir });
    expect(viaConfig.cacheDir).toBe(join(dir, `127.0.0.1_${new URL(server.url).port}`));
  });
});
