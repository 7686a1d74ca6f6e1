// Chaos scenarios against the in-memory API server of @kubets/apiserver, where faults can be
// injected precisely:
//   d. watch streams cut mid-line, malformed and truncated event lines, under churn;
//   e. 429 and 500 storms with Retry-After: converges, and honours Retry-After (counted);
//   f. a handler that throws (or rejects) on every event: the others see everything;
//   g. a handler taking 1 s per event: the fast one is current long before, and the slow one
//      still ends up with every final state.
// Each ends with the convergence check (store == server, every handler at every final state,
// deletions included) and no unhandled rejection.

import { type FaultRequest, type InMemoryApiServer, startApiServer } from '@kubets/apiserver';
import { type Config, loadConfig, RESTClient } from '@kubets/rest';
import { eventually, MemoryLogger } from '@kubets/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SharedIndexInformerOptions } from '../../src/shared-informer-options.js';
import {
  churn,
  configMaps,
  expectConverged,
  heapAfterGc,
  heapSlackBytes,
  type InformerHarness,
  listFromServer,
  type Obj,
  RecordingHandler,
  serverMap,
  sleep,
  startInformer,
  UnhandledRejections,
  Writer,
} from './helpers.js';

const ns = 'default';
const convergeMs = 60_000;
const syncMs = 30_000;

let server: InMemoryApiServer;
let config: Config;
let client: RESTClient;
const unhandled = new UnhandledRejections();
const cleanups: (() => Promise<void>)[] = [];

beforeEach(async () => {
  unhandled.start();
  server = await startApiServer();
  config = { ...loadConfig({ kubeconfig: server.kubeconfigPath }), qps: -1 };
  client = new RESTClient(config, { groupVersion: 'v1' });
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await server.stop();
  unhandled.stop();
});

function informer(options: SharedIndexInformerOptions<Obj> = {}) {
  const h = startInformer<Obj>({
    client: new RESTClient(config, { groupVersion: 'v1' }),
    resource: 'configmaps',
    namespace: ns,
    options,
  });
  cleanups.push(() => h.stop());
  return h;
}

function converged(h: InformerHarness<Obj>, handlers = h.handlers) {
  return expectConverged(
    { informer: h.informer, handlers, list: () => listFromServer<Obj>(client, 'configmaps', ns) },
    convergeMs,
  );
}

async function seed(writer: Writer, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await writer.create(configMaps, ns, `seed-${i}`, 'seed');
}

describe('d. broken watch streams', () => {
  it('streams cut mid-line (truncated) and malformed lines, under churn: converges', async () => {
    const writer = new Writer(client);
    await seed(writer, 10);
    const logger = new MemoryLogger(200);
    // Short constant retry delays: this scenario is about healing broken streams, not backoff.
    const h = informer({ logger, backoff: { next: () => 250 } });
    await h.synced(syncMs);
    const baseline = await heapAfterGc();

    // Rounds: a fault on the next watch line, churn behind it, and the informer must heal
    // (re-watch from its last resourceVersion, or relist after an undecodable event) and
    // converge before the next round.
    const faults = ['truncated', 'malformed', 'truncated', 'malformed', 'truncated', 'malformed'];
    for (const [round, fault] of faults.entries()) {
      server.faults.nextWatchLine(fault as 'truncated' | 'malformed');
      await churn({
        writer,
        targets: [{ r: configMaps, ns }],
        seed: 0xd00d + round,
        ops: 40,
        keyspace: 20,
        prefix: `r${round % 2}`, // half the names come back round after round
      });
      try {
        await converged(h);
      } catch (err) {
        console.error(`d: round ${round}: the informer's log:\n${logger.text().join('\n')}`);
        throw err;
      }
    }

    const messages = h.watchErrors.map(String);
    // A line cut short, then the connection closed.
    expect(messages.some((m) => /middle of an event|watch stream broke/.test(m))).toBe(true);
    expect(messages.some((m) => /unable to decode an event/.test(m))).toBe(true);
    // A broken stream is healed by re-watching; an undecodable event (an InternalError, as
    // in client-go) by relisting.
    const undecodable = messages.filter((m) => /unable to decode an event/.test(m)).length;
    // Lists are streaming lists by default (the in-memory server serves them); the faults
    // hit the watch, so no streaming list falls back to a paged one.
    expect(h.watches.filter((w) => w.sendInitialEvents === true)).toHaveLength(1 + undecodable);
    expect(h.lists).toEqual([]);
    expect(h.informer.isStopped()).toBe(false);
    expect(unhandled.reasons).toEqual([]);
    expect(await heapAfterGc()).toBeLessThan(baseline + heapSlackBytes);
  });
});

