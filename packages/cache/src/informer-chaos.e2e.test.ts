// Chaos end-to-end test against a real etcd + kube-apiserver (envtest): an informer with two
// handlers watches configmaps in a namespace while a second client performs 1,000 random
// creates, updates and deletes, and kube-apiserver is killed (SIGKILL) and restarted in the
// middle. Afterwards the informer's store must equal the server's list (keys and
// resourceVersions), and every handler must have seen the final state of every object,
// including the deletion of every object it had seen that is gone.
import { randomUUID } from 'node:crypto';
import {
  isAlreadyExists,
  isConflict,
  isNotFound,
  isStatusError,
  type ObjectList,
} from '@kubets/apimachinery';
import { type Config, loadConfig, PatchType, RESTClient } from '@kubets/rest';
import { eventually, seededRandom, useEnvtest } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { sleep } from '../test/chaos/helpers.js';
import { storeVersions, type TestConfigMap } from '../test/helpers.js';
import {
  type DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
  type ListerWatcher,
  listWatchFromClient,
  metaNamespaceKeyFunc,
  newSharedIndexInformer,
  type ResourceEventHandler,
  waitForCacheSync,
} from './index.js';

type ConfigMap = TestConfigMap;

const seed = 0x5eed_c0de;
const operations = 1000;
const restartAt = 500;
const concurrency = 4;
/** Distinct names the operations pick from. */
const keyspace = 60;
/** Generous deadlines: the machine may be slow and kube-apiserver takes a while to restart. */
const convergeMs = 150_000;
const opDeadlineMs = 120_000;

let config: Config;
let writer: RESTClient;

/** The final state of an object as a handler (or the server) sees it. */
interface State {
  rv: string;
  v: string | undefined;
}

function stateOf(cm: ConfigMap): State {
  return { rv: cm.metadata.resourceVersion ?? '', v: cm.data?.v };
}

/** Records the last state a handler saw per key, and the keys whose last event was a delete. */
class RecordingHandler implements ResourceEventHandler<ConfigMap> {
  readonly live = new Map<string, State>();
  readonly deleted = new Set<string>();
  /** Every key this handler ever heard of. */
  readonly seen = new Set<string>();
  events = 0;
  readonly #async: boolean;

  constructor(async: boolean) {
    this.#async = async;
  }

  async #maybeYield(): Promise<void> {
    // The second handler is asynchronous and sometimes slow: it must still end up right.
    if (this.#async && this.events % 7 === 0) await sleep(1);
  }

  async onAdd(cm: ConfigMap): Promise<void> {
    this.events++;
    await this.#maybeYield();
    const key = metaNamespaceKeyFunc(cm);
    this.seen.add(key);
    this.live.set(key, stateOf(cm));
    this.deleted.delete(key);
  }

  async onUpdate(_old: ConfigMap, cm: ConfigMap): Promise<void> {
    this.events++;
    await this.#maybeYield();
    const key = metaNamespaceKeyFunc(cm);
    this.live.set(key, stateOf(cm));
    this.deleted.delete(key);
  }

  async onDelete(cm: ConfigMap | DeletedFinalStateUnknown<ConfigMap>): Promise<void> {
    this.events++;
    await this.#maybeYield();
    const key = deletionHandlingMetaNamespaceKeyFunc(cm);
    this.seen.add(key);
    this.live.delete(key);
    this.deleted.add(key);
  }
}

const envtest = useEnvtest(({ kubeconfigPath: kubeconfig }) => {
  config = { ...loadConfig({ kubeconfig }), qps: -1 };
  writer = new RESTClient(config, { groupVersion: 'v1' });
});

/** An error that says the server is (still) unreachable or unhappy, rather than "no". */
function isTransient(err: unknown): boolean {
  if (!isStatusError(err)) return true; // connection refused/reset, TLS, timeouts
  const code = err.status.code ?? 0;
  return code === 429 || code >= 500;
}

