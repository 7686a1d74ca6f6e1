// Chaos scenarios against a real etcd + kube-apiserver (envtest), sharing one envtest:
//   a. kube-apiserver SIGKILLed and restarted three times: once in the middle of a paged
//      LIST, twice during the WATCH, with writes in between;
//   b. kube-apiserver SIGSTOPped for longer than the watch timeout, and a connection
//      blackholed by a TCP proxy: the reflector's watch deadline must replace the dead watch;
//   c. etcd compacted while the informer is cut off, so its re-watch gets 410 and even the
//      relist at its old resourceVersion does: it must relist at the latest;
//   h. ten informers of one shared factory, five resources in two namespaces, under churn.
// Each ends with the convergence check: store == server list (keys and resourceVersions),
// every handler saw every final state including deletions, no unhandled rejection, and
// (where meaningful) the heap after GC back near its baseline.
import { randomUUID } from 'node:crypto';
import { isGone, isResourceExpired } from '@kubets/apimachinery';
import { type Envtest, startEnvtest } from '@kubets/envtest';
import { type Config, loadConfig, RESTClient } from '@kubets/rest';
import { ChaosProxy, eventually, MemoryLogger } from '@kubets/test-utils';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newKeyedInformerFactory } from '../../src/factory.js';
import { listWatchFromClient } from '../../src/listwatch-client.js';
import { newSharedIndexInformer, type SharedIndexInformer } from '../../src/shared-informer.js';
import { setMinWatchTimeoutFloorSeconds } from '../../src/testing.js';
import { compactEtcd, etcdRevision } from '../etcd.js';
import {
  churn,
  configMaps,
  expectConverged,
  heapAfterGc,
  heapSlackBytes,
  isWatchDeadline,
  listFromServer,
  type Obj,
  parallel,
  RecordingHandler,
  sleep,
  startInformer,
  UnhandledRejections,
  type WritableResource,
  Writer,
} from './helpers.js';

/** Generous: the machine may be slow and kube-apiserver takes a while to restart. */
const convergeMs = 150_000;
const syncMs = 120_000;

let env: Envtest;
let config: Config;
let client: RESTClient;
const unhandled = new UnhandledRejections();
const cleanups: (() => Promise<void> | void)[] = [];
/** kube-apiserver is SIGSTOPped: it must be continued before anything else. */
let stoppedPid: number | undefined;

beforeAll(async () => {
  env = await startEnvtest();
  config = { ...loadConfig({ kubeconfig: env.kubeconfigPath }), qps: -1 };
  client = new RESTClient(config, { groupVersion: 'v1' });
});

afterAll(async () => {
  if (stoppedPid !== undefined) process.kill(stoppedPid, 'SIGCONT');
  await env?.stop();
});

beforeEach(() => {
  unhandled.start();
});

afterEach(async () => {
  if (stoppedPid !== undefined) process.kill(stoppedPid, 'SIGCONT');
  stoppedPid = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  unhandled.stop();
});

async function newNamespace(prefix: string): Promise<string> {
  const name = `${prefix}-${randomUUID().slice(0, 8)}`;
  await new Writer(client).create({ resource: 'namespaces', kind: 'Namespace' }, '', name, '0');
  return name;
}

/** A rest config whose requests go through `proxy`. */
function viaProxy(proxy: ChaosProxy, overrides: Partial<Config> = {}): Config {
  return { ...config, host: proxy.url(), ...overrides };
}

async function startProxy(): Promise<ChaosProxy> {
  const proxy = await ChaosProxy.start(env.host);
  cleanups.push(() => proxy.close());
  return proxy;
}

/**
 * SIGKILLs kube-apiserver and starts it again; resolves once the old process is gone, with
 * the restart (which resolves once the new one is ready).
 */
async function killApiServer(): Promise<{ restarted: Promise<void> }> {
  const old = env.pids.kubeApiserver;
  const restarted = env.restartApiServer({ signal: 'SIGKILL' });
  restarted.catch(() => undefined); // awaited by the test; must not count as unhandled meanwhile
  await eventually(() => env.pids.kubeApiserver !== old, {
    what: 'kube-apiserver to be killed',
    timeoutMs: 30_000,
    intervalMs: 100,
  });
  return { restarted };
}

