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
// in turn and takes process.cpuUsage() (user + system) from the request for them to the N-th.
// Events that arrive one at a time cost each client a wake-up per event (a socket read, a
// TLS record, the HTTP and stream layers), the same for all, which can outweigh what the
// clients themselves do. `--backlog` measures without it: this process holds its event loop
// (reads nothing) while the patcher sends all N patches back to back, then drains the
// backlog, many events per read; the CPU is taken from the release to the N-th event.
// Every round measures each layer once (the order reversed from one round to the next); the
// ratios to the floor and to client-node's informer are taken within a round, so a machine
// whose load changes between rounds still compares like with like, and their medians are
// printed. `--warmup W` first sends each layer W events that are not measured (its code is
// then optimised, as in a long-running process; with --backlog they come as a backlog too).
// `--cpu-prof DIR` writes each layer's event window, round by round, as a .cpuprofile (read
// it with top-frames.ts).
//
// watch-instructions.ts counts this process's instructions from start to exit, so nothing
// in it runs more often the longer a run takes (a loaded machine, valgrind): it waits on
// events (a layer's open watch or first object, a probe's event with one timer, a FIFO the
// patcher writes when a backlog is sent), never polls, and the API server sends no periodic
// bookmarks. One function counts a layer's events in every phase, so that the client's code
// calling it is not deoptimised when the measured events begin.

import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
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
import { collectionsBetween, countCollections, formatCollections } from './gc-count.ts';
import { type PatchRequest, patchOnePod } from './patch-one.ts';
import { startClientNodePipeline, startPodPipeline } from './pod-pipeline.mjs';
import { startProfile } from './profile.ts';
import { median } from './stats.ts';

const namespace = 'default';
const podName = 'watch-floor';

type ServerMessage = { kubeconfigPath: string } | { patched: number };

/** The child: an HTTPS in-memory API server and a patcher of one Pod. */
async function serve(): Promise<void> {
  // No periodic bookmarks: their number would grow with the wall time a run takes (a
  // loaded machine, valgrind), and the watcher's work with it.
  const server = await startApiServer({ tls: true, bookmarkIntervalMs: 0 });
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
  /**
   * Resolves once the watch is open (its response headers in, or its first object
   * delivered), so that the first probe's event is not lost; with a function that stops it.
   */
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

/** Opens a raw watch request; resolves with its response once the headers are in. */
async function openWatch(config: Config): Promise<{ res: IncomingMessage; stop: () => void }> {
  const req = request(watchUrl(config), { ca: config.tls?.caData?.toString() });
  req.on('error', () => undefined);
  req.end();
  // The server registers the watcher before it sends the headers.
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  return { res, stop: () => req.destroy() };
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
      // The Pod's ADDED event comes through the watch (a streaming list) or from the list
      // the watch then continues: from there no patch is missed. Waited for as an event,
      // not polled: a poll's count would grow with the time the list takes.
      let listed: () => void = () => {};
      const added = new Promise<void>((resolve) => {
        listed = resolve;
      });
      const pipeline = await startPodPipeline({
        core,
        namespace,
        onAdd: () => listed(),
        onUpdate: seen,
        ...options,
      });
      await added;
      return pipeline.stop;
    },
  };
}

const layers: Layer[] = [
  {
    name: 'node:https, count lines (socket, TLS, HTTP only)',
    slug: 'https-lines',
    async start(config, _path, seen) {
      const { res, stop } = await openWatch(config);
      res.on('data', (chunk: Buffer) => {
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) seen();
      });
      return stop;
    },
  },
  {
    name: 'node:https + JSON.parse per line (the floor of any client)',
    slug: floorSlug,
    async start(config, _path, seen) {
      const { res, stop } = await openWatch(config);
      readWatchLines(res, seen);
      return stop;
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
      // Resolves once its informer's start() did: listed and watching.
      const pipeline = await startClientNodePipeline({
        kubeconfig: kubeconfigPath,
        namespace,
        onUpdate: seen,
      });
      return pipeline.stop;
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
 * Counts the update events of the layer under test, in every phase (probes, warm-up,
 * measured events), with one function, `seen`. Its callers in the client under test are
 * compiled with it as their callee: a new function for the measured events would
 * deoptimise them there, and their compiling again would be counted as the events' work.
 */
class EventCount {
  #count = 0;
  #target = Number.POSITIVE_INFINITY;
  #reached: () => void = () => {};

  readonly seen = (): void => {
    // queueMicrotask is this call's only target, whichever promise waits.
    if (++this.#count === this.#target) queueMicrotask(this.#reached);
  };

  /** Resolves once `more` events more than now have been seen. */
  after(more: number): Promise<void> {
    this.#target = this.#count + more;
    return new Promise((resolve) => {
      this.#reached = resolve;
    });
  }
}

/** How long a probe's event is waited for before the next probe is sent. */
const probeWaitMs = 5000;

/**
 * Patches the Pod once at a time until the layer under test reports an update event: its
 * watch is then open, and no event of the measured patches can be lost before it. The
 * layer's `start` resolved once its watch was open, so the first probe is normally the only
 * one; each waits on its event with one timer rather than a poll, so that what this process
 * executes while waiting does not grow with the time waited (a loaded machine, valgrind).
 * Returns how many probes were sent. (When an event came later than the probe's wait, the
 * next probe's event may be counted as the first measured one: one event in thousands.)
 */
async function untilWatching(child: ChildProcess, events: EventCount): Promise<number> {
  for (let probes = 1; ; probes++) {
    let timer: NodeJS.Timeout | undefined;
    const watching = Promise.race([
      events.after(1).then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), probeWaitMs);
      }),
    ]);
    // The patcher's answer may come before or after the event: listened for from now.
    const answered = once(child, 'message');
    child.send({ events: 1, intervalMs: 0 } satisfies PatchRequest);
    const seen = await watching;
    clearTimeout(timer);
    await answered;
    if (seen) return probes;
  }
}

