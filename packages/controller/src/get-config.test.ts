import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { getConfig, withOperatorRateLimits } from './index.js';

function kubeconfigFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kubets-getconfig-'));
  const path = join(dir, 'config');
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]',
      'users: [{name: u, user: {token: secret-token}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
    ].join('\n'),
  );
  return path;
}

describe('getConfig', () => {
  it('gives a loaded config 20 requests/s and a burst of 30, as controller-runtime does', () => {
    const config = getConfig({ kubeconfig: kubeconfigFile(), env: {} });
    expect(config.host).toBe('https://127.0.0.1:6443');
    expect({ qps: config.qps, burst: config.burst }).toEqual({ qps: 20, burst: 30 });
    // Still printed redacted, as every loaded config.
    expect(inspect(config)).not.toContain('secret-token');
  });

  it('keeps the rates a config sets, and a rate limiter of its own', () => {
    expect(withOperatorRateLimits({ host: 'h', qps: 5 })).toMatchObject({ qps: 5, burst: 30 });
    expect(withOperatorRateLimits({ host: 'h', qps: -1, burst: 1 })).toMatchObject({
      qps: -1,
      burst: 1,
    });
    const limiter = { tryAccept: () => true, accept: async () => {}, stop: () => {} };
    const own = withOperatorRateLimits({ host: 'h', rateLimiter: limiter as never });
    expect(own.qps).toBeUndefined();
    expect(own.burst).toBeUndefined();
  });
});