describe('a. kube-apiserver SIGKILLed and restarted three times', () => {
  it('during a paged LIST and twice during the WATCH, with writes between: converges', async () => {
    const ns = await newNamespace('chaos-a');
    const writer = new Writer(client);
    // Enough objects for many pages of 10: the first restart lands between two of them.
    const blob = 'x'.repeat(512);
    await parallel(120, (i) =>
      writer.create(configMaps, ns, `seed-${String(i).padStart(3, '0')}`, 'seed', {
        data: { blob },
      }),
    );

    const logger = new MemoryLogger(200);
    let restart1: Promise<void> | undefined;
    let killed = false;
    let pagesBeforeKill = 0;
    const h = startInformer<Obj>({
      // No client-side retries: the reflector itself must notice the failed page and relist.
      client: new RESTClient({ ...config, maxRetries: 0 }, { groupVersion: 'v1' }),
      resource: 'configmaps',
      namespace: ns,
      options: { pageSize: 10, logger },
      // A quorum list (from etcd, paged) rather than resourceVersion=0 (the watch cache, which
      // kube-apiserver answers unpaged).
      tweak: (o) => {
        if (o.resourceVersion === '0') o.resourceVersion = '';
      },
      wrap: (lw) => ({
        list: async (options, signal) => {
          if (!killed && options.continue) {
            pagesBeforeKill++;
            if (pagesBeforeKill === 3) {
              killed = true;
              // The kill must land inside this page, not before it: freeze kube-apiserver so
              // the request can reach it but never be answered, send it, then SIGKILL the
              // frozen process (its connections are reset). Waiting for a restart to begin
              // before sending would let a quickly restarted server answer the page.
              process.kill(env.pids.kubeApiserver, 'SIGSTOP');
              const page = lw.list(options, signal);
              page.catch(() => undefined); // returned below; must not count as unhandled meanwhile
              restart1 = (await killApiServer()).restarted;
              return page;
            }
          }
          return lw.list(options, signal);
        },
        watch: (options, signal) => lw.watch(options, signal),
      }),
    });
    cleanups.push(() => h.stop());

    await h.synced(syncMs);
    await restart1;
    expect(restart1).toBeDefined();
    // The page after the kill failed, and the reflector started the list over.
    expect(h.listFailures.length).toBeGreaterThanOrEqual(1);
    const firstPages = h.lists.filter((o) => !o.continue);
    expect(firstPages.length).toBeGreaterThanOrEqual(2);
    const baseline = await heapAfterGc();

    let restart2: Promise<void> | undefined;
    let restart3: Promise<void> | undefined;
    let watchesAtKill2 = 0;
    await churn({
      writer,
      targets: [{ r: configMaps, ns }],
      seed: 0xa11ce,
      ops: 240,
      keyspace: 40,
      at: async (i) => {
        if (i === 80) {
          watchesAtKill2 = h.watches.length;
          restart2 = (await killApiServer()).restarted;
        }
        if (i === 160) {
          // The third kill comes once the informer watches again after the second.
          await restart2;
          await eventually(() => h.watches.length > watchesAtKill2, {
            what: 'a watch after the second restart',
            timeoutMs: syncMs,
            intervalMs: 100,
          });
          restart3 = (await killApiServer()).restarted;
        }
      },
    });
    await restart2;
    await restart3;

    try {
      await expectConverged(
        {
          informer: h.informer,
          handlers: h.handlers,
          list: () => listFromServer<Obj>(client, 'configmaps', ns),
        },
        convergeMs,
      );
    } catch (err) {
      console.error(`a: the informer's log:\n${logger.text().join('\n')}`);
      throw err;
    } finally {
      console.info(
        `a: writer ${JSON.stringify(writer.stats)}; informer ${h.lists.length} list calls, ` +
          `${h.watches.length} watches, ${h.watchErrors.length} list/watch errors, ` +
          `${h.listFailures.length} failed list calls`,
      );
    }
    expect(h.watchErrors.length).toBeGreaterThanOrEqual(3);
    expect(writer.stats.delete).toBeGreaterThan(0);
    expect(h.handlers[0]!.deleted.size).toBeGreaterThan(0);
    expect(h.informer.isStopped()).toBe(false);
    expect(unhandled.reasons).toEqual([]);
    expect(await heapAfterGc()).toBeLessThan(baseline + heapSlackBytes);
  });
});