/**
 * Sends `count` patches, not measured, and waits until the layer saw them all: its code is
 * then compiled by the optimising tiers, as in a long-running controller. With `backlog`
 * (a FIFO) they are read as the measured events are, as a backlog: the code paths of a
 * backlog (many events per read) are then compiled too, rather than in the measured events.
 */
async function warmUp(
  child: ChildProcess,
  count: number,
  events: EventCount,
  backlog: string | undefined,
): Promise<void> {
  const all = events.after(count);
  const answered = once(child, 'message');
  child.send({ events: count, intervalMs: 0, doneFile: backlog } satisfies PatchRequest);
  if (backlog !== undefined) holdEventLoopUntilWritten(backlog);
  await Promise.all([all, answered]);
}

/**
 * Blocks this process, its event loop included (no socket is read), until the patcher has
 * written to the FIFO `fifo` (made with {@link makeFifo}). Opening a FIFO for reading
 * blocks until a writer opens it, and the read until it writes: no polling, so the work
 * done while waiting does not grow with the time waited.
 */
function holdEventLoopUntilWritten(fifo: string): void {
  const fd = openSync(fifo, 'r');
  try {
    readSync(fd, Buffer.alloc(64));
  } finally {
    closeSync(fd);
  }
}

/** Makes a FIFO (named pipe) at `path`: Node has no call for it. */
function makeFifo(path: string): string {
  execFileSync('mkfifo', [path]);
  return path;
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
    // The server's CPU is not measured: it needs no profile, nor V8's traces, of its own.
    execArgv: process.execArgv.filter(
      (arg) => !arg.startsWith('--cpu-prof') && !arg.startsWith('--trace-'),
    ),
  });
  const [ready] = (await once(child, 'message')) as [{ kubeconfigPath: string }];
  const config = loadConfig({ kubeconfig: ready.kubeconfigPath });
  // slug → CPU-seconds per 10,000 events, one value per round.
  const results = new Map<string, number[]>(selected.map((layer) => [layer.slug, []]));
  try {
    for (let round = 0; round < rounds; round++) {
      for (const layer of round % 2 === 0 ? selected : [...selected].reverse()) {
        const counted = new EventCount();
        // Counting from the start, not from the measured events: the observer's own work
        // (a callback per collection) is then compiled before them, as the client's is.
        const collections = countCollections();
        const stop = await layer.start(config, ready.kubeconfigPath, counted.seen);
        const probes = await untilWatching(child, counted);
        if (warmup > 0) {
          const backlog =
            backlogDir === undefined
              ? undefined
              : makeFifo(join(backlogDir, `${layer.slug}-${round}-warmup`));
          await warmUp(child, warmup, counted, backlog);
        }
        const measured = counted.after(events);
        const collectionsBefore = collections.read();
        const stopProfile = await startProfile(profileDir, 'cpu', 200);
        const doneFile =
          backlogDir === undefined
            ? undefined
            : makeFifo(join(backlogDir, `${layer.slug}-${round}`));
        child.send({
          events,
          intervalMs: doneFile === undefined ? intervalMs : 0,
          doneFile,
        } satisfies PatchRequest);
        // Without a backlog this process idles until the first event: no CPU to take.
        if (doneFile !== undefined) holdEventLoopUntilWritten(doneFile);
        const cpuStart = process.cpuUsage();
        await measured;
        const cpu = process.cpuUsage(cpuStart);
        const gc = collectionsBetween(collectionsBefore, collections.stop());
        await stopProfile?.(`${layer.slug}-round${round + 1}`);
        stop();
        await once(child, 'message'); // the patcher is done
        const seconds = ((cpu.user + cpu.system) / 1e6) * (10_000 / events);
        results.get(layer.slug)?.push(seconds);
        console.error(
          `[watch-floor] round ${round + 1}: ${layer.name}: ${seconds.toFixed(3)} CPU-s / 10k (load ${load()}, ${formatCollections(gc)}, probes ${probes})`,
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
