import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  buildKey,
  buildRoot,
  findKubernetesSource,
  prepareClientGo,
  probeClientGo,
} from './client-go.ts';

const temps: string[] = [];
function tempRoot(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kubets-bench-client-go-'));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function hasGo(): boolean {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('finding what the client-go runner is built from', () => {
  it('uses KUBETS_BUILD_DIR, else ~/.cache/kubets/build', () => {
    expect(buildRoot({ KUBETS_BUILD_DIR: '/b', HOME: '/h' })).toBe('/b');
    expect(buildRoot({ HOME: '/h' })).toBe('/h/.cache/kubets/build');
  });

  it('finds the unpacked kubernetes source that vendors client-go, and nothing else', () => {
    const root = tempRoot();
    expect(findKubernetesSource(root)).toBeUndefined();
    mkdirSync(path.join(root, 'src/kubernetes-1.20.2-without-vendor'), { recursive: true });
    mkdirSync(path.join(root, 'src/etcd-3.4/vendor/k8s.io/client-go/tools/cache'), {
      recursive: true,
    });
    expect(findKubernetesSource(root)).toBeUndefined();
    const source = path.join(root, 'src/kubernetes-1.20.5+really1.20.2');
    mkdirSync(path.join(source, 'vendor/k8s.io/client-go/tools/cache'), { recursive: true });
    expect(findKubernetesSource(root)).toBe(source);
  });

  it('rebuilds when the runner source, the toolchain or the kubernetes tree changes', () => {
    const key = buildKey('package main', 'go1.19.8', '/src/kubernetes-1.20.2');
    expect(buildKey('package main', 'go1.19.8', '/src/kubernetes-1.20.2')).toBe(key);
    expect(buildKey('package main // changed', 'go1.19.8', '/src/kubernetes-1.20.2')).not.toBe(key);
    expect(buildKey('package main', 'go1.21.0', '/src/kubernetes-1.20.2')).not.toBe(key);
    expect(buildKey('package main', 'go1.19.8', '/src/kubernetes-1.21.0')).not.toBe(key);
  });
});

describe('prepareClientGo', () => {
  it('skips the variant, saying why, without a Go toolchain', async () => {
    const prepared = await prepareClientGo({
      goCandidates: [path.join(tempRoot(), 'no-such-go')],
      root: tempRoot(),
    });
    expect(prepared).toEqual({ skipped: 'no Go toolchain (go version failed)' });
  });

  it.skipIf(!hasGo())('skips the variant, saying why, without the kubernetes source', async () => {
    const root = tempRoot();
    const prepared = await prepareClientGo({ root });
    expect(prepared).toEqual({
      skipped: expect.stringContaining(
        `no kubernetes source vendoring client-go under ${root}/src`,
      ),
    });
  });

  // The smoke check of client-go/main.go: built (once, then cached) against the vendored
  // client-go and run. Only where the provisioning left Go and the kubernetes source.
  it.skipIf(!hasGo() || findKubernetesSource(buildRoot()) === undefined)(
    'builds the runner against the vendored client-go, and it runs',
    async () => {
      const prepared = await prepareClientGo();
      if (!('binary' in prepared)) throw new Error(prepared.skipped);
      expect(await probeClientGo(prepared.binary)).toMatchObject({ probe: 'ok' });
      // Built once: the second call finds the cached binary.
      expect(await prepareClientGo()).toEqual(prepared);
    },
    20 * 60_000,
  );
});
