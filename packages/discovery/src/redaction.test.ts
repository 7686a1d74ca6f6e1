// Discovery clients, their caches and REST mappers print without the credentials of their
// config (the clientset and informers are checked in @kubets/informers' redaction test).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '@kubets/rest';
import { noSecretAssertion, secretConfig } from '@kubets/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DiscoveryClient,
  DiskCachedDiscoveryClient,
  discoveryCacheDirFor,
  discoveryConfig,
  MemCacheClient,
  RESTMapper,
} from './index.js';

const config: Config = secretConfig(); // every kind of credential, never contacted
const expectNoSecret = noSecretAssertion();

describe('discovery clients print without credentials', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('the client, its caches, REST mappers and the config it derives', () => {
    dir = mkdtempSync(join(tmpdir(), 'kubets-redaction-'));
    const discovery = new DiscoveryClient({ ...config });
    expectNoSecret(discovery, 'DiscoveryClient');
    const memory = new MemCacheClient(discovery);
    expectNoSecret(memory, 'MemCacheClient');
    const disk = DiskCachedDiscoveryClient.forConfig({ ...config }, { cacheDir: dir });
    expectNoSecret(disk, 'DiskCachedDiscoveryClient');
    expectNoSecret(new RESTMapper(memory), 'RESTMapper');
    expectNoSecret(discoveryConfig({ ...config }), 'discoveryConfig');
  });

  it('leaves a password in the server URL out of the cache directory', () => {
    expect(discoveryCacheDirFor(config.host, '/cache')).toBe('/cache/127.0.0.1_6443');
    expect(discoveryCacheDirFor('https://127.0.0.1:6443/prefix@x', '/cache')).toBe(
      '/cache/127.0.0.1_6443/prefix_x',
    );
  });
});
