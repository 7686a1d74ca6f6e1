// What every runner process does, whatever the informer under test: measure the initial
// sync, the heap the cache takes, the CPU of one update per Pod, and the peak of a relist;
// then print one JSON line and send it to the parent.
//
// A runner is started by main.ts with `node --expose-gc src/run-<impl>.ts <config JSON>`
// (or on Bun or Deno: runtimes.ts) and an IPC channel. Messages:
//   runner → parent  { type: 'synced' }          sync measured; start patching
//   parent → runner  { type: 'patch', generation } the label value the patcher sets
//   runner → parent  { type: 'result', result }  everything measured; the runner exits
//   runner → parent  { type: 'error', message }

import { createRequire } from 'node:module';
import { generationLabel, isGenerationValue } from './fixture.ts';
import { startProfile } from './profile.ts';
import type { RunnerResult, Variant } from './stats.ts';

/** Handed to a runner on its command line. */
export interface RunnerConfig {
  variant: Variant;
  round: number;
  pods: number;
  namespace: string;
  kubeconfig: string;
  /** Times each Pod is patched in the update window (the runner expects pods × this). */
  updatesPerPod: number;
  /** Milliseconds to wait for each phase before giving up. */
  timeoutMs: number;
  /** When set, the update phase is CPU-profiled into this directory. */
  profileDir?: string;
}

export type ParentMessage = { type: 'patch'; generation: string };
export type RunnerMessage =
  | { type: 'synced' }
  | { type: 'result'; result: RunnerResult }
  | { type: 'error'; message: string };

/** The minimum of a Pod (or PartialObjectMetadata) the runners read. */
export interface BenchObject {
  metadata?: {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    managedFields?: unknown[];
  };
}

/** How one informer implementation is driven. */
/** What {@link Subject.relist} reports. */
export interface RelistOutcome {
  /** List requests made. */
  lists: number;
  /**
   * `performance.now()` when the relist's list request started, for a client whose reflector
   * waits a backoff (0.8–1.6 s, client-go's) between the 410 and its list: the relist is then
   * timed from its list request, as client-go's is. Absent: timed from the expiry.
   */
  listStartedAt?: number | undefined;
}

export interface Subject {
  /** Starts the informer; resolves once it reports synced. */
  startAndSync(): Promise<void>;
  /** Objects in the cache. */
  cacheSize(): number;
  /**
   * Forces a relist as a watch that fails with 410 Expired would, and resolves once the
   * relisted objects are all in the cache; returns the number of list requests made.
   */
  relist(): Promise<RelistOutcome>;
  /** Stops everything. */
  stop(): Promise<void>;
}

/** What the update window cost the runner. */
export interface UpdateWindow {
  /** User + system CPU, seconds. */
  cpuSeconds: number;
  wallMs: number;
  /** Voluntary context switches of all the process's threads (getrusage ru_nvcsw). */
  sleeps: number;
}

/**
 * Counts what the handler and the worker see, and times the update phase: the handler calls
 * {@link Counters.added}/{@link Counters.updated}, the worker {@link Counters.worked}.
 */
export class Counters {
  adds = 0;
  workedKeys = 0;
  updates = 0;
  /** Keys the worker did not find in the cache (0 expected: nothing is deleted). */
  misses = 0;
  #generation: string | undefined;
  #expected = 0;
  #cpuStart: NodeJS.CpuUsage | undefined;
  #sleepsStart = 0;
  #wallStart = 0;
  #initialDone: (() => void) | undefined;
  #updatesDone: ((r: UpdateWindow) => void) | undefined;

  readonly pods: number;

  constructor(pods: number) {
    this.pods = pods;
  }

  added(): void {
    this.adds++;
  }

  /** An update of `obj`; counted when it carries a value of the generation being patched in. */
  updated(obj: BenchObject): void {
    const generation = this.#generation;
    if (generation === undefined) return;
    if (!isGenerationValue(obj.metadata?.labels?.[generationLabel], generation)) return;
    this.updateSeen();
  }

