// HTTP/2 against HTTP/1.1 for a watch, in CPU per event: the same floor work (read the body,
// split lines, JSON.parse each) over node:https and over node:http2, against a real
// kube-apiserver over TLS (1.20 serves h2 through ALPN). Measures the transport only, to
// decide whether kubets' watches should move to HTTP/2 (docs/benchmarks.md, docs/fidelity.md).
//
//   KUBEBUILDER_ASSETS=... node src/watch-h2.ts [--events N] [--rounds R] [--interval-ms MS]
//   node src/watch-h2.ts --kubeconfig PATH ...        (a running cluster instead of envtest)
//
// A child process patches one Pod N times (HTTP/1.1, one patch every MS milliseconds); this
// process watches that Pod with each transport in turn and takes process.cpuUsage() (user +
// system) from the first event to the N-th. The order of the transports is reversed from one
// round to the next and the ratio is taken within each round.
//
// Beside the bare transports, the kubets informer with a counting handler runs over each
// (over HTTP/2 through a bench-only list-watch whose watch is a `node:http2` stream decoded by
// @kubets/rest's WatchStream), next to client-node's informer pipeline over HTTP/1.1: what
// moving kubets' watches to HTTP/2 would change in issue 20's ratio to client-node.

import { fork } from 'node:child_process';
import { once } from 'node:events';
import { type ClientHttp2Session, connect, constants } from 'node:http2';
import { request } from 'node:https';
import { loadavg } from 'node:os';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isAlreadyExists, type WatchQueryOptions } from '@kubets/apimachinery';
import { type ListerWatcher, listWatchFromClient } from '@kubets/cache';
import { type Envtest, startEnvtest } from '@kubets/envtest';
import { type Config, loadConfig, RESTClient, WatchStream } from '@kubets/rest';
import { podFixture } from './fixture.ts';
import { readWatchLines } from './floor.ts';
import { cpuWindow, type PatchRequest, patchOnePod } from './patch-one.ts';
import { type PodPipeline, startClientNodePipeline, startPodPipeline } from './pod-pipeline.mjs';
import { median } from './stats.ts';

const namespace = 'default';
const podName = 'watch-h2';

function client(config: Config): RESTClient {
  return new RESTClient({ ...config, qps: -1 }, { groupVersion: 'v1' });
}

/** The child: patches the Pod as often as asked, then reports. */
async function patcher(kubeconfig: string): Promise<void> {
  const core = client(loadConfig({ kubeconfig }));
  let step = 0;
  process.on('message', async (message: PatchRequest) => {
    step = await patchOnePod(core, namespace, podName, message, step);
    process.send?.({ patched: message.events });
  });
  process.send?.({ ready: true });
}

const watchPath = `/api/v1/namespaces/${namespace}/pods?watch=true&fieldSelector=metadata.name%3D${podName}`;

function tlsOptions(config: Config) {
  return {
    ca: config.tls?.caData?.toString(),
    cert: config.tls?.certData?.toString(),
    key: config.tls?.keyData?.toString(),
  };
}

function authHeaders(config: Config): Record<string, string> {
  return config.bearerToken ? { authorization: `Bearer ${config.bearerToken}` } : {};
}

/** One transport: opens the watch, resolves once the response headers are in. */
interface Transport {
  slug: string;
  name: string;
  open(config: Config, seen: () => void, kubeconfig: string): Promise<() => void>;
}

/**
 * The Pods of `namespace` listed through @kubets/rest (HTTP/1.1) and watched over one
 * `node:http2` session: the watch request kube-apiserver gets is the one `listWatchFromClient`
 * makes, its body decoded by `WatchStream`. Plain lists and watches (no streaming list).
 */
function http2ListWatch(config: Config): ListerWatcher<unknown> & { close(): void } {
  const lists = listWatchFromClient<unknown>(client(config), 'pods', namespace);
  let session: ClientHttp2Session | undefined;
  return {
    list: (options, signal, hints) => lists.list(options, signal, hints),
    async watch(options: WatchQueryOptions, signal: AbortSignal) {
      if (session === undefined || session.closed || session.destroyed) {
        session = connect(config.host, tlsOptions(config));
        session.on('error', () => undefined);
      }
      const query = new URLSearchParams({ watch: 'true' });
      for (const [key, value] of Object.entries(options)) {
        if (value !== undefined) query.set(key, String(value));
      }
      const stream = session.request({
        [constants.HTTP2_HEADER_PATH]: `/api/v1/namespaces/${namespace}/pods?${query}`,
        ...authHeaders(config),
      });
      const [headers] = (await once(stream, 'response')) as [Record<string, unknown>];
      const status = headers[constants.HTTP2_HEADER_STATUS];
      if (status !== 200) throw new Error(`HTTP/2 watch answered ${String(status)}`);
      return new WatchStream({ body: stream, close: () => stream.close(), signal });
    },
    isWatchListSemanticsUnsupported: () => true,
    close: () => session?.close(),
  };
}

async function synced(pipeline: PodPipeline): Promise<() => void> {
  while (!pipeline.synced()) await new Promise((resolve) => setTimeout(resolve, 5));
  return pipeline.stop;
}

