// controller-runtime pkg/certwatcher/certwatcher_test.go, case by case. Waiting on the file
// system's events is waiting on a condition; the poll runs on a fake clock.
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FakeClock } from '@kubets/apimachinery/testing';
import { generateEnvtestCertificates } from '@kubets/envtest';
import { eventually } from '@kubets/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CertDir, certDir } from '../test/tls.js';
import { type CertificatePair, CertWatcher, WebhookServer } from './index.js';

let certs: CertDir;
let certPath: string;
let keyPath: string;
const stops: AbortController[] = [];
beforeEach(async () => {
  certs = await certDir();
  certPath = join(certs.dir, 'tls.crt');
  keyPath = join(certs.dir, 'tls.key');
});
afterEach(async () => {
  for (const stop of stops.splice(0)) stop.abort();
  await certs.cleanup();
});

function startWatcher(watcher: CertWatcher): { done: Promise<void>; stop: AbortController } {
  const stop = new AbortController();
  stops.push(stop);
  return { done: watcher.start(stop.signal), stop };
}

function recordChanges(watcher: CertWatcher): CertificatePair[] {
  const seen: CertificatePair[] = [];
  const first = watcher.current;
  watcher.onChange((pair) => {
    if (pair !== first) seen.push(pair);
  });
  return seen;
}

describe('CertWatcher', () => {
  describe('certwatcher New', () => {
    it('should errors without cert/key', async () => {
      await expect(CertWatcher.create({ certPath: '', keyPath: '' })).rejects.toThrow(
        'cannot load certificate  with key',
      );
    });
  });

  describe('certwatcher Start', () => {
    it('should not require LeaderElection', () => {
      expect(new WebhookServer().needLeaderElection).toBe(false);
    });

    it('should read the initial cert/key', async () => {
      const watcher = await CertWatcher.create({ certPath, keyPath });
      expect(watcher.current?.cert).toContain('BEGIN CERTIFICATE');
      const { done, stop } = startWatcher(watcher);
      stop.abort();
      await done;
    });

    it('should reload currentCert when changed', async () => {
      const watcher = await CertWatcher.create({ certPath, keyPath, clock: new FakeClock() });
      const { done, stop } = startWatcher(watcher);
      const changes = recordChanges(watcher);
      const next = await generateEnvtestCertificates();
      await writeFile(keyPath, next.serving.keyPem);
      await writeFile(certPath, next.serving.certPem);
      await eventually(() => expect(watcher.current?.cert).toBe(next.serving.certPem), {
        what: 'the new certificate',
      });
      stop.abort();
      await done;
      expect(changes.length).toBeGreaterThanOrEqual(1);
    });

    it('should reload currentCert when changed with rename', async () => {
      const watcher = await CertWatcher.create({ certPath, keyPath, clock: new FakeClock() });
      const { done, stop } = startWatcher(watcher);
      const changes = recordChanges(watcher);
      const next = await certs.rotate();
      await eventually(() => expect(watcher.current?.cert).toBe(next.serving.certPem), {
        what: 'the new certificate',
      });
      stop.abort();
      await done;
      expect(changes.length).toBeGreaterThanOrEqual(1);
    });

    it('should reload currentCert after move out', async () => {
      // The poll alone (no file-system watch), moved on by the fake clock.
      const clock = new FakeClock();
      const watcher = await CertWatcher.create({
        certPath,
        keyPath,
        clock,
        intervalMs: 1_000,
        watchFiles: false,
      });
      const { done, stop } = startWatcher(watcher);
      const changes = recordChanges(watcher);
      await rename(certPath, `${certPath}.old`);
      await rename(keyPath, `${keyPath}.old`);
      const next = await generateEnvtestCertificates();
      await writeFile(keyPath, next.serving.keyPem);
      await writeFile(certPath, next.serving.certPem);
      expect(watcher.current?.cert).not.toBe(next.serving.certPem);
      await eventually(async () => {
        await clock.advance(1_000);
        expect(watcher.current?.cert).toBe(next.serving.certPem);
      });
      stop.abort();
      await done;
      expect(changes).toHaveLength(1);
    });

    describe('prometheus metric read_certificate_total', () => {
      it('should get updated on successful certificate read', async () => {
        const watcher = await CertWatcher.create({ certPath, keyPath });
        const before = { ...watcher.reads };
        await watcher.readCertificate();
        expect(watcher.reads).toEqual({ total: before.total + 1, errors: before.errors });
      });

      it('should get updated on read certificate errors', async () => {
        const watcher = await CertWatcher.create({ certPath, keyPath });
        const before = { ...watcher.reads };
        await rm(keyPath);
        await expect(watcher.readCertificate()).rejects.toThrow(
          `cannot load certificate ${certPath} with key ${keyPath}`,
        );
        expect(watcher.reads).toEqual({ total: before.total + 1, errors: before.errors + 1 });
      });
    });
  });

  it('keeps the previous pair when the key does not match the certificate', async () => {
    const watcher = await CertWatcher.create({ certPath, keyPath });
    const previous = watcher.current;
    const other = await generateEnvtestCertificates();
    await writeFile(keyPath, other.serving.keyPem);
    await expect(watcher.readCertificate()).rejects.toThrow(
      `cannot load certificate ${certPath} with key ${keyPath}: the private key does not match the certificate`,
    );
    expect(watcher.current).toBe(previous);
  });
});
