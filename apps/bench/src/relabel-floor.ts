// How fast a real kube-apiserver takes the writes and reads of a sharding takeover, with no
// ring and no controller: the floor under the sharding e2e's "reassigned and reconciled
// within the Lease duration plus one renew period" (docs/sharding.md). The e2e kills one of
// four members holding a quarter of 3,000 ConfigMaps; after its Lease expires, the sharder
// relabels each of its objects (one conditional merge patch each, 32 at once) while the
// three survivors reconcile them (the e2e's reconciler reads each object once, 8 at once per
// member). This tool times those requests alone, on an envtest of its own:
//
//   node src/relabel-floor.ts [--objects N] [--rounds R] [--watchers W]
//
// Each round creates N ConfigMaps labelled `shard=dead`, opens W watches (the survivors'
// takeover informers select on the dead member, their own caches on themselves: by default
// 8, as in the e2e: three on the dead member, three on the survivors, the sharder's and the
// test's on every object), then times three phases: N relabel patches
// alone (32 in flight), N reads alone (24 in flight), and both at once (the takeover as the
// e2e runs it). It prints each phase's duration and requests per second, per round and as
// medians. Loopback only; the numbers depend on the machine, so run it on a quiet one.

import { parseArgs } from 'node:util';
import { Clientset } from '@kubets/clientset';
import { startEnvtest } from '@kubets/envtest';
import { loadConfig } from '@kubets/rest';
import { pool } from './pool.ts';
import { median } from './stats.ts';

const { values } = parseArgs({
  options: {
    objects: { type: 'string', default: '800' },
    rounds: { type: 'string', default: '3' },
    watchers: { type: 'string', default: '8' },
  },
});
const objects = Number(values.objects);
const rounds = Number(values.rounds);
const watchers = Number(values.watchers);
for (const [name, n] of Object.entries({ objects, rounds, watchers })) {
  if (!Number.isInteger(n) || n < (name === 'watchers' ? 0 : 1)) {
    throw new RangeError(`--${name} must be a whole number, got ${String(n)}`);
  }
}

const SHARD = 'shard.sharding.kubets.io/floor';

/** The e2e's watches: three on the dead member, three on the survivors s1, s3, s5, the rest on all. */
function selectorOfWatch(i: number): { labelSelector?: string } {
  if (i < 3) return { labelSelector: `${SHARD}=dead` };
  if (i < 6) return { labelSelector: `${SHARD}=s${(i - 3) * 2 + 1}` };
  return {};
}
const PATCHES_IN_FLIGHT = 32;
const READS_IN_FLIGHT = 24;

const envtest = await startEnvtest();
try {
  const clientset = new Clientset({
    ...loadConfig({ kubeconfig: envtest.kubeconfigPath }),
    qps: -1,
    timeoutMs: 60_000,
  });
  const phases = { relabel: [] as number[], read: [] as number[], both: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    for (const phase of ['relabel', 'read', 'both'] as const) {
      const namespace = `floor-${round}-${phase}`;
      await clientset
        .coreV1()
        .namespaces()
        .create({ metadata: { name: namespace } });
      const cms = clientset.coreV1().configMaps(namespace);
      const names = Array.from({ length: objects }, (_, i) => `obj-${i}`);
      await pool(objects, PATCHES_IN_FLIGHT, async (i) => {
        await cms.create({ metadata: { name: names[i], labels: { [SHARD]: 'dead' } } });
      });
      const list = await cms.list();
      const versions = new Map(
        (list.items ?? []).map((cm) => [cm.metadata?.name, cm.metadata?.resourceVersion]),
      );
      const watches = await Promise.all(
        Array.from({ length: watchers }, async (_, i) => {
          const stream = await cms.watch({
            resourceVersion: list.metadata?.resourceVersion,
            ...selectorOfWatch(i),
          });
          void (async () => {
            for await (const _ of stream);
          })().catch(() => {});
          return stream;
        }),
      );
      const relabel = () =>
        pool(objects, PATCHES_IN_FLIGHT, async (i) => {
          await cms.patch(names[i] as string, 'application/merge-patch+json', {
            metadata: {
              resourceVersion: versions.get(names[i]),
              labels: { [SHARD]: `s${1 + (i % 3) * 2}` },
              annotations: { [SHARD]: `s${1 + (i % 3) * 2}` },
            },
          });
        });
      const read = () =>
        pool(objects, READS_IN_FLIGHT, async (i) => {
          await cms.get(names[i] as string);
        });
      const started = performance.now();
      if (phase === 'relabel') await relabel();
      else if (phase === 'read') await read();
      else await Promise.all([relabel(), read()]);
      const ms = performance.now() - started;
      phases[phase].push(ms);
      process.stdout.write(
        `round ${round + 1} ${phase}: ${objects} objects in ${ms.toFixed(0)} ms (${((objects * (phase === 'both' ? 2 : 1) * 1000) / ms).toFixed(0)} requests/s)\n`,
      );
      for (const w of watches) w.stop();
      await clientset.coreV1().namespaces().delete(namespace);
    }
  }
  for (const [phase, ms] of Object.entries(phases)) {
    process.stdout.write(
      `median ${phase}: ${median(ms).toFixed(0)} ms for ${objects} objects (${watchers} watches open)\n`,
    );
  }
} finally {
  await envtest.stop();
}
