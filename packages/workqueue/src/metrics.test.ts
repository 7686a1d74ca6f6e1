import { FakeClock } from '@kubets/apimachinery/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { DelayingQueue } from './delaying-queue.js';
import {
  getMetricsProvider,
  type MetricsProvider,
  noopQueueMetricsProvider,
  setMetricsProvider,
  UNFINISHED_WORK_UPDATE_PERIOD_MS,
} from './metrics.js';
import { Queue } from './queue.js';
import { newRateLimitingQueue } from './rate-limiting-queue.js';

/** Records what every metric of every queue receives. */
class RecordingProvider implements MetricsProvider {
  readonly created: string[] = [];
  readonly depth = new Map<string, number>();
  readonly adds = new Map<string, number>();
  readonly retries = new Map<string, number>();
  readonly latency = new Map<string, number[]>();
  readonly workDuration = new Map<string, number[]>();
  readonly unfinished = new Map<string, number[]>();
  readonly longestRunning = new Map<string, number[]>();

  #bump(map: Map<string, number>, name: string, by: number): void {
    map.set(name, (map.get(name) ?? 0) + by);
  }

  #list(map: Map<string, number[]>, name: string): number[] {
    let list = map.get(name);
    if (list === undefined) {
      list = [];
      map.set(name, list);
    }
    return list;
  }

  /** Notes the metric `kind:name` as created; a function keeping every value it is given. */
  #recorder(kind: string, map: Map<string, number[]>, name: string): (v: number) => void {
    this.created.push(`${kind}:${name}`);
    return (v) => {
      this.#list(map, name).push(v);
    };
  }

  newDepthMetric(name: string) {
    this.created.push(`depth:${name}`);
    return {
      inc: () => this.#bump(this.depth, name, 1),
      dec: () => this.#bump(this.depth, name, -1),
    };
  }
  newAddsMetric(name: string) {
    this.created.push(`adds:${name}`);
    return { inc: () => this.#bump(this.adds, name, 1) };
  }
  newLatencyMetric(name: string) {
    return { observe: this.#recorder('latency', this.latency, name) };
  }
  newWorkDurationMetric(name: string) {
    return { observe: this.#recorder('workDuration', this.workDuration, name) };
  }
  newUnfinishedWorkSecondsMetric(name: string) {
    return { set: this.#recorder('unfinished', this.unfinished, name) };
  }
  newLongestRunningProcessorSecondsMetric(name: string) {
    return { set: this.#recorder('longestRunning', this.longestRunning, name) };
  }
  newRetriesMetric(name: string) {
    this.created.push(`retries:${name}`);
    return { inc: () => this.#bump(this.retries, name, 1) };
  }
}

afterEach(() => setMetricsProvider(noopQueueMetricsProvider));

describe('metrics', () => {
  it('records nothing and sets no timer for an unnamed queue or the no-op provider', () => {
    const clock = new FakeClock();
    const provider = new RecordingProvider();
    const unnamed = new DelayingQueue<string>({ clock, metricsProvider: provider });
    unnamed.add('a');
    unnamed.addAfter('b', 0);
    expect(provider.created).toEqual([]);
    const noop = new Queue<string>({ clock, name: 'q', metricsProvider: noopQueueMetricsProvider });
    noop.add('a');
    expect(clock.pending).toBe(0);
  });

  it('tracks depth and adds: duplicates of a waiting item are not counted', async () => {
    const clock = new FakeClock();
    const provider = new RecordingProvider();
    const q = new Queue<string>({ clock, name: 'pods', metricsProvider: provider });
    q.add('a');
    q.add('a');
    q.add('b');
    expect(provider.adds.get('pods')).toBe(2);
    expect(provider.depth.get('pods')).toBe(2);
    await q.get();
    expect(provider.depth.get('pods')).toBe(1);
    // Added while processing: counted and in the depth, as in client-go.
    q.add('a');
    expect(provider.adds.get('pods')).toBe(3);
    expect(provider.depth.get('pods')).toBe(2);
    q.shutDown();
  });

  it('observes queue latency from the first add and work duration until done, in seconds', async () => {
    const clock = new FakeClock();
    const provider = new RecordingProvider();
    const q = new Queue<string>({ clock, name: 'pods', metricsProvider: provider });
    q.add('a');
    clock.step(100);
    q.add('a'); // a duplicate does not restart the latency clock
    clock.step(150);
    const got = await q.get();
    expect(got.item).toBe('a');
    expect(provider.latency.get('pods')).toEqual([0.25]);
    clock.step(40);
    q.done('a');
    expect(provider.workDuration.get('pods')).toEqual([0.04]);
    q.done('a'); // not processing: nothing more observed
    expect(provider.workDuration.get('pods')).toEqual([0.04]);
    q.shutDown();
  });

  it('counts retries for addAfter and addRateLimited', () => {
    const clock = new FakeClock();
    const provider = new RecordingProvider();
    const q = newRateLimitingQueue<string>(undefined, {
      clock,
      name: 'retrying',
      metricsProvider: provider,
    });
    q.addAfter('a', 0);
    q.addAfter('b', 10);
    q.addRateLimited('c');
    expect(provider.retries.get('retrying')).toBe(3);
    q.shutDown();
    q.addRateLimited('d');
    expect(provider.retries.get('retrying')).toBe(3);
    expect(provider.created).toContain('retries:retrying');
  });

  it('updates unfinished work and longest running every 500 ms, and stops at shutdown', async () => {
    const clock = new FakeClock();
    const provider = new RecordingProvider();
    const q = new Queue<string>({ clock, name: 'slow', metricsProvider: provider });
    expect(UNFINISHED_WORK_UPDATE_PERIOD_MS).toBe(500);
    expect(clock.pending).toBe(1);
    q.add('a');
    q.add('b');
    await q.get(); // a starts at 0
    clock.step(200);
    await q.get(); // b starts at 200
    clock.step(299);
    expect(provider.unfinished.get('slow')).toBeUndefined();
    clock.step(1); // t = 500: a 0.5 s, b 0.3 s
    expect(provider.unfinished.get('slow')).toEqual([0.8]);
    expect(provider.longestRunning.get('slow')).toEqual([0.5]);
    q.done('a');
    clock.step(500); // t = 1000: b 0.8 s
    expect(provider.unfinished.get('slow')).toEqual([0.8, 0.8]);
    expect(provider.longestRunning.get('slow')).toEqual([0.5, 0.8]);
    q.done('b');
    clock.step(500);
    expect(provider.unfinished.get('slow')?.at(-1)).toBe(0);
    expect(provider.longestRunning.get('slow')?.at(-1)).toBe(0);
    q.shutDown();
    expect(clock.pending).toBe(0);
    clock.step(5000);
    expect(provider.unfinished.get('slow')).toHaveLength(3);
  });

  it('leaves no timers behind after a drained shutdown of a delaying queue with metrics', async () => {
    const clock = new FakeClock();
    const provider = new RecordingProvider();
    const q = new DelayingQueue<string>({ clock, name: 'd', metricsProvider: provider });
    q.addAfter('later', 1000);
    q.add('now');
    await q.get();
    expect(clock.pending).toBe(2);
    const drained = q.shutDownWithDrain();
    expect(clock.pending).toBe(0);
    q.done('now');
    await drained;
  });

  it('uses the provider set with setMetricsProvider when none is given', async () => {
    const clock = new FakeClock();
    const provider = new RecordingProvider();
    expect(getMetricsProvider()).toBe(noopQueueMetricsProvider);
    setMetricsProvider(provider);
    expect(getMetricsProvider()).toBe(provider);
    const q = new DelayingQueue<string>({ clock, name: 'global' });
    q.add('a');
    expect(provider.adds.get('global')).toBe(1);
    expect(provider.created.sort()).toEqual(
      [
        'adds:global',
        'depth:global',
        'latency:global',
        'longestRunning:global',
        'retries:global',
        'unfinished:global',
        'workDuration:global',
      ].sort(),
    );
    q.shutDown();
  });
});
