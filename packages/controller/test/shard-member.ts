// A member of a shard ring for the sharding e2e test, run as its own process with `node`
// (Node 24 strips the types). It imports the packages by name, so it runs the built `dist`.
//
//   node shard-member.ts <kubeconfig> <namespace> <identity> <dir> <leaseMs> <renewMs> <retryMs>
//
// It reconciles the ConfigMaps of <namespace> assigned to it, appending to <dir>/<identity>.audit
// a line as each reconcile starts (`start <key> <ms>`), one with the shard label the server
// shows then (`assigned <key> <member>`), for a reconcile under a takeover record the record
// (`takeover <key> <JSON of the ShardTakeover>`), and one as it ends (`end <key> <ms>`), times
// in fractional milliseconds of the wall clock the processes share.
// Every 100 ms it writes <dir>/<identity>.status: membership, cache size, stats.
import { appendFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { LogFields, Logger } from '@kubets/apimachinery';
import { coreV1Resources } from '@kubets/clientset';
import { controller, Manager, ShardRing } from '@kubets/controller';
import { loadConfig } from '@kubets/rest';

const [kubeconfig, namespace, identity, dir, leaseMs, renewMs, retryMs] = process.argv.slice(2);
if (!kubeconfig || !namespace || !identity || !dir || !leaseMs || !renewMs || !retryMs) {
  process.stderr.write(
    'usage: shard-member.ts <kubeconfig> <namespace> <identity> <dir> <leaseMs> <renewMs> <retryMs>\n',
  );
  process.exit(2);
}

const toStderr = (level: string) => (message: string, fields?: LogFields) => {
  process.stderr.write(
    `${new Date().toISOString()} ${level} ${identity}: ${message} ${JSON.stringify(fields ?? {})}\n`,
  );
};
const logger: Logger = {
  debug: () => {},
  info: toStderr('I'),
  warn: toStderr('W'),
  error: toStderr('E'),
};

const configMaps = coreV1Resources.configMaps;
const ring = new ShardRing({
  name: 'e2e',
  namespace,
  identity,
  resources: [{ resource: configMaps, namespace }],
  leaseDurationMs: Number(leaseMs),
  renewDeadlineMs: Number(renewMs),
  retryPeriodMs: Number(retryMs),
});
const mgr = new Manager(
  { ...loadConfig({ kubeconfig }), qps: -1, timeoutMs: 10_000 },
  { cache: ring.cacheOptions(), namespace, logger },
);
ring.addTo(mgr);
const audit = path.join(dir, `${identity}.audit`);
const now = (): string => (performance.timeOrigin + performance.now()).toFixed(3);
controller(mgr)
  .for(configMaps)
  .withOptions({ maxConcurrentReconciles: 8 })
  .complete(
    ring.reconciler(configMaps, async (req, ctx) => {
      const key = `${req.namespace}/${req.name}`;
      appendFileSync(audit, `start ${key} ${now()}\n`);
      const takeover = ring.takeoverOf(configMaps, req);
      if (takeover) appendFileSync(audit, `takeover ${key} ${JSON.stringify(takeover)}\n`);
      try {
        // What the server says at the start, for the test to check nobody reconciles what
        // is not assigned to it.
        const live = await mgr.clientset
          .coreV1()
          .configMaps(req.namespace)
          .get(req.name, { signal: ctx.signal });
        appendFileSync(
          audit,
          `assigned ${key} ${live.metadata?.labels?.[ring.shardLabel] ?? '-'}\n`,
        );
        await nextTurn();
      } finally {
        appendFileSync(audit, `end ${key} ${now()}\n`);
      }
    }),
  );

const status = path.join(dir, `${identity}.status`);
const report = setInterval(() => {
  const cached = mgr.informers.forResource(configMaps).informer().getStore().list().length;
  writeFileSync(
    `${status}.tmp`,
    JSON.stringify({
      at: Date.now(),
      member: ring.isMember(),
      sharder: ring.isSharder(),
      cached,
      stats: ring.stats(),
    }),
  );
  renameSync(`${status}.tmp`, status);
}, 100);

const shutdown = new AbortController();
process.on('SIGTERM', () => shutdown.abort());
try {
  await mgr.start(shutdown.signal);
} finally {
  clearInterval(report);
}
