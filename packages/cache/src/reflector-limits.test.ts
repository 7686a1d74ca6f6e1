// The reflector against a real HTTP server on loopback that misbehaves: lists that never
// finish (the list deadline) and watch events too large to hold (the watch event cap of
// @kubets/rest). The servers misbehave forever, so the client-side limit always wins: no
// verdict depends on how fast the machine is.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@kubets/apimachinery';
import { FakeClock } from '@kubets/apimachinery/testing';
import { RESTClient } from '@kubets/rest';
import { afterEach, describe, expect, it } from 'vitest';
import { lowerWatchTimeoutFloor, type TestPod } from '../test/helpers.js';
import { listWatchFromClient } from './listwatch-client.js';
import { Reflector } from './reflector.js';
import type { ReflectorOptions, ReflectorStore } from './reflector-options.js';
import { newSharedIndexInformer } from './shared-informer.js';

/** Generous: these tests wait on conditions, and a shared CI machine may be slow. */
const testTimeoutMs = 30_000;
const waitMs = 20_000;

interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields: Record<string, unknown> | undefined;
}

function memoryLogger(): { logger: Logger; entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at =
    (level: LogEntry['level']) =>
    (message: string, fields?: Record<string, unknown>): void =>
      void entries.push({ level, message, fields });
  return {
    entries,
    logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
  };
}

class MapStore implements ReflectorStore<TestPod> {
  items = new Map<string, TestPod>();
  replaced = 0;
  add(obj: TestPod): void {
    this.items.set(obj.metadata.name, obj);
  }
  update(obj: TestPod): void {
    this.items.set(obj.metadata.name, obj);
  }
  delete(obj: TestPod): void {
    this.items.delete(obj.metadata.name);
  }
  replace(list: TestPod[]): void {
    this.replaced++;
    this.items = new Map(list.map((p) => [p.metadata.name, p]));
  }
  resync(): void {}
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

interface TestServer {
  url: string;
  /** List requests received, in order (the query of each). */
  lists: URLSearchParams[];
  /** Watch requests received, in order. */
  watches: URLSearchParams[];
  /** List responses whose connection the client closed. */
  listsClosed: number;
  onList: Handler;
  onWatch: Handler;
  close(): Promise<void>;
}

const timers = new Set<NodeJS.Timeout>();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  for (const timer of timers) clearInterval(timer);
  timers.clear();
});

/**
 * An HTTP server on 127.0.0.1 answering pod lists (with `onList`, by default the full list)
 * and watches with replaceable handlers.
 */