describe('e. 429 and 500 storms with Retry-After', () => {
  it.each([
    [429, 3],
    [500, 2],
  ])(
    'a %i storm (Retry-After: %i s) on every read: converges, requests paced by Retry-After',
    async (code, retryAfter) => {
      const writer = new Writer(client);
      await seed(writer, 5);
      const h = informer();
      await h.synced(syncMs);

      // Every read (the informer's lists and watches) is refused while the storm lasts; writes
      // (the test's own) go through. The matcher counts the requests that hit the storm.
      const hits: number[] = [];
      let storming = true;
      server.faults.respondWith(code, {
        retryAfterSeconds: retryAfter,
        times: Number.POSITIVE_INFINITY,
        match: (r: FaultRequest) => {
          if (!storming || r.method !== 'GET') return false;
          hits.push(performance.now());
          return true;
        },
      });
      const began = performance.now();
      server.faults.closeWatches(); // the informer must come back through the storm
      await churn({ writer, targets: [{ r: configMaps, ns }], seed: code, ops: 30, keyspace: 10 });
      await eventually(() => hits.length >= 2, {
        what: 'the informer to hit the storm twice',
        timeoutMs: convergeMs,
        intervalMs: 100,
      });
      await sleep(retryAfter * 2000);
      storming = false;
      const stormSeconds = (performance.now() - began) / 1000;
      server.faults.reset();

      await converged(h);
      // Honoured: at most one request per Retry-After (plus the first, plus slack), and never
      // two closer together than Retry-After. A slow machine only makes fewer, further apart.
      expect(hits.length).toBeLessThanOrEqual(Math.ceil(stormSeconds / retryAfter) + 2);
      const gaps = hits.slice(1).map((t, i) => t - hits[i]!);
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(retryAfter * 1000 * 0.9);
      expect(h.informer.isStopped()).toBe(false);
      expect(unhandled.reasons).toEqual([]);
    },
  );
});

describe('f. a handler that throws on every event', () => {
  it('other handlers still see everything, and the informer stays alive', async () => {
    const writer = new Writer(client);
    await seed(writer, 5);
    let calls = 0;
    const handlerErrors: unknown[] = [];
    const h = startInformer<Obj>({
      client: new RESTClient(config, { groupVersion: 'v1' }),
      resource: 'configmaps',
      namespace: ns,
      options: { onHandlerError: (err) => void handlerErrors.push(err) },
      beforeRun: (inf) => {
        // Throws synchronously, or rejects, every single time.
        const boom = (event: string) => {
          calls++;
          if (calls % 2 === 0) return Promise.reject(new Error(`async ${event}`));
          throw new Error(`sync ${event}`);
        };
        inf.addEventHandler({
          onAdd: () => boom('add'),
          onUpdate: () => boom('update'),
          onDelete: () => boom('delete'),
        });
      },
    });
    cleanups.push(() => h.stop());
    await h.synced(syncMs);

    await churn({
      writer,
      targets: [{ r: configMaps, ns }],
      seed: 0xf00,
      ops: 200,
      keyspace: 20,
      at: (i) => {
        if (i === 100) {
          // A relist too (tombstones, replaced objects) while it throws.
          server.faults.compact();
          server.faults.closeWatches();
        }
      },
    });
    const truth = await converged(h);
    expect(truth.size).toBeGreaterThan(0);
    await eventually(() => handlerErrors.length === calls, {
      what: 'every error to be reported',
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    expect(calls).toBeGreaterThan(100);
    expect(h.handlers[0]!.deleted.size).toBeGreaterThan(0);
    expect(h.informer.isStopped()).toBe(false);
    expect(unhandled.reasons).toEqual([]);
  });
});

describe('g. a slow handler next to a fast one', () => {
  it('the fast handler is current long before the slow one (1 s per event) catches up', async () => {
    const writer = new Writer(client);
    await seed(writer, 2);
    const fast = new RecordingHandler<Obj>();
    const slow = new RecordingHandler<Obj>({ delayMs: 1000 });
    const h = startInformer<Obj>({
      client: new RESTClient(config, { groupVersion: 'v1' }),
      resource: 'configmaps',
      namespace: ns,
      handlers: [fast, slow],
    });
    cleanups.push(() => h.stop());
    await h.synced(syncMs); // the slow one too: 2 initial adds

    // 12 changes: creates, updates, deletes.
    for (let i = 0; i < 4; i++) await writer.create(configMaps, ns, `g-${i}`, `c${i}`);
    for (let i = 0; i < 4; i++) await writer.update(configMaps, ns, `g-${i}`, `u${i}`);
    await writer.delete(configMaps, ns, 'g-0');
    await writer.delete(configMaps, ns, 'seed-0');
    await writer.update(configMaps, ns, 'g-1', 'u-again');
    await writer.create(configMaps, ns, 'g-4', 'late');
    const truth = serverMap(await listFromServer<Obj>(client, 'configmaps', ns));

    await eventually(() => fast.matches(truth), {
      what: 'the fast handler to be current',
      timeoutMs: convergeMs,
      intervalMs: 100,
    });
    // By then the slow handler is still well behind: it had 12 s of work queued.
    expect(slow.events).toBeLessThan(2 + 12);
    expect(slow.matches(truth)).toBe(false);

    await converged(h, [fast, slow]);
    expect(slow.events).toBe(fast.events);
    expect(unhandled.reasons).toEqual([]);
  });
});