describe('b. a stalled kube-apiserver and a blackholed connection', () => {
  // Watches ask for 4–8 s; a watch not over 2 s after that is presumed dead.
  const tuning = { minWatchTimeoutSeconds: 4, watchDeadlineGraceSeconds: 2 };
  let floor: number | undefined;
  beforeAll(() => {
    floor = setMinWatchTimeoutFloorSeconds(4);
  });
  afterAll(() => {
    setMinWatchTimeoutFloorSeconds(floor);
  });

  it('SIGSTOP for longer than the watch timeout, then SIGCONT: the stalled watch is replaced', async () => {
    const ns = await newNamespace('chaos-b1');
    const writer = new Writer(client);
    for (let i = 0; i < 5; i++) await writer.create(configMaps, ns, `pre-${i}`, 'pre');
    const h = startInformer<Obj>({
      client: new RESTClient(config, { groupVersion: 'v1' }),
      resource: 'configmaps',
      namespace: ns,
      options: tuning,
    });
    cleanups.push(() => h.stop());
    await h.synced(syncMs);
    const errorsBefore = h.watchErrors.length;

    const pid = env.pids.kubeApiserver;
    process.kill(pid, 'SIGSTOP');
    stoppedPid = pid;
    try {
      // Longer than any watch's timeout plus grace (8 s + 2 s).
      await sleep(12_000);
    } finally {
      process.kill(pid, 'SIGCONT');
      stoppedPid = undefined;
    }
    // The informer did not wait on the stalled watch: it gave up on it at the deadline.
    expect(h.watchErrors.slice(errorsBefore).some(isWatchDeadline)).toBe(true);

    await churn({ writer, targets: [{ r: configMaps, ns }], seed: 0xb1, ops: 40, keyspace: 10 });
    await expectConverged(
      {
        informer: h.informer,
        handlers: h.handlers,
        list: () => listFromServer<Obj>(client, 'configmaps', ns),
      },
      convergeMs,
    );
    expect(h.informer.isStopped()).toBe(false);
    expect(unhandled.reasons).toEqual([]);
  });

  it('a blackholed watch connection (bytes dropped, never closed) is detected and replaced', async () => {
    const ns = await newNamespace('chaos-b2');
    const writer = new Writer(client);
    for (let i = 0; i < 5; i++) await writer.create(configMaps, ns, `pre-${i}`, 'pre');
    const proxy = await startProxy();
    const h = startInformer<Obj>({
      client: new RESTClient(viaProxy(proxy), { groupVersion: 'v1' }),
      resource: 'configmaps',
      namespace: ns,
      options: tuning,
    });
    cleanups.push(() => h.stop());
    await h.synced(syncMs);
    await eventually(() => h.watches.length >= 1, {
      what: 'the watch to be open',
      timeoutMs: syncMs,
      intervalMs: 100,
    });
    const errorsBefore = h.watchErrors.length;

    // Like a NAT forgetting the connection: the watch hears nothing more, not even its end.
    expect(proxy.blackhole()).toBeGreaterThan(0);
    // Writes the informer can only learn through a new watch.
    await churn({ writer, targets: [{ r: configMaps, ns }], seed: 0xb2, ops: 40, keyspace: 10 });
    // Well within one minute: the deadline is at most 10 s after the watch started.
    await expectConverged(
      {
        informer: h.informer,
        handlers: h.handlers,
        list: () => listFromServer<Obj>(client, 'configmaps', ns),
      },
      60_000,
    );
    expect(h.watchErrors.slice(errorsBefore).some(isWatchDeadline)).toBe(true);
    expect(h.lists).toHaveLength(1); // re-watched from the last resourceVersion, no relist
    expect(h.informer.isStopped()).toBe(false);
    expect(unhandled.reasons).toEqual([]);
  });
});

describe('c. etcd compaction', () => {
  it('re-watch from a compacted resourceVersion: 410, relist (itself 410 at the old RV), converge', async () => {
    const ns = await newNamespace('chaos-c');
    const writer = new Writer(client);
    for (let i = 0; i < 12; i++) await writer.create(configMaps, ns, `cm-${i}`, 'pre');
    const proxy = await startProxy();
    const h = startInformer<Obj>({
      client: new RESTClient(viaProxy(proxy), { groupVersion: 'v1' }),
      resource: 'configmaps',
      namespace: ns,
      // An explicit page size: the relist at a known resourceVersion goes to etcd, at exactly
      // that revision, rather than to the watch cache.
      options: { pageSize: 5 },
    });
    cleanups.push(() => h.stop());
    await h.synced(syncMs);
    for (let i = 0; i < 3; i++) await writer.update(configMaps, ns, `cm-${i}`, 'seen');
    const list = () => listFromServer<Obj>(client, 'configmaps', ns);
    await expectConverged({ informer: h.informer, handlers: h.handlers, list }, convergeMs);

    // Cut the informer off and keep it off.
    proxy.refuse(true);
    proxy.reset();
    const rvBefore = h.informer.lastSyncResourceVersion();
    const listsBefore = h.lists.length;
    // Changes it can only learn by relisting, deletions included.
    for (let i = 0; i < 4; i++) await writer.delete(configMaps, ns, `cm-${i}`);
    for (let i = 4; i < 8; i++) await writer.update(configMaps, ns, `cm-${i}`, 'unseen');
    for (let i = 0; i < 4; i++) await writer.create(configMaps, ns, `new-${i}`, 'unseen');
    // Forget the history, and restart kube-apiserver so its watch cache starts over too.
    const revision = await etcdRevision(env.etcdEndpoint);
    expect(revision).toBeGreaterThan(Number(rvBefore));
    await compactEtcd(env.etcdEndpoint, revision);
    await env.restartApiServer({ signal: 'SIGKILL' });
    proxy.refuse(false);

    await expectConverged({ informer: h.informer, handlers: h.handlers, list }, convergeMs);
    expect(h.watchErrors.some((e) => isResourceExpired(e) || isGone(e))).toBe(true);
    const relists = h.lists.slice(listsBefore).filter((o) => !o.continue);
    // The relist at the old resourceVersion (410: compacted), then one at the latest.
    const atOld = relists.findIndex((o) => o.resourceVersion === rvBefore);
    expect(atOld).toBeGreaterThanOrEqual(0);
    expect(relists.slice(atOld + 1).some((o) => !o.resourceVersion)).toBe(true);
    expect(h.listFailures.some((e) => isResourceExpired(e) || isGone(e))).toBe(true);
    // Deletions missed meanwhile arrived as tombstones.
    for (const handler of h.handlers) expect(handler.tombstones).toBe(4);
    expect(h.informer.isStopped()).toBe(false);
    expect(unhandled.reasons).toEqual([]);
  });
});