async function startServer(onList: Handler = answerList): Promise<TestServer> {
  const state: TestServer = {
    url: '',
    lists: [],
    watches: [],
    listsClosed: 0,
    onList,
    onWatch: holdWatch,
    close: async () => {},
  };
  const server: Server = createServer((request, response) => {
    const query = new URL(request.url ?? '/', 'http://x').searchParams;
    if (query.get('watch') === 'true') {
      state.watches.push(query);
      state.onWatch(request, response);
    } else {
      state.lists.push(query);
      response.once('close', () => {
        if (!response.writableFinished) state.listsClosed++;
      });
      state.onList(request, response);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  cleanups.push(() => state.close());
  return state;
}

const listBody = JSON.stringify({
  kind: 'PodList',
  apiVersion: 'v1',
  metadata: { resourceVersion: '10' },
  items: [
    { metadata: { name: 'a', namespace: 'default', resourceVersion: '7' } },
    { metadata: { name: 'b', namespace: 'default', resourceVersion: '10' } },
  ],
});

function answerList(_request: IncomingMessage, response: ServerResponse): void {
  response.writeHead(200, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(listBody),
  });
  response.end(listBody);
}

/** A list request accepted and never answered. */
function neverAnswer(): void {}

/** A watch accepted and then quiet (no events, never ends). */
function holdWatch(_request: IncomingMessage, response: ServerResponse): void {
  response.writeHead(200, { 'Content-Type': 'application/json' });
  response.flushHeaders();
}

/** Repeats `fn` every `ms` until the response closes (or the test ends). */
function every(response: ServerResponse, ms: number, fn: () => void): void {
  const timer = setInterval(fn, ms);
  timers.add(timer);
  response.once('close', () => {
    clearInterval(timer);
    timers.delete(timer);
  });
}

/**
 * Polls `cond` on real time; whenever the reflector sleeps on the fake clock (its backoff),
 * lets that sleep end at once.
 */
async function until(cond: () => boolean, clock: FakeClock, what: string): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > waitMs) throw new Error(`timed out waiting for ${what}`);
    if (clock.pending > 0) clock.stepToNext();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Runs `runner` until the test's cleanup, which stops it and waits for it to end. */
function runUntilCleanup(runner: { run(signal: AbortSignal): Promise<void> }) {
  const ac = new AbortController();
  const done = runner.run(ac.signal);
  cleanups.push(async () => {
    ac.abort();
    await done;
  });
  return { ac, done };
}

function startReflector(server: TestServer, options: ReflectorOptions, clientOptions = {}) {
  const client = new RESTClient(
    { host: server.url, qps: -1 },
    { groupVersion: 'v1', ...clientOptions },
  );
  const lw = listWatchFromClient<TestPod>(client, 'pods', 'default');
  const store = new MapStore();
  const clock = new FakeClock();
  const { logger, entries } = memoryLogger();
  const errors: unknown[] = [];
  const reflector = new Reflector(lw, store, {
    name: 'pods-reflector',
    typeDescription: '*v1.Pod',
    clock,
    random: () => 0,
    logger,
    watchErrorHandler: (err) => errors.push(err),
    useStreamingList: false,
    ...options,
  });
  const { ac, done } = runUntilCleanup(reflector);
  return { store, clock, entries, errors, ac, done };
}

const listDeadlineMessage =
  /^ListDeadlineExceededError: the list of \*v1\.Pod \(reflector "pods-reflector"\) did not finish within its 0\.3 s deadline/;

describe('Reflector list deadline against a misbehaving server', () => {
  const misbehaviours: [string, Handler][] = [
    ['accepts the list request and never answers', neverAnswer],
    [
      'sends the headers and half of the body, then holds',
      (_request, response) => {
        response.writeHead(200, {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(listBody),
        });
        response.write(listBody.slice(0, listBody.length / 2));
      },
    ],
    [
      'trickles the body one byte at a time, forever',
      (_request, response) => {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        // An endless list: the first item, then an item whose name never ends.
        const head = listBody.slice(0, listBody.indexOf('"name":"b"') + '"name":"b'.length);
        let i = 0;
        every(response, 20, () => response.write(i < head.length ? head[i++]! : 'b'));
      },
    ],
  ];

  for (const [name, misbehave] of misbehaviours) {
    it(
      `${name}: aborted at the deadline, logged, reported, retried; syncs once the server answers`,
      async () => {
        const server = await startServer(misbehave);
        const { store, clock, entries, errors } = startReflector(server, {
          listTimeoutSeconds: 0.3,
        });

        // The first list hits its deadline, and the reflector lists again after a backoff.
        await until(() => server.lists.length >= 2, clock, 'a second list request');
        expect(errors.length).toBeGreaterThanOrEqual(1);
        expect(String(errors[0])).toMatch(listDeadlineMessage);
        expect((errors[0] as Error).name).toBe('ListDeadlineExceededError');
        const warning = entries.find((e) => e.level === 'warn');
        expect(warning?.message).toBe('List/watch failed');
        expect(warning?.fields).toMatchObject({ name: 'pods-reflector', type: '*v1.Pod' });
        expect(String(warning?.fields?.error)).toMatch(listDeadlineMessage);
        expect(clock.requestedSleeps.length).toBeGreaterThanOrEqual(1); // the backoff
        // The request was aborted: its connection is closed, not left behind.
        await until(() => server.listsClosed >= 1, clock, 'the first list connection to close');
        expect(store.replaced).toBe(0);

        // Once the server answers, the store syncs and the reflector watches.
        server.onList = answerList;
        await until(() => store.items.size === 2, clock, 'the store to sync');
        await until(() => server.watches.length >= 1, clock, 'a watch');
        expect(server.watches[0]?.get('resourceVersion')).toBe('10');
      },
      testTimeoutMs,
    );
  }

  it(
    'applies the deadline to every page of a paged list',
    async () => {
      const server = await startServer();
      const page1 = JSON.stringify({
        kind: 'PodList',
        metadata: { resourceVersion: '10', continue: 'next' },
        items: [{ metadata: { name: 'a', namespace: 'default', resourceVersion: '7' } }],
      });
      let page2Answers = false;
      server.onList = (request, response) => {
        const query = new URL(request.url ?? '/', 'http://x').searchParams;
        if (!query.has('continue')) {
          response.writeHead(200, { 'Content-Type': 'application/json' });
          response.end(page1);
        } else if (page2Answers) {
          answerList(request, response);
        }
        // else: the second page never comes.
      };
      const { store, clock, errors } = startReflector(server, { listTimeoutSeconds: 0.3 });
      await until(() => errors.length >= 1, clock, 'the second page to time out');
      expect(String(errors[0])).toMatch(listDeadlineMessage);
      expect(server.lists[1]?.get('continue')).toBe('next');
      page2Answers = true;
      await until(() => store.items.size === 2, clock, 'the store to sync');
    },
    testTimeoutMs,
  );

  it(
    'informers pass listTimeoutSeconds to their reflector',
    async () => {
      const server = await startServer(neverAnswer);
      const client = new RESTClient({ host: server.url, qps: -1 }, { groupVersion: 'v1' });
      const clock = new FakeClock();
      const informer = newSharedIndexInformer(
        listWatchFromClient<TestPod>(client, 'pods', 'default'),
        'pods',
        { clock, listTimeoutSeconds: 0.3, useStreamingList: false },
      );
      runUntilCleanup(informer);
      await until(() => server.lists.length >= 2, clock, 'a second list request');
      server.onList = answerList;
      await until(() => informer.hasSynced(), clock, 'the informer to sync');
      expect(informer.getStore().listKeys().sort()).toEqual(['default/a', 'default/b']);
    },
    testTimeoutMs,
  );

  it(
    'stopping the reflector aborts a pending list at once and quietly',
    async () => {
      const server = await startServer(neverAnswer);
      const { clock, entries, errors, ac, done } = startReflector(server, {});
      await until(() => server.lists.length === 1, clock, 'the list request');
      ac.abort();
      await done;
      await until(() => server.listsClosed === 1, clock, 'the list connection to close');
      expect(errors).toEqual([]);
      expect(entries.filter((e) => e.level !== 'debug')).toEqual([]);
    },
    testTimeoutMs,
  );

  it(
    'covers a streaming list that stalls with the watch deadline, then lists',
    async () => {
      const server = await startServer();
      lowerWatchTimeoutFloor(1);
      const { store, clock, entries } = startReflector(server, {
        useStreamingList: true,
        minWatchTimeoutSeconds: 1,
        watchDeadlineGraceSeconds: 0.2,
        listTimeoutSeconds: 0.3,
      });
      // The streaming list is a quiet watch that never sends its end bookmark.
      await until(() => store.items.size === 2, clock, 'the fallback list to sync the store');
      expect(server.watches[0]?.get('sendInitialEvents')).toBe('true');
      // Held open past its timeout without the bookmark: one warning naming it.
      const warnings = entries.filter((e) => e.level === 'warn');
      expect(warnings.map((e) => e.message)).toEqual([
        'The server does not finish streaming lists; falling back to paged lists',
      ]);
      expect(String(warnings[0]?.fields?.error)).toMatch(
        /held a streaming list open past its timeoutSeconds without the bookmark annotated "k8s.io\/initial-events-end"/,
      );
    },
    testTimeoutMs,
  );
});

describe('Reflector after a watch event over the size cap', () => {
  it(
    'reports the ERROR, relists (the event is lost) and keeps applying events',
    async () => {
      const server = await startServer();
      const watchesClosed: number[] = [];
      server.onWatch = (_request, response) => {
        const n = server.watches.length;
        response.once('close', () => void watchesClosed.push(n));
        response.writeHead(200, { 'Content-Type': 'application/json' });
        if (n === 1) {
          response.write(
            `${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'c', namespace: 'default', resourceVersion: '11' } } })}\n`,
          );
          // An event that never ends.
          response.write('{"type":"ADDED","object":{"metadata":{"name":"huge"},"data":"');
          every(response, 1, () => response.write('x'.repeat(256)));
        } else {
          response.write(
            `${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'd', namespace: 'default', resourceVersion: '12' } } })}\n`,
          );
        }
      };
      const { store, clock, errors } = startReflector(server, {}, { maxWatchEventBytes: 1024 });
      await until(() => store.items.has('d'), clock, 'an event of the second watch');
      expect(store.items.has('huge')).toBe(false);
      expect(errors).toHaveLength(1);
      expect(String(errors[0])).toMatch(/watch event larger than 1024 bytes/);
      // An ERROR event ends the watch: only a list recovers what it lost.
      expect(server.lists).toHaveLength(2);
      expect(server.watches[1]?.get('resourceVersion')).toBe('10');
      await until(() => watchesClosed.includes(1), clock, 'the first watch connection to close');
    },
    testTimeoutMs,
  );
});

describe('Reflector streaming lists against a server that never finishes them', () => {
  const podA = { metadata: { name: 'a', namespace: 'default', resourceVersion: '7' } };
  const goneEvent = {
    type: 'ERROR',
    object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Gone' },
  };

  it(
    'ends every streaming list after an object without the bookmark: three streams with backoff, one warning, a paged list for ten minutes, then streaming again',
    async () => {
      const server = await startServer();
      let streamingLists = 0;
      let plainWatch: ServerResponse | undefined;
      const endPlainWatch = (): void => {
        plainWatch?.end(`${JSON.stringify(goneEvent)}\n`);
        plainWatch = undefined;
      };
      server.onWatch = (_request, response) => {
        const query = server.watches[server.watches.length - 1];
        response.writeHead(200, { 'Content-Type': 'application/json' });
        if (query?.get('sendInitialEvents') === 'true') {
          streamingLists++;
          response.end(`${JSON.stringify({ type: 'ADDED', object: podA })}\n`);
          return;
        }
        plainWatch = response;
        response.flushHeaders();
      };
      const { store, clock, entries, errors } = startReflector(server, { useStreamingList: true });
      await until(() => store.items.size === 2, clock, 'the paged list to sync the store');
      await until(() => plainWatch !== undefined, clock, 'the watch after the paged list');
      expect(clock.now()).toBeLessThan(60_000);
      // The rest of a minute: nothing more is asked for.
      await clock.advance(60_000 - clock.now());
      expect(streamingLists).toBe(3);
      expect(server.lists).toHaveLength(1);
      expect(server.watches).toHaveLength(4);
      const warnings = entries.filter((e) => e.level === 'warn');
      expect(warnings.map((e) => e.message)).toEqual([
        'The server does not finish streaming lists; falling back to paged lists',
      ]);
      expect(String(warnings[0]?.fields?.error)).toMatch(
        /the server ended 3 streaming lists in a row without the bookmark annotated "k8s.io\/initial-events-end".*paged lists for 10 minutes/,
      );
      expect(errors.map((e) => (e as Error).name)).toEqual(['IncompleteStreamingListError']);
      expect(
        entries.filter((e) => e.message.includes('initial-events-end bookmark; asking again')),
      ).toHaveLength(2);

      // A relist within the ten minutes is a paged list.
      endPlainWatch();
      await until(
        () => server.lists.length === 2 && plainWatch !== undefined,
        clock,
        'a paged relist',
      );
      expect(streamingLists).toBe(3);
      // One after them tries streaming again.
      await clock.advance(10 * 60_000);
      endPlainWatch();
      await until(() => streamingLists === 4, clock, 'a streaming list after the pause');
    },
    testTimeoutMs,
  );

  it(
    'holds a streaming list open without the bookmark: the watch deadline ends it, one warning, a paged list syncs',
    async () => {
      const server = await startServer();
      server.onWatch = (_request, response) => {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.write(`${JSON.stringify({ type: 'ADDED', object: podA })}\n`);
      };
      lowerWatchTimeoutFloor(1);
      const { store, clock, entries, errors } = startReflector(server, {
        useStreamingList: true,
        minWatchTimeoutSeconds: 1,
        watchDeadlineGraceSeconds: 0.2,
      });
      await until(() => store.items.size === 2, clock, 'the paged list to sync the store');
      expect(server.watches.filter((q) => q.get('sendInitialEvents') === 'true')).toHaveLength(1);
      expect(entries.filter((e) => e.level === 'warn')).toHaveLength(1);
      expect(String(errors[0])).toMatch(/held a streaming list open past its timeoutSeconds/);
    },
    testTimeoutMs,
  );
});
