// The floor variant: what any Node client must do, and nothing more. The initial sync is a
// list fetched with node:https and JSON.parse'd, its items kept in a Map by key (so heap per
// object is the plain parse); the watch is node:https reading lines and JSON.parse'ing each
// one (floor.ts), with no cache update and no handler work. The kubets variants are judged
// against its CPU per update event.
//
//   node --expose-gc src/run-floor.ts '<RunnerConfig JSON>'   (started by main.ts)
//
// The relist fetches and parses the list again and replaces the Map.

import type { ClientRequest, IncomingMessage } from 'node:http';
import { Agent, request } from 'node:https';
import { loadConfig } from '@kubets/rest';
import { readWatchLines } from './floor.ts';
import { type BenchObject, type Counters, runBenchmark, runnerConfig } from './runner.ts';

interface PodList {
  metadata: { resourceVersion: string };
  items: BenchObject[];
}

const config = runnerConfig();

await runBenchmark(config, (counters: Counters) => {
  const rest = loadConfig({ kubeconfig: config.kubeconfig });
  const pem = (data: string | Uint8Array | undefined): string | Buffer | undefined =>
    data === undefined || typeof data === 'string' ? data : Buffer.from(data);
  const agent = new Agent({
    keepAlive: true,
    ca: pem(rest.tls?.caData),
    cert: pem(rest.tls?.certData),
    key: pem(rest.tls?.keyData),
    rejectUnauthorized: rest.tls?.insecureSkipVerify !== true,
  });
  const headers: Record<string, string> = { accept: 'application/json' };
  if (rest.bearerToken !== undefined) headers.authorization = `Bearer ${rest.bearerToken}`;
  const podsUrl = (params: Record<string, string>): URL => {
    const url = new URL(`${rest.host}/api/v1/namespaces/${config.namespace}/pods`);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url;
  };
  const open = (url: URL): Promise<{ req: ClientRequest; res: IncomingMessage }> =>
    new Promise((resolve, reject) => {
      const req = request(url, { agent, headers });
      req.on('response', (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`GET ${url.pathname}${url.search}: HTTP ${res.statusCode}`));
          return;
        }
        resolve({ req, res });
      });
      req.on('error', reject);
      req.end();
    });

  let lists = 0;
  // resourceVersion=0, as the informers' first list: served from the API server's watch cache.
  const list = async (): Promise<PodList> => {
    lists++;
    const { res } = await open(podsUrl({ resourceVersion: '0' }));
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as PodList;
  };
  const byKey = (items: readonly BenchObject[]): Map<string, BenchObject> => {
    const map = new Map<string, BenchObject>();
    for (const item of items) map.set(`${item.metadata?.namespace}/${item.metadata?.name}`, item);
    return map;
  };

  let cache = new Map<string, BenchObject>();
  let watch: ClientRequest | undefined;

  return {
    async startAndSync() {
      const initial = await list();
      cache = byKey(initial.items);
      for (let i = 0; i < cache.size; i++) {
        counters.added();
        counters.handled();
      }
      const url = podsUrl({
        watch: 'true',
        resourceVersion: initial.metadata.resourceVersion,
        allowWatchBookmarks: 'true',
      });
      // Not part of the sync (fetch + parse); the watch starts at the list's resourceVersion,
      // so it sees every patch even if it connects after the patcher has begun.
      open(url).then(
        (opened) => {
          watch = opened.req;
          readWatchLines(opened.res, () => {
            counters.updateSeen();
            counters.handled();
          });
        },
        (err: unknown) => {
          process.stderr.write(`floor: the watch failed: ${String(err)}\n`);
          process.exit(1);
        },
      );
    },
    cacheSize: () => cache.size,
    async relist() {
      const before = lists;
      cache = byKey((await list()).items);
      return { lists: lists - before };
    },
    async stop() {
      watch?.destroy();
      agent.destroy();
    },
  };
});
