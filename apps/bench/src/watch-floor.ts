// What one watch event costs a Node.js client, layer by layer: CPU-seconds per 10,000 events
// that arrive one at a time over TLS, as they do from a busy cluster. It separates what any
// Node client pays (the socket, TLS and HTTP reads, JSON.parse) from what kubets adds on top
// (decoding into a watch stream, then the informer pipeline), next to client-node's watch and
// informer.
//
//   node src/watch-floor.ts [--events N] [--interval-ms MS] [--backlog] [--rounds R]
//                           [--warmup W] [--only TEXT|SLUGS] [--cpu-prof DIR]
//
// A child process runs the in-memory API server of @kubets/apiserver over HTTPS and patches one
// Pod N times, one patch every MS milliseconds; this process watches that Pod with each client
// in turn and takes process.cpuUsage() (user + system) from the first event to the N-th.
// Events that arrive one at a time cost each client a wake-up per event (a socket read, a
// TLS record, the HTTP and stream layers), the same for all, which can outweigh what the
// clients themselves do. `--backlog` measures without it: this process holds its event loop
// (reads nothing) while the patcher sends all N patches back to back, then drains the
// backlog, many events per read; the CPU is taken from the release to the N-th event.
// Every round measures each layer once (the order reversed from one round to the next); the
// ratios to the floor and to client-node's informer are taken within a round, so a machine
// whose load changes between rounds still compares like with like, and their medians are
// printed. `--warmup W` first sends each layer W events that are not measured (its code is
// then optimised, as in a long-running process). `--cpu-prof DIR` writes each layer's event
// window, round by round, as a .cpuprofile (read it with top-frames.ts).

import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { KubeConfig, Watch } from '@kubernetes/client-node';
import { startApiServer } from '@kubets/apiserver';
import { type Config, loadConfig, RESTClient } from '@kubets/rest';
import { podFixture } from './fixture.ts';
import { readWatchLines } from './floor.ts';
import { countCollections, formatCollections } from './gc-count.ts';
import { cpuWindow, type PatchRequest, patchOnePod } from './patch-one.ts';
import { type PodPipeline, startClientNodePipeline, startPodPipeline } from './pod-pipeline.mjs';
import { startProfile } from './profile.ts';
import { median } from './stats.ts';

const namespace = 'default';
const podName = 'watch-floor';

type ServerMessage = { kubeconfigPath: string } | { patched: number };

/** The child: an HTTPS in-memory API server and a patcher of one Pod. */
async function serve(): Promise<void> {
  const server = await startApiServer({ tls: true });
  const core = new RESTClient(
    { ...loadConfig({ kubeconfig: server.kubeconfigPath }), qps: -1 },
    { groupVersion: 'v1' },
  );
  const pod = podFixture(0, namespace) as { metadata: { name: string } };
  pod.metadata.name = podName;
  await core.post().namespace(namespace).resource('pods').body(pod).do();
  process.send?.({ kubeconfigPath: server.kubeconfigPath } satisfies ServerMessage);
  // Each patch sets a value the label never had, so none is a no-op without an event.
  let step = 0;
  process.on('message', async (message: PatchRequest) => {
    step = await patchOnePod(core, namespace, podName, message, step);
    process.send?.({ patched: message.events } satisfies ServerMessage);
  });
}

/** One client under test: starts watching, calls `seen()` per update event, stops. */
interface Layer {
  name: string;
  /** A short name for profile files and the ratio columns. */
  slug: string;
  start(config: Config, kubeconfigPath: string, seen: () => void): Promise<() => void>;
}

function watchUrl(config: Config): URL {
  const url = new URL(`${config.host}/api/v1/namespaces/${namespace}/pods`);
  url.searchParams.set('watch', 'true');
  url.searchParams.set('fieldSelector', `metadata.name=${podName}`);
  return url;
}

const floorSlug = 'floor';
const clientNodeSlug = 'client-node-informer';

async function synced(pipeline: PodPipeline): Promise<() => void> {
  while (!pipeline.synced()) await new Promise((resolve) => setTimeout(resolve, 5));
  return pipeline.stop;
}

/** A layer running the kubets pipeline of pod-pipeline.mjs with `options`. */
function kubetsPipelineLayer(
  name: string,
  slug: string,
  options: { queue?: boolean; shareManagedFields?: boolean },
): Layer {
  return {
    name,
    slug,
    async start(config, _path, seen) {
      const core = new RESTClient({ ...config, qps: -1 }, { groupVersion: 'v1' });
      return synced(await startPodPipeline({ core, namespace, onUpdate: seen, ...options }));
    },
  };
}