describe('h. ten informers sharing one factory', () => {
  it('five resources in two namespaces, churned (and all watches cut once): all converge', async () => {
    const namespaces = [await newNamespace('chaos-h1'), await newNamespace('chaos-h2')];
    const resources: WritableResource[] = [
      configMaps,
      { resource: 'secrets', kind: 'Secret', body: { type: 'Opaque' } },
      { resource: 'serviceaccounts', kind: 'ServiceAccount' },
      { resource: 'endpoints', kind: 'Endpoints' },
      {
        resource: 'podtemplates',
        kind: 'PodTemplate',
        body: {
          template: {
            metadata: { labels: { app: 'chaos' } },
            spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.9' }] },
          },
        },
      },
    ];
    const proxy = await startProxy();
    const informerClient = new RESTClient(viaProxy(proxy), { groupVersion: 'v1' });
    const factory = newKeyedInformerFactory({ defaultResyncMs: 0 });
    cleanups.push(() => factory.shutdown());
    const targets = namespaces.flatMap((ns) => resources.map((r) => ({ r, ns })));
    const watched: {
      informer: SharedIndexInformer<Obj>;
      handler: RecordingHandler<Obj>;
      resource: string;
      ns: string;
    }[] = [];
    for (const { r, ns } of targets) {
      const informer = factory.informerFor<Obj>(`v1/${r.resource}@${ns}`, ({ resyncPeriodMs }) =>
        newSharedIndexInformer<Obj>(
          listWatchFromClient<Obj>(informerClient, r.resource, ns),
          r.resource,
          { resyncPeriodMs },
        ),
      );
      const handler = new RecordingHandler<Obj>({ yieldEvery: 5 });
      informer.addEventHandler(handler);
      watched.push({ informer, handler, resource: r.resource, ns });
    }
    expect(new Set(watched.map((w) => w.informer)).size).toBe(10);
    const ac = new AbortController();
    cleanups.push(() => ac.abort());
    factory.start(ac.signal);
    const synced = await factory.waitForCacheSync(AbortSignal.timeout(syncMs));
    expect([...synced.values()]).toEqual(Array(10).fill(true));
    const baseline = await heapAfterGc();

    const writer = new Writer(client);
    await churn({
      writer,
      targets,
      seed: 0x4ac7,
      ops: 400,
      keyspace: 8,
      at: (i) => {
        if (i === 200) proxy.reset(); // every watch breaks at once
      },
    });

    for (const w of watched) {
      await expectConverged(
        {
          informer: w.informer,
          handlers: [w.handler],
          list: () => listFromServer<Obj>(client, w.resource, w.ns),
        },
        convergeMs,
      );
    }
    console.info(`h: writer ${JSON.stringify(writer.stats)}`);
    expect(writer.stats.delete).toBeGreaterThan(0);
    for (const w of watched) expect(w.informer.isStopped()).toBe(false);
    expect(unhandled.reasons).toEqual([]);
    await factory.shutdown();
    for (const w of watched) expect(w.informer.isStopped()).toBe(true);
    expect(await heapAfterGc()).toBeLessThan(baseline + heapSlackBytes);
  });
});
