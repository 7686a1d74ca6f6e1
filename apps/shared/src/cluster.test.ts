import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findConfigSource } from './cluster.ts';

const emptyHome = mkdtempSync(join(tmpdir(), 'kubets-shared-home-'));
const home = mkdtempSync(join(tmpdir(), 'kubets-shared-home-'));
mkdirSync(join(home, '.kube'));
writeFileSync(join(home, '.kube', 'config'), 'apiVersion: v1\nkind: Config\n');

afterAll(() => {
  rmSync(emptyHome, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

const inCluster = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };

describe('findConfigSource', () => {
  it('is undefined when nothing is configured: demo mode', () => {
    expect(findConfigSource({}, {}, emptyHome)).toBeUndefined();
    expect(findConfigSource({}, { KUBECONFIG: '' }, emptyHome)).toBeUndefined();
    expect(
      findConfigSource({}, { KUBERNETES_SERVICE_HOST: '10.0.0.1' }, emptyHome),
    ).toBeUndefined();
  });

  it('looks at the flags, KUBECONFIG, ~/.kube/config, then in-cluster, in that order', () => {
    const env = { KUBECONFIG: '/some/where', ...inCluster };
    expect(findConfigSource({ kubeconfig: '/k' }, env, home)).toBe('flags');
    expect(findConfigSource({ master: 'https://127.0.0.1:6443' }, env, home)).toBe('flags');
    expect(findConfigSource({}, env, home)).toBe('KUBECONFIG');
    expect(findConfigSource({}, inCluster, home)).toBe('home');
    expect(findConfigSource({}, inCluster, emptyHome)).toBe('in-cluster');
  });
});
