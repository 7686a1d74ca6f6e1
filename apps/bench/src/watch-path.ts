// What kubets adds per watch event above JSON.parse, without a network: the CPU of each
// layer from a watch stream's bytes to a handler (and a work queue), in this process only.
// Complements watch-floor.ts, whose figures also hold the socket, TLS and HTTP reads of a
// real connection (the larger part of the floor) and swing with the machine's load; here the
// same event bytes are pushed into a stream one event per macrotask, as one event per TCP
// read arrives from a quiet cluster, so only the client's own work is left.
//
//   node src/watch-path.ts [--events N] [--rounds R] [--per-chunk K] [--interval-ms MS] [--only SLUGS]
//                          [--cpu-prof DIR | --heap-prof DIR]
//
// `--per-chunk K` puts K events in one chunk, as a burst of changes arrives; `--interval-ms MS`
// leaves MS milliseconds between chunks (default 0: back to back). Layers, each
// measured per round (order reversed from one round to the next), ratios within a round:
// the floor (a 'data' handler splitting lines and JSON.parse-ing each), the kubets
// WatchStream read with `for await`, a shared informer with one handler, and the benchmark
// pipeline (informer → rate-limiting queue → worker).

import { loadavg } from 'node:os';
import { PassThrough } from 'node:stream';
import { parseArgs } from 'node:util';
import type { ObjectList, WatchEvent } from '@kubets/apimachinery';
import type { ListerWatcher, WatchHints } from '@kubets/cache';
import { type RewriteWatchEventText, WatchStream } from '@kubets/rest';
import { readWatchLines } from './floor.ts';
import { startPodPipeline } from './pod-pipeline.mjs';
import { startProfile } from './profile.ts';
import { median } from './stats.ts';

interface Pod {
  metadata: {
    name: string;
    namespace: string;
    resourceVersion: string;
    labels?: Record<string, string>;
  };
}

/** A Pod as the API server sends it (managedFields included), about 2 KB of JSON. */
function servedPod(resourceVersion: number, step: number): Pod {
  const fieldsV1 = {
    'f:metadata': {
      'f:labels': { 'f:app': {}, 'f:tier': {}, 'f:shard': {}, 'f:step': {} },
      'f:annotations': { 'f:bench.kubets.dev/note': {} },
    },
    'f:spec': {
      'f:containers': {
        'k:{"name":"app"}': {
          '.': {},
          'f:name': {},
          'f:image': {},
          'f:args': {},
          'f:ports': {
            'k:{"containerPort":8080}': {
              '.': {},
              'f:name': {},
              'f:containerPort': {},
              'f:protocol': {},
            },
          },
          'f:resources': { 'f:requests': { 'f:cpu': {}, 'f:memory': {} } },
        },
      },
      'f:terminationGracePeriodSeconds': {},
    },
  };
  const statusFields = {
    'f:status': {
      'f:conditions': {
        'k:{"type":"PodScheduled"}': {
          '.': {},
          'f:type': {},
          'f:status': {},
          'f:reason': {},
          'f:message': {},
        },
      },
    },
  };
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      name: 'watch-path',
      namespace: 'default',
      uid: '28bcefb6-d7e6-4770-bac6-5107ac4af603',
      resourceVersion: String(resourceVersion),
      creationTimestamp: '2026-11-24T09:10:16Z',
      labels: { app: 'kubets-bench', tier: 'frontend', shard: 'shard-0', step: String(step) },
      annotations: { 'bench.kubets.dev/note': 'pod 0 of the kubets benchmark; '.repeat(6) },
      managedFields: [
        {
          manager: 'kubets',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2026-11-24T09:10:16Z',
          fieldsType: 'FieldsV1',
          fieldsV1,
        },
        {
          manager: 'kube-scheduler',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2026-11-24T09:10:16Z',
          fieldsType: 'FieldsV1',
          fieldsV1: statusFields,
        },
      ],
    },
    spec: {
      terminationGracePeriodSeconds: 5,
      containers: [
        {
          name: 'app',
          image: 'registry.example.invalid/kubets/bench-app:1.0.0',
          args: ['--port=8080', '--log-level=info', '--instance=0'],
          ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
          resources: { requests: { cpu: '10m', memory: '16Mi' } },
        },
      ],
    },
    status: {
      phase: 'Pending',
      qosClass: 'BestEffort',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message: 'no node matches',
        },
      ],
    },
  } as Pod;
}

/** The stream's chunks: `events` MODIFIED lines, `perChunk` of them per Buffer. */
function eventChunks(events: number, perChunk: number): Buffer[] {
  const chunks: Buffer[] = [];
  let text = '';
  for (let i = 0; i < events; i++) {
    text += `${JSON.stringify({ type: 'MODIFIED', object: servedPod(100 + i, i) })}\n`;
    if ((i + 1) % perChunk === 0 || i === events - 1) {
      chunks.push(Buffer.from(text));
      text = '';
    }
  }
  return chunks;
}

/**
 * Writes the chunks into `body`, one per macrotask as separate socket reads arrive: at once
 * one after the other, or `intervalMs` apart, so the process idles between events as it does
 * when a cluster sends them one by one.
 */
function feed(body: PassThrough, chunks: readonly Buffer[], intervalMs: number): void {
  let i = 0;
  const schedule = (): unknown =>
    intervalMs > 0 ? setTimeout(next, intervalMs) : setImmediate(next);
  const next = (): void => {
    if (i === chunks.length) return;
    body.write(chunks[i++]);
    schedule();
  };
  schedule();
}