const transports: Transport[] = [
  {
    slug: 'http1',
    name: 'node:https (HTTP/1.1) + JSON.parse per line',
    async open(config, seen) {
      const req = request(new URL(watchPath, config.host), {
        ...tlsOptions(config),
        headers: authHeaders(config),
      });
      req.end();
      const [res] = (await once(req, 'response')) as [Readable & { statusCode?: number }];
      if (res.statusCode !== 200) throw new Error(`HTTP/1.1 watch answered ${res.statusCode}`);
      readWatchLines(res, seen);
      return () => req.destroy();
    },
  },
  {
    slug: 'h2',
    name: 'node:http2 (HTTP/2) + JSON.parse per line',
    async open(config, seen) {
      const session = connect(config.host, tlsOptions(config));
      session.on('error', () => undefined);
      const stream = session.request({
        [constants.HTTP2_HEADER_PATH]: watchPath,
        ...authHeaders(config),
      });
      const [headers] = (await once(stream, 'response')) as [Record<string, unknown>];
      const status = headers[constants.HTTP2_HEADER_STATUS];
      if (status !== 200) throw new Error(`HTTP/2 watch answered ${String(status)}`);
      readWatchLines(stream, seen);
      return () => {
        stream.close();
        session.close();
      };
    },
  },
  {
    slug: 'kubets-http1',
    name: '@kubets informer + a handler over HTTP/1.1 (as shipped)',
    async open(config, seen) {
      return synced(
        await startPodPipeline({ core: client(config), namespace, onUpdate: seen, queue: false }),
      );
    },
  },
  {
    slug: 'kubets-h2',
    name: '@kubets informer + a handler, watch over HTTP/2',
    async open(config, seen) {
      const listWatch = http2ListWatch(config);
      const stop = await synced(
        await startPodPipeline({
          core: client(config),
          namespace,
          listWatch,
          onUpdate: seen,
          queue: false,
        }),
      );
      return () => {
        stop();
        listWatch.close();
      };
    },
  },
  {
    slug: 'client-node',
    name: '@kubernetes/client-node informer + array queue + worker (HTTP/1.1)',
    async open(_config, seen, kubeconfig) {
      return synced(await startClientNodePipeline({ kubeconfig, namespace, onUpdate: seen }));
    },
  },
];

async function measure(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '2000' },
      rounds: { type: 'string', default: '3' },
      'interval-ms': { type: 'string', default: '0' },
      kubeconfig: { type: 'string' },
    },
  });
  const events = Number(values.events);
  const rounds = Number(values.rounds);
  const intervalMs = Number(values['interval-ms']);
  let envtest: Envtest | undefined;
  let kubeconfig = values.kubeconfig;
  if (kubeconfig === undefined) {
    envtest = await startEnvtest();
    kubeconfig = envtest.kubeconfigPath;
  }
  const child = fork(fileURLToPath(import.meta.url), ['--patcher', kubeconfig]);
  try {
    const config = loadConfig({ kubeconfig });
    const pod = podFixture(0, namespace) as { metadata: { name: string } };
    pod.metadata.name = podName;
    try {
      await client(config).post().namespace(namespace).resource('pods').body(pod).do();
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    await once(child, 'message');
    const results = new Map<string, number[]>(transports.map((t) => [t.slug, []]));
    for (let round = 0; round < rounds; round++) {
      for (const transport of round % 2 === 0 ? transports : [...transports].reverse()) {
        // The first event only starts the clock: one patch more than measured.
        const timing = cpuWindow(events + 1);
        const close = await transport.open(config, timing.seen, kubeconfig);
        child.send({ events: events + 1, intervalMs });
        const cpu = await timing.finished;
        await once(child, 'message');
        close();
        const seconds = ((cpu.user + cpu.system) / 1e6) * (10_000 / events);
        results.get(transport.slug)?.push(seconds);
        console.error(
          `[watch-h2] round ${round + 1}: ${transport.slug}: ${seconds.toFixed(3)} CPU-s / 10k`,
        );
      }
    }
    const load = loadavg()
      .map((n) => n.toFixed(1))
      .join(' / ');
    console.log(
      `\n${events} events per transport, ${rounds} round(s), ${intervalMs} ms between patches, Node ${process.version}; load average ${load}\n`,
    );
    console.log(
      '| transport | CPU-s per 10,000 events (median) | / HTTP/1.1 floor (median of rounds) | / client-node (median of rounds) |',
    );
    console.log('| --- | ---: | ---: | ---: |');
    const ratioTo = (mine: number[], reference: string): string => {
      const theirs = results.get(reference) ?? [];
      return `${median(mine.map((value, i) => value / (theirs[i] ?? Number.NaN))).toFixed(2)}×`;
    };
    for (const transport of transports) {
      const mine = results.get(transport.slug) ?? [];
      console.log(
        `| ${transport.name} | ${median(mine).toFixed(3)} | ${ratioTo(mine, 'http1')} | ${ratioTo(mine, 'client-node')} |`,
      );
    }
  } finally {
    child.kill();
    await envtest?.stop();
  }
}

if (process.argv[2] === '--patcher') await patcher(process.argv[3] ?? '');
else await measure();
