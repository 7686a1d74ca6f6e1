import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateEnvtestCertificates } from '@kubets/envtest';
import { eventually } from '@kubets/test-utils';
import { webhookConfigurations } from '@kubets/webhook';
import { describe, expect, it } from 'vitest';
import { useSharedApiServer } from '../../test/server.js';
import { shardedManager } from '../../test/sharded-manager.js';

const shared = useSharedApiServer();

describe('ShardRing with assignOnCreate', () => {
  it('labels each new object with its member at creation, by a mutating webhook', async () => {
    const namespace = await shared.createNamespace('shard-admission');
    const certDir = await mkdtemp(join(tmpdir(), 'kubets-shard-webhook-'));
    const certs = await generateEnvtestCertificates();
    await writeFile(join(certDir, 'tls.crt'), certs.serving.certPem);
    await writeFile(join(certDir, 'tls.key'), certs.serving.keyPem);
    // No sharder anywhere: a label can only come from the webhook.
    const { clock, ring, mgr } = shardedManager(
      shared.server.host,
      namespace,
      { runSharder: false, assignOnCreate: true },
      { webhookServer: { host: '127.0.0.1', port: 0, certDir } },
    );
    expect(
      mgr.webhooks.registrations.map((r) => [r.type, r.name, r.path, r.failurePolicy]),
    ).toEqual([
      [
        'mutating',
        'configmaps.cms.shard.sharding.kubets.io',
        '/shard-cms-core-v1-configmaps',
        'Ignore',
      ],
    ]);
    const abort = new AbortController();
    const done = mgr.start(abort.signal);
    const configurations = shared.clientset
      .admissionregistrationV1()
      .mutatingWebhookConfigurations();
    const cms = shared.clientset.coreV1().configMaps(namespace);
    try {
      const { port } = await mgr.webhooks.server.listening();
      const { mutating } = webhookConfigurations('shard-cms', mgr.webhooks.registrations, {
        url: `https://127.0.0.1:${port}`,
        caBundlePem: certs.ca.certPem,
      });
      await configurations.create(mutating as NonNullable<typeof mutating>);
      // Once this replica is a member and has seen its own Lease, new objects come labelled.
      let n = 0;
      await eventually(async () => {
        await clock.advance(200);
        const probe = await cms.create({ metadata: { name: `probe-${n++}` } });
        return probe.metadata?.labels?.['shard.sharding.kubets.io/cms'] === 'pod-a';
      });
      const created = await cms.create({ metadata: { name: 'new-one' } });
      expect(created.metadata?.labels).toEqual({ 'shard.sharding.kubets.io/cms': 'pod-a' });
      // With the sharder's record of it, so the member reconciles it without a write more.
      expect(created.metadata?.annotations).toEqual({ 'shard.sharding.kubets.io/cms': 'pod-a' });
      // A label already given is left alone; so is a name the server has yet to generate.
      const given = await cms.create({
        metadata: { name: 'given', labels: { 'shard.sharding.kubets.io/cms': 'someone' } },
      });
      expect(given.metadata?.labels).toEqual({ 'shard.sharding.kubets.io/cms': 'someone' });
      expect(given.metadata?.annotations).toBeUndefined();
      const generated = await cms.create({ metadata: { generateName: 'gen-' } });
      expect(generated.metadata?.labels).toBeUndefined();
      // And the member caches what the webhook gave it: the last probe and new-one.
      await eventually(async () => {
        await clock.advance(200);
        return ring.stats().assigned === 2;
      });
    } finally {
      await configurations.delete('shard-cms').catch(() => {});
      abort.abort();
      await done;
      await rm(certDir, { recursive: true, force: true });
    }
  });
});