describe('informer chaos: 1,000 random operations with a kube-apiserver SIGKILL + restart', () => {
  it('ends with the store equal to the server and every handler at the final state', async () => {
    const ns = `chaos-${randomUUID().slice(0, 8)}`;
    await writer
      .post()
      .resource('namespaces')
      .body({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })
      .do();

    // The informer: its own client, counted list/watch calls, two recording handlers.
    let lists = 0;
    let watches = 0;
    const inner = listWatchFromClient<ConfigMap>(
      new RESTClient(config, { groupVersion: 'v1' }),
      'configmaps',
      ns,
    );
    const counting: ListerWatcher<ConfigMap> = {
      list: (o, s) => {
        lists++;
        return inner.list(o, s);
      },
      watch: (o, s) => {
        watches++;
        return inner.watch(o, s);
      },
    };
    const informer = newSharedIndexInformer<ConfigMap>(counting, 'configmaps');
    const watchErrors: string[] = [];
    informer.setWatchErrorHandler((err) => void watchErrors.push(String(err)));
    const handlers = [new RecordingHandler(false), new RecordingHandler(true)];
    const registrations = handlers.map((h) => informer.addEventHandler(h));
    const ac = new AbortController();
    const running = informer.run(ac.signal);

    try {
      const syncDeadline = AbortSignal.any([ac.signal, AbortSignal.timeout(60_000)]);
      expect(
        await waitForCacheSync(syncDeadline, ...registrations.map((r) => () => r.hasSynced())),
      ).toBe(true);

      // The second client's random operations.
      const random = seededRandom(seed);
      const known = new Set<string>(); // what the writer believes exists
      const stats = { ok: 0, ignored: 0, retries: 0, create: 0, update: 0, delete: 0 };
      const transientErrors = new Set<string>();
      let restart: Promise<void> | undefined;
      let restartMs = 0;
      let next = 0;

      const perform = async (i: number): Promise<void> => {
        // Drawn synchronously at dispatch, in operation order.
        const name = `cm-${String(Math.floor(random() * keyspace)).padStart(2, '0')}`;
        const r = random();
        const kind = !known.has(name) ? 'create' : r < 0.7 ? 'update' : 'delete';
        stats[kind]++;
        const send = (): Promise<unknown> => {
          switch (kind) {
            case 'create':
              return writer
                .post()
                .namespace(ns)
                .resource('configmaps')
                .body({
                  apiVersion: 'v1',
                  kind: 'ConfigMap',
                  metadata: { name },
                  data: { v: `${i}` },
                })
                .do();
            case 'update':
              return writer
                .patch(PatchType.MergePatch)
                .namespace(ns)
                .resource('configmaps')
                .name(name)
                .body({ data: { v: `${i}` } })
                .do();
            case 'delete':
              return writer.delete().namespace(ns).resource('configmaps').name(name).do();
          }
        };
        const deadline = Date.now() + opDeadlineMs;
        for (;;) {
          try {
            await send();
            stats.ok++;
            if (kind === 'delete') known.delete(name);
            else known.add(name);
            return;
          } catch (err) {
            if (isAlreadyExists(err)) {
              known.add(name); // a concurrent create, or a retried create that had landed
              stats.ignored++;
              return;
            }
            if (isNotFound(err)) {
              known.delete(name);
              stats.ignored++;
              return;
            }
            if (isConflict(err)) {
              stats.ignored++;
              return;
            }
            if (!isTransient(err) || Date.now() > deadline) throw err;
            // The server is down (or just back and not quite ready): retry.
            stats.retries++;
            if (transientErrors.size < 4) transientErrors.add(String(err).slice(0, 160));
            await sleep(100);
          }
        }
      };

      const worker = async (): Promise<void> => {
        while (next < operations) {
          const i = next++;
          if (i === restartAt) {
            const began = Date.now();
            restart = envtest()
              .restartApiServer({ signal: 'SIGKILL' })
              .then(() => {
                restartMs = Date.now() - began;
              });
          }
          await perform(i);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      await restart;

      // Convergence: the store and both handlers equal the server's list.
      let server = new Map<string, State>();
      const converged = (): boolean => {
        const store = storeVersions(informer.getStore());
        if (store.size !== server.size) return false;
        for (const [key, s] of server) if (store.get(key) !== s.rv) return false;
        for (const h of handlers) {
          if (h.live.size !== server.size) return false;
          for (const [key, s] of server) {
            const seen = h.live.get(key);
            if (seen?.rv !== s.rv || seen.v !== s.v) return false;
          }
        }
        return true;
      };
      try {
        await eventually(
          async () => {
            const list = await writer
              .get()
              .namespace(ns)
              .resource('configmaps')
              .do<ObjectList<ConfigMap>>();
            server = new Map(list.items.map((cm) => [metaNamespaceKeyFunc(cm), stateOf(cm)]));
            return converged();
          },
          {
            what: 'the informer and its handlers to converge with the server',
            timeoutMs: convergeMs,
            intervalMs: 100,
          },
        );
      } finally {
        console.info(
          `chaos (seed ${seed}): ${JSON.stringify(stats)}; informer: ${lists} lists, ` +
            `${watches} watches, ${watchErrors.length} list/watch errors; handler events: ` +
            `${handlers.map((h) => h.events).join(', ')}; ${server.size} objects at the end; ` +
            `restart took ${restartMs} ms; writer errors while down: ${JSON.stringify([...transientErrors])}; ` +
            `informer errors: ${JSON.stringify(watchErrors.slice(0, 4).map((e) => e.slice(0, 160)))}`,
        );
      }

      const serverRvs = new Map([...server].map(([key, s]) => [key, s.rv]));
      expect(storeVersions(informer.getStore())).toEqual(serverRvs);
      for (const h of handlers) {
        expect(h.live).toEqual(server);
        // Every key a handler heard of that is gone now, it last heard of as deleted.
        const gone = [...h.seen].filter((key) => !server.has(key)).sort();
        expect([...h.deleted].sort()).toEqual(gone);
      }
      // Deletions happened, some objects survive: the run exercised all three operations.
      expect(handlers[0]?.deleted.size).toBeGreaterThan(0);
      expect(server.size).toBeGreaterThan(0);
      expect(stats.ok).toBeGreaterThan(operations / 2);
      // The informer noticed the outage (its watch broke) and still ended up right.
      expect(watchErrors.length).toBeGreaterThan(0);
      expect(informer.isStopped()).toBe(false);
    } finally {
      ac.abort();
      await running;
    }
  }, 240_000);
});