const layers: Layer[] = [
  {
    name: 'node:https, count lines (socket, TLS, HTTP only)',
    slug: 'https-lines',
    async start(config, _path, seen) {
      const req = request(watchUrl(config), { ca: config.tls?.caData?.toString() });
      req.on('response', (res) => {
        res.on('data', (chunk: Buffer) => {
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) seen();
        });
      });
      req.on('error', () => undefined);
      req.end();
      return () => req.destroy();
    },
  },
  {
    name: 'node:https + JSON.parse per line (the floor of any client)',
    slug: floorSlug,
    async start(config, _path, seen) {
      const req = request(watchUrl(config), { ca: config.tls?.caData?.toString() });
      req.on('response', (res) => readWatchLines(res, seen));
      req.on('error', () => undefined);
      req.end();
      return () => req.destroy();
    },
  },
  {
    name: '@kubets/rest watch stream (RESTClient.watch, for await)',
    slug: 'kubets-watch',
    async start(config, _path, seen) {
      const core = new RESTClient({ ...config, qps: -1 }, { groupVersion: 'v1' });
      const watch = await core
        .get()
        .namespace(namespace)
        .resource('pods')
        .param('fieldSelector', `metadata.name=${podName}`)
        .watch();
      void (async () => {
        for await (const event of watch) if (event.type === 'MODIFIED') seen();
      })();
      return () => watch.stop();
    },
  },
  kubetsPipelineLayer(
    '@kubets informer + a handler (shared informer, managedFields shared)',
    'kubets-informer',
    { queue: false },
  ),
  kubetsPipelineLayer(
    '@kubets informer + a handler, managedFields not shared',
    'kubets-informer-unshared',
    { queue: false, shareManagedFields: false },
  ),
  kubetsPipelineLayer(
    '@kubets informer + rate-limiting queue + worker (the benchmark pipeline)',
    'kubets-pipeline',
    {},
  ),
  {
    name: '@kubernetes/client-node informer + array queue + worker (the benchmark pipeline)',
    slug: clientNodeSlug,
    async start(_config, kubeconfigPath, seen) {
      return synced(
        await startClientNodePipeline({ kubeconfig: kubeconfigPath, namespace, onUpdate: seen }),
      );
    },
  },
  {
    name: '@kubernetes/client-node Watch',
    slug: 'client-node-watch',
    async start(_config, kubeconfigPath, seen) {
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfigPath);
      const controller = await new Watch(kc).watch(
        `/api/v1/namespaces/${namespace}/pods`,
        { fieldSelector: `metadata.name=${podName}` },
        (type) => {
          if (type === 'MODIFIED') seen();
        },
        () => undefined,
      );
      return () => controller.abort();
    },
  },
];

/**
 * Patches the Pod once at a time until the layer under test reports an update event: its
 * watch is then open, however long opening it took (under valgrind, many seconds), and
 * no event of the measured patches can be lost before it. (When an event came later than
 * the second for which each probe waits, the next probe's event may be counted as the
 * first measured one: one event in thousands.)
 */