  /**
   * An update event of the patch round, for a runner that keeps no object to check (the
   * floor parses each line and drops it). Every update a fresh runner sees after its sync is
   * the patcher's: nothing else changes the Pods.
   */
  updateSeen(): void {
    if (this.#generation === undefined) return;
    if (this.updates === 0) {
      this.#cpuStart = process.cpuUsage();
      this.#sleepsStart = process.resourceUsage().voluntaryContextSwitches;
      this.#wallStart = performance.now();
    }
    this.updates++;
  }

  /** The worker finished a key (`found` in the cache); `queueEmpty` when nothing else waits. */
  worked(queueEmpty: boolean, found: boolean): void {
    this.workedKeys++;
    if (!found) this.misses++;
    if (this.#initialDone !== undefined && this.workedKeys >= this.pods && queueEmpty) {
      const done = this.#initialDone;
      this.#initialDone = undefined;
      done();
    }
    if (
      this.#updatesDone !== undefined &&
      this.updates >= this.#expected &&
      queueEmpty &&
      this.#cpuStart !== undefined
    ) {
      const cpu = process.cpuUsage(this.#cpuStart);
      const sleeps = process.resourceUsage().voluntaryContextSwitches - this.#sleepsStart;
      const wallMs = performance.now() - this.#wallStart;
      const done = this.#updatesDone;
      this.#updatesDone = undefined;
      // A relist that follows may hand every object to the handler again: not this window's.
      this.#generation = undefined;
      done({ cpuSeconds: (cpu.user + cpu.system) / 1e6, wallMs, sleeps });
    }
  }

  /** For a runner without a work queue: the handler's event was the whole work. */
  handled(): void {
    this.worked(true, true);
  }

  /** Resolves once the worker has processed the keys of the initial list. */
  initialWorked(): Promise<void> {
    if (this.workedKeys >= this.pods) return Promise.resolve();
    return new Promise((resolve) => {
      this.#initialDone = resolve;
    });
  }

  /** Starts counting updates that set `generation`; resolves once `expected` were worked. */
  expectUpdates(generation: string, expected: number): Promise<UpdateWindow> {
    this.#generation = generation;
    this.#expected = expected;
    this.updates = 0;
    return new Promise((resolve) => {
      this.#updatesDone = resolve;
    });
  }
}

/** Samples heapUsed and RSS every millisecond (and on demand) while running. */
export class PeakSampler {
  peakHeap = 0;
  peakRss = 0;
  #timer: NodeJS.Timeout | undefined;

  start(): void {
    this.sample();
    this.#timer = setInterval(() => this.sample(), 1);
  }

  sample(): void {
    const m = process.memoryUsage();
    if (m.heapUsed > this.peakHeap) this.peakHeap = m.heapUsed;
    if (m.rss > this.peakRss) this.peakRss = m.rss;
  }

  stop(): void {
    this.sample();
    clearInterval(this.#timer);
  }
}

/**
 * A full, synchronous garbage collection (twice, so weak references and finalizers settle):
 * V8's `gc()` on Node and Deno (`--expose-gc`, `--v8-flags=--expose-gc`), `Bun.gc(true)` on
 * Bun, which has no `gc()`.
 */
export function fullGc(): void {
  const runtime = globalThis as { gc?: () => void; Bun?: { gc(force: boolean): void } };
  const bun = runtime.Bun;
  const gc = runtime.gc ?? (bun === undefined ? undefined : () => bun.gc(true));
  if (gc === undefined) throw new Error('run the runner with node --expose-gc');
  gc();
  gc();
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no result after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function send(message: RunnerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined) {
      resolve();
      return;
    }
    process.send(message, undefined, {}, () => resolve());
  });
}

function nextPatch(): Promise<string> {
  return new Promise((resolve) => {
    const onMessage = (m: ParentMessage): void => {
      if (m.type !== 'patch') return;
      process.off('message', onMessage);
      resolve(m.generation);
    };
    process.on('message', onMessage);
  });
}

/** The runner's config from its command line. */
export function runnerConfig(): RunnerConfig {
  const raw = process.argv[2];
  if (raw === undefined) throw new Error('usage: node --expose-gc src/run-<impl>.ts <config JSON>');
  return JSON.parse(raw) as RunnerConfig;
}

/**
 * Measures the subject `make` builds. `make` runs before the heap baseline is taken, so the
 * clients and loaded modules are part of the baseline and only the informer's data counts.
 */
export async function runBenchmark(
  config: RunnerConfig,
  make: (counters: Counters) => Subject | Promise<Subject>,
): Promise<void> {
  try {
    const counters = new Counters(config.pods);
    const subject = await make(counters);
    // @kubets/rest requires Node's HTTPS, TLS and stream modules on its first request:
    // loaded here, they are part of the baseline for both clients, as before it loaded them
    // lazily, instead of counting as cache in the heap per object.
    createRequire(import.meta.url)('node:https');
    fullGc();
    const baseline = process.memoryUsage().heapUsed;

    const t0 = performance.now();
    await withTimeout(subject.startAndSync(), config.timeoutMs, 'initial sync');
    const syncMs = performance.now() - t0;
    await withTimeout(counters.initialWorked(), config.timeoutMs, 'initial keys');
    const drainMs = performance.now() - t0;
    // The process's peak RSS so far: reached while the list was downloaded, parsed and cached.
    const syncPeakRssBytes = process.resourceUsage().maxRSS * 1024;
    const cached = subject.cacheSize();

    fullGc();
    const afterSync = process.memoryUsage();
    const storeHeapBytes = afterSync.heapUsed - baseline;

    const patch = nextPatch();
    await send({ type: 'synced' });
    const generation = await patch;
    const stopProfile = await startProfile(config.profileDir, 'cpu', 200);
    const update = await withTimeout(
      counters.expectUpdates(generation, config.pods * config.updatesPerPod),
      config.timeoutMs,
      'update events',
    );
    await stopProfile?.(`updates-${config.variant}-r${config.round}`);

    fullGc();
    const beforeRelist = process.memoryUsage().heapUsed - baseline;
    const stopHeapProfile = await startProfile(config.profileDir, 'heap', 16384);
    const sampler = new PeakSampler();
    sampler.start();
    const r0 = performance.now();
    const { lists, listStartedAt } = await withTimeout(
      subject.relist(),
      config.timeoutMs,
      'relist',
    );
    const relistMs = performance.now() - (listStartedAt ?? r0);
    sampler.stop();
    await stopHeapProfile?.(`relist-${config.variant}-r${config.round}`);

    const result: RunnerResult = {
      variant: config.variant,
      round: config.round,
      pods: config.pods,
      cached,
      syncMs,
      drainMs,
      syncPeakRssBytes,
      baselineHeapBytes: baseline,
      storeHeapBytes,
      heapPerObjectBytes: storeHeapBytes / config.pods,
      rssAfterSyncBytes: afterSync.rss,
      updates: counters.updates,
      updateCpuSeconds: update.cpuSeconds,
      updateWallMs: update.wallMs,
      updateSleeps: update.sleeps,
      relistMs,
      relistPeakHeapBytes: sampler.peakHeap - baseline,
      relistPeakRatio: (sampler.peakHeap - baseline) / beforeRelist,
      relistPeakRssBytes: sampler.peakRss,
      relistLists: lists,
      workMisses: counters.misses,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    await send({ type: 'result', result });
    await subject.stop();
    process.exit(0);
  } catch (err) {
    const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(`${config.variant}: ${message}\n`);
    await send({ type: 'error', message });
    process.exit(1);
  }
}