/** One layer: set up (untimed), then `run` resolves once every event was seen. */
interface Layer {
  slug: string;
  name: string;
  start(body: PassThrough, seen: () => void): Promise<() => void>;
}

// With the list-watch's hints passed on, as listWatchFromClient does: the informer's
// rewriteEventText hint is part of the path every real watch event takes.
function watchStreamOver(body: PassThrough, hints?: WatchHints<Pod>): WatchStream<Pod> {
  return new WatchStream<Pod>({
    body,
    close: () => body.destroy(),
    rewriteEventText: hints?.rewriteEventText?.bind(hints) as RewriteWatchEventText<unknown>,
  });
}

/**
 * A ListerWatcher whose list holds one Pod and whose (first) watch reads `body`. Its watch
 * cannot serve a streaming list (it sends no initial events), so the reflector lists.
 */
function listWatchOver(body: PassThrough): ListerWatcher<Pod> {
  let watched = false;
  return {
    isWatchListSemanticsUnsupported: () => true,
    async list() {
      return {
        apiVersion: 'v1',
        kind: 'PodList',
        metadata: { resourceVersion: '99' },
        items: [servedPod(99, -1)],
      } as ObjectList<Pod>;
    },
    async watch(_options, signal, hints) {
      if (watched)
        return new WatchStream<Pod>({ body: new PassThrough(), close: () => {}, signal });
      watched = true;
      const stream = watchStreamOver(body, hints);
      signal.addEventListener('abort', () => stream.stop(), { once: true });
      return stream as AsyncIterable<WatchEvent<Pod>>;
    },
  };
}

async function informerLayer(
  body: PassThrough,
  seen: () => void,
  queue: boolean,
  shareManagedFields = true,
): Promise<() => void> {
  const pipeline = await startPodPipeline({
    listWatch: listWatchOver(body),
    onUpdate: seen,
    queue,
    shareManagedFields,
  });
  while (!pipeline.synced()) await new Promise((resolve) => setTimeout(resolve, 1));
  return pipeline.stop;
}

const floorSlug = 'floor';

const layers: Layer[] = [
  {
    slug: floorSlug,
    name: "'data' handler, split lines + JSON.parse each (the floor)",
    async start(body, seen) {
      readWatchLines(body, seen);
      return () => body.destroy();
    },
  },
  {
    slug: 'watch-stream',
    name: '@kubets/rest WatchStream, for await',
    async start(body, seen) {
      const stream = watchStreamOver(body);
      void (async () => {
        for await (const event of stream) if (event.type === 'MODIFIED') seen();
      })();
      return () => stream.stop();
    },
  },
  {
    slug: 'informer',
    name: '@kubets shared informer + a handler',
    start: (body, seen) => informerLayer(body, seen, false),
  },
  {
    slug: 'informer-unshared',
    name: '@kubets shared informer + a handler, shareManagedFields: false',
    start: (body, seen) => informerLayer(body, seen, false, false),
  },
  {
    slug: 'pipeline',
    name: '@kubets informer + rate-limiting queue + worker',
    start: (body, seen) => informerLayer(body, seen, true),
  },
];

const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' / ');

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
    'per-chunk': { type: 'string', default: '1' },
    'interval-ms': { type: 'string', default: '0' },
    only: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'heap-prof': { type: 'string' },
  },
});
const events = Number(values.events);
const rounds = Number(values.rounds);
const perChunk = Number(values['per-chunk']);
const only = values.only;
const selected =
  only === undefined
    ? layers
    : layers.filter((layer) => layer.slug === floorSlug || only.split(',').includes(layer.slug));
const chunks = eventChunks(events, perChunk);
const loadBefore = load();
const results = new Map<string, number[]>(selected.map((layer) => [layer.slug, []]));
for (let round = 0; round < rounds; round++) {
  for (const layer of round % 2 === 0 ? selected : [...selected].reverse()) {
    const body = new PassThrough();
    let count = 0;
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    const stop = await layer.start(body, () => {
      if (++count === events) done();
    });
    globalThis.gc?.();
    const stopProfile =
      values['heap-prof'] !== undefined
        ? await startProfile(values['heap-prof'], 'heap', 4096)
        : await startProfile(values['cpu-prof'], 'cpu', 100);
    const cpuStart = process.cpuUsage();
    feed(body, chunks, Number(values['interval-ms']));
    await finished;
    const cpu = process.cpuUsage(cpuStart);
    await stopProfile?.(`${layer.slug}-round${round + 1}`);
    stop();
    const seconds = ((cpu.user + cpu.system) / 1e6) * (10_000 / events);
    results.get(layer.slug)?.push(seconds);
    console.error(
      `[watch-path] round ${round + 1}: ${layer.slug}: ${seconds.toFixed(3)} CPU-s / 10k`,
    );
  }
}
console.log(
  `\n${events} events per layer, ${perChunk} per chunk, ${rounds} round(s), Node ${process.version}; ` +
    `load average ${loadBefore} before, ${load()} after\n`,
);
console.log(
  '| layer | CPU-s per 10,000 events (median) | µs per event | / floor (median of rounds) |',
);
console.log('| --- | ---: | ---: | ---: |');
const floor = results.get(floorSlug) ?? [];
for (const layer of selected) {
  const mine = results.get(layer.slug) ?? [];
  const m = median(mine);
  const ratio = median(mine.map((value, i) => value / (floor[i] ?? Number.NaN)));
  console.log(
    `| ${layer.name} | ${m.toFixed(3)} | ${(m * 100).toFixed(1)} | ${ratio.toFixed(2)}× |`,
  );
}