async function untilWatching(
  child: ChildProcess,
  onEvent: (seen: () => void) => void,
): Promise<void> {
  let watching = false;
  onEvent(() => {
    watching = true;
  });
  while (!watching) {
    child.send({ events: 1, intervalMs: 0 } satisfies PatchRequest);
    await once(child, 'message');
    for (let waited = 0; !watching && waited < 1000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/**
 * Sends `events` patches, not measured, and waits until the layer saw them all: its code is
 * then compiled by the optimising tiers, as in a long-running controller.
 */
async function warmUp(
  child: ChildProcess,
  events: number,
  onEvent: (seen: () => void) => void,
): Promise<void> {
  let count = 0;
  const all = new Promise<void>((resolve) => {
    onEvent(() => {
      if (++count === events) resolve();
    });
  });
  child.send({ events, intervalMs: 0 } satisfies PatchRequest);
  await Promise.all([all, once(child, 'message')]);
}

/** Blocks this process, its event loop included (no socket is read), until `file` exists. */
function holdEventLoopUntil(file: string): void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  while (!existsSync(file)) Atomics.wait(cell, 0, 0, 10);
}

const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' / ');

async function measure(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '3000' },
      warmup: { type: 'string', default: '0' },
      'interval-ms': { type: 'string', default: '2' },
      backlog: { type: 'boolean', default: false },
      rounds: { type: 'string', default: '3' },
      only: { type: 'string' },
      'cpu-prof': { type: 'string' },
    },
  });
  const only = values.only;
  const selected =
    only === undefined
      ? layers
      : layers.filter((layer) =>
          only.split(',').some((part) => layer.slug === part || layer.name.includes(part)),
        );
  const events = Number(values.events);
  const warmup = Number(values.warmup);
  const intervalMs = Number(values['interval-ms']);
  const rounds = Number(values.rounds);
  const profileDir = values['cpu-prof'];
  const backlogDir = values.backlog
    ? mkdtempSync(join(tmpdir(), 'kubets-watch-floor-'))
    : undefined;
  const loadBefore = load();
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], {
    stdio: 'inherit',
    // The server's CPU is not measured: it needs no profile of its own.
    execArgv: process.execArgv.filter((arg) => !arg.startsWith('--cpu-prof')),
  });
  const [ready] = (await once(child, 'message')) as [{ kubeconfigPath: string }];
  const config = loadConfig({ kubeconfig: ready.kubeconfigPath });
  // slug → CPU-seconds per 10,000 events, one value per round.
  const results = new Map<string, number[]>(selected.map((layer) => [layer.slug, []]));
  try {
    for (let round = 0; round < rounds; round++) {
      for (const layer of round % 2 === 0 ? selected : [...selected].reverse()) {
        let seen: () => void = () => {};
        const stop = await layer.start(config, ready.kubeconfigPath, () => seen());
        await untilWatching(child, (onEvent) => {
          seen = onEvent;
        });
        if (warmup > 0)
          await warmUp(child, warmup, (onEvent) => {
            seen = onEvent;
          });
        const timing = cpuWindow(events);
        seen = timing.seen;
        const collections = countCollections();
        const stopProfile = await startProfile(profileDir, 'cpu', 200);
        const doneFile =
          backlogDir === undefined ? undefined : join(backlogDir, `${layer.slug}-${round}`);
        child.send({
          events,
          intervalMs: doneFile === undefined ? intervalMs : 0,
          doneFile,
        } satisfies PatchRequest);
        if (doneFile !== undefined) {
          holdEventLoopUntil(doneFile);
          timing.start();
        }
        const cpu = await timing.finished;
        const gc = collections.stop();
        await stopProfile?.(`${layer.slug}-round${round + 1}`);
        stop();
        await once(child, 'message'); // the patcher is done
        const seconds = ((cpu.user + cpu.system) / 1e6) * (10_000 / events);
        results.get(layer.slug)?.push(seconds);
        console.error(
          `[watch-floor] round ${round + 1}: ${layer.name}: ${seconds.toFixed(3)} CPU-s / 10k (load ${load()}, ${formatCollections(gc)})`,
        );
      }
    }
  } finally {
    child.kill();
    if (backlogDir !== undefined) rmSync(backlogDir, { recursive: true, force: true });
  }
  /** The median over rounds of a layer's figure divided by the reference's in the same round. */
  const ratioTo = (slug: string, reference: string): string => {
    const mine = results.get(slug);
    const theirs = results.get(reference);
    if (mine === undefined || theirs === undefined) return '—';
    return `${median(mine.map((value, i) => value / (theirs[i] ?? Number.NaN))).toFixed(2)}×`;
  };
  const arrival =
    backlogDir === undefined
      ? `one every ${intervalMs} ms`
      : 'as a backlog (sent while the watcher held its event loop)';
  console.log(
    `\n${events} events per layer, ${arrival}, ${rounds} round(s), Node ${process.version}; ` +
      `load average ${loadBefore} before, ${load()} after\n`,
  );
  console.log(
    '| layer | CPU-s per 10,000 events (median) | µs per event | / floor (median of rounds) | / client-node informer |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const layer of selected) {
    const m = median(results.get(layer.slug) ?? []);
    console.log(
      `| ${layer.name} | ${m.toFixed(3)} | ${Math.round(m * 100)} | ${ratioTo(layer.slug, floorSlug)} | ${ratioTo(layer.slug, clientNodeSlug)} |`,
    );
  }
}

if (process.argv.includes('--serve')) await serve();
else await measure();
