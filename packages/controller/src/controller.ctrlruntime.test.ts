// controller-runtime's pkg/internal/controller/controller_test.go, case by case: the same
// inputs and expectations, on kubets' Controller. Go calls the controller's Reconcile
// wrapper directly; kubets has it only behind the queue, so each case enqueues the request
// and reads what the queue, the counters and the metrics say afterwards. Cases that cannot
// hold in TypeScript, or that kubets does differently, are listed with their reasons in
// docs/fidelity.md ("controller-runtime: the controller and the manager").
import { FakeClock } from '@kubets/apimachinery/testing';
import { deferred, eventually, MemoryLogger, rejectionOf } from '@kubets/test-utils';
import {
  type AddOptions,
  ItemExponentialFailureRateLimiter,
  PriorityQueue,
} from '@kubets/workqueue';
import * as prom from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CacheSyncTimeoutError,
  Controller,
  type ControllerOptions,
  type ReconcileContext,
  type ReconcileRequest,
  type Reconciler,
  TerminalError,
} from './index.js';
import { newPrometheusControllerMetrics } from './prometheus-metrics.js';
import { listerOf } from './testing.js';

type Obj = { metadata?: { name?: string; namespace?: string } };
const testControllerName = 'testcontroller';
const request: ReconcileRequest = { namespace: 'foo', name: 'bar' };
const key = 'foo/bar';

const running: AbortController[] = [];
const done: Promise<unknown>[] = [];
afterEach(async () => {
  for (const abort of running.splice(0)) abort.abort();
  await Promise.allSettled(done.splice(0));
});

/**
 * Go's test fixture: a controller named `testcontroller` with one worker, its metrics in a
 * registry of its own, and a queue whose rate-limited adds and delayed adds are counted (Go's
 * `DelegatingQueue`).
 */
function newController(reconciler: Reconciler<Obj>, options: Partial<ControllerOptions<Obj>> = {}) {
  const clock = new FakeClock();
  const logger = new MemoryLogger();
  const registry = new prom.Registry();
  const ctl = new Controller<Obj>({
    name: testControllerName,
    reconciler,
    lister: listerOf<Obj>([]),
    clock,
    logger,
    metrics: newPrometheusControllerMetrics(prom, registry),
    rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000),
    // Go's DelegatingQueue wraps a plain rate-limiting queue, which the controller adapts
    // (priorityQueueWrapper): its adds are counted here the same way.
    usePriorityQueue: false,
    ...options,
  });
  const counts = { addRateLimited: 0, addAfter: 0 };
  const { addRateLimited, addAfter } = ctl.queue;
  // A rate-limited add delays through addAfter itself: counted as the rate-limited add only.
  let rateLimiting = false;
  ctl.queue.addRateLimited = (item) => {
    counts.addRateLimited++;
    rateLimiting = true;
    try {
      addRateLimited.call(ctl.queue, item);
    } finally {
      rateLimiting = false;
    }
  };
  ctl.queue.addAfter = (item, ms) => {
    if (!rateLimiting) counts.addAfter++;
    addAfter.call(ctl.queue, item, ms);
  };
  const metric = async (name: string, labels: Record<string, string> = {}): Promise<number> => {
    const found = (await registry.getSingleMetric(`controller_runtime_${name}`)?.get())?.values;
    const want = { controller: testControllerName, ...labels };
    const sample = found?.find(
      (v) =>
        Object.entries(want).every(([k, value]) => v.labels[k] === value) &&
        (v as { metricName?: string }).metricName?.endsWith('_count') !== false,
    );
    return sample?.value ?? 0;
  };
  const start = (): Promise<void> => {
    const abort = new AbortController();
    running.push(abort);
    const run = ctl.run(abort.signal);
    done.push(run);
    return run;
  };
  return { ctl, clock, logger, counts, metric, start };
}

/** Go's `fakeReconciler`: records each request and answers with the next queued result. */
function fakeReconciler() {
  const reconciled: string[] = [];
  const results: (() => unknown)[] = [];
  const reconciler: Reconciler<Obj> = (req) => {
    reconciled.push(`${req.namespace}/${req.name}`);
    const next = results.shift();
    return next?.() as undefined;
  };
  return {
    reconciler,
    reconciled,
    addResult: (result: () => unknown) => results.push(result),
  };
}

/** The error the last failed reconcile was logged with. */
function lastReconcileError(logger: MemoryLogger): unknown {
  return logger.lines.filter((l) => l.message.startsWith('Reconciler error')).at(-1)?.fields?.error;
}

describe('controller', () => {
  describe('Reconciler', () => {
    it('should call the Reconciler function', async () => {
      const { ctl, start } = newController(() => ({ requeue: true }));
      start();
      ctl.enqueue(request);
      await eventually(() => ctl.stats().reconcileTotal.requeue === 1);
    });

    it('should recover panic if RecoverPanic is true by default', async () => {
      // Go dereferences a nil pointer; the TypeScript equivalent throws a TypeError.
      const { ctl, start, logger } = newController((_req, ctx) => {
        const missing = ctx.cached() as Obj;
        return { requeueAfterMs: missing.metadata?.name?.length };
      });
      const run = start();
      ctl.enqueue(request);
      await eventually(() => ctl.stats().reconcileErrors === 1);
      expect(lastReconcileError(logger)).toBeInstanceOf(TypeError);
      // Recovered: the controller keeps running and retries.
      expect(ctl.queue.numRequeues(key)).toBe(1);
      let settled = false;
      void run.finally(() => {
        settled = true;
      });
      await Promise.resolve();
      expect(settled).toBe(false);
    });

    it('should time out if ReconciliationTimeout is set', async () => {
      const { ctl, start, logger, clock } = newController(
        (_req, ctx) =>
          new Promise<undefined>((_, reject) =>
            ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
          ),
        { reconcileTimeoutMs: 1 },
      );
      start();
      ctl.enqueue(request);
      await eventually(() => ctl.stats().activeWorkers === 1);
      await clock.advance(1);
      await eventually(() => ctl.stats().reconcileErrors === 1);
      const err = lastReconcileError(logger) as Error;
      expect(err.name).toBe('TimeoutError');
      expect(err.message).toBe('controller testcontroller: reconcile timed out after 1ms');
    });

    describe('prometheus metric reconcile_timeouts', () => {
      const waitForAbort = (_req: ReconcileRequest, ctx: ReconcileContext<Obj>) =>
        new Promise<undefined>((_, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
        );

      it('should increment when ReconciliationTimeout context timeout hits DeadlineExceeded', async () => {
        const { ctl, start, clock, metric } = newController(waitForAbort, {
          reconcileTimeoutMs: 1,
        });
        start();
        expect(await metric('reconcile_timeouts_total')).toBe(0);
        ctl.enqueue(request);
        await eventually(() => ctl.stats().activeWorkers === 1);
        await clock.advance(1);
        await eventually(() => ctl.stats().reconcileErrors === 1);
        expect(await metric('reconcile_timeouts_total')).toBe(1);
        expect(ctl.stats().reconcileTimeouts).toBe(1);
      });

      it('should not increment when user code cancels context earlier than the ReconciliationTimeout', async () => {
        const userCancelCause = new Error('user cancellation');
        let clock!: FakeClock;
        const fixture = newController(
          (_req, ctx) =>
            new Promise<undefined>((_, reject) => {
              // The user's own, shorter deadline, with a cause of its own.
              const user = new AbortController();
              clock.setTimeout(() => user.abort(userCancelCause), 1);
              AbortSignal.any([ctx.signal, user.signal]).addEventListener('abort', () =>
                reject(user.signal.reason),
              );
            }),
          { reconcileTimeoutMs: 10_000 },
        );
        clock = fixture.clock;
        fixture.start();
        fixture.ctl.enqueue(request);
        await eventually(() => fixture.ctl.stats().activeWorkers === 1);
        await clock.advance(1);
        await eventually(() => fixture.ctl.stats().reconcileErrors === 1);
        expect(lastReconcileError(fixture.logger)).toBe(userCancelCause);
        expect(await fixture.metric('reconcile_timeouts_total')).toBe(0);
      });

      it('should not increment when reconciliation completes before timeout', async () => {
        const { ctl, start, metric } = newController(() => undefined, {
          reconcileTimeoutMs: 10_000,
        });
        start();
        ctl.enqueue(request);
        await eventually(() => ctl.stats().reconcileTotal.success === 1);
        expect(await metric('reconcile_timeouts_total')).toBe(0);
      });

      it('should increment multiple times when multiple reconciles timeout', async () => {
        const { ctl, start, clock, metric } = newController(waitForAbort, {
          reconcileTimeoutMs: 1,
        });
        start();
        const numTimeouts = 3;
        for (let i = 0; i < numTimeouts; i++) {
          ctl.enqueue({ namespace: 'foo', name: `bar${i}` });
          await eventually(() => ctl.stats().activeWorkers === 1);
          await clock.advance(1);
          await eventually(() => ctl.stats().reconcileErrors === i + 1);
        }
        expect(await metric('reconcile_timeouts_total')).toBe(numTimeouts);
      });

      it('should not increment when parent context is cancelled', async () => {
        const { ctl, clock, metric, logger } = newController(waitForAbort, {
          reconcileTimeoutMs: 10_000,
        });
        const parent = new AbortController();
        const run = ctl.run(parent.signal);
        ctl.enqueue(request);
        await eventually(() => ctl.stats().activeWorkers === 1);
        parent.abort();
        await run;
        await clock.advance(10_000);
        expect(await metric('reconcile_timeouts_total')).toBe(0);
        // A reconcile the stop cut short is no error (Go's context.Canceled is returned to
        // the caller of Reconcile; kubets' controller drops it on shutdown).
        expect(lastReconcileError(logger)).toBeUndefined();
      });

      it('should not increment when ReconciliationTimeout is zero', async () => {
        const { ctl, start, metric } = newController(() => undefined, { reconcileTimeoutMs: 0 });
        start();
        ctl.enqueue(request);
        await eventually(() => ctl.stats().reconcileTotal.success === 1);
        expect(await metric('reconcile_timeouts_total')).toBe(0);
      });
    });

    it('should not configure a timeout if ReconciliationTimeout is zero', async () => {
      const inside = deferred<AbortSignal>();
      const release = deferred<void>();
      const { ctl, start, clock } = newController(async (_req, ctx) => {
        inside.resolve(ctx.signal);
        await release.promise;
      });
      start();
      ctl.enqueue(request);
      const signal = await inside.promise;
      await clock.advance(365 * 24 * 60 * 60 * 1000);
      expect(signal.aborted).toBe(false);
      release.resolve();
      await eventually(() => ctl.stats().reconcileTotal.success === 1);
    });
  });

  describe('Start', () => {
    it('should return an error if there is an error waiting for the informers', async () => {
      const { start, clock } = newController(() => undefined, {
        name: 'foo',
        cacheSyncTimeoutMs: 1000,
        cacheSyncs: [{ resource: 'v1/pods', hasSynced: () => false }],
      });
      const failure = rejectionOf(start());
      await clock.advance(1000);
      expect(String(await failure)).toContain('failed to wait for foo caches to sync');
    });

    it('should error when cache sync timeout occurs', async () => {
      const { start, clock } = newController(() => undefined, {
        cacheSyncTimeoutMs: 1000,
        cacheSyncs: [{ resource: 'apps/v1/deployments', hasSynced: () => false }],
      });
      const failure = rejectionOf(start());
      await clock.advance(1000);
      const err = await failure;
      expect(err).toBeInstanceOf(CacheSyncTimeoutError);
      expect(String(err)).toContain(
        'failed to wait for testcontroller caches to sync: timed out after 1s waiting for caches to sync: apps/v1/deployments',
      );
    });

    it('should not error when controller Start context is cancelled during Sources WaitForSync', async () => {
      const { ctl, clock } = newController(() => undefined, {
        cacheSyncTimeoutMs: 1000,
        cacheSyncs: [{ resource: 'v1/pods', hasSynced: () => false }],
      });
      const abort = new AbortController();
      const run = ctl.run(abort.signal);
      await clock.advance(500);
      abort.abort();
      await expect(run).resolves.toBeUndefined();
    });

    it('should not error when cache sync timeout is of sufficiently high', async () => {
      let synced = false;
      const fake = fakeReconciler();
      const { ctl, start, clock } = newController(fake.reconciler, {
        cacheSyncTimeoutMs: 10_000,
        cacheSyncs: [{ resource: 'v1/pods', hasSynced: () => synced }],
      });
      start();
      ctl.enqueue(request);
      await clock.advance(1000);
      synced = true;
      await clock.advance(100);
      await eventually(() => fake.reconciled.length === 1);
      expect(fake.reconciled).toEqual([key]);
    });

    it('should not call Reconcile until all event handlers have processed initial objects', async () => {
      const handlersSynced = [false, false];
      const fake = fakeReconciler();
      const { ctl, start, clock } = newController(fake.reconciler, {
        cacheSyncs: handlersSynced.map((_, i) => ({
          resource: `v1/source${i}`,
          hasSynced: () => handlersSynced[i] === true,
        })),
      });
      start();
      ctl.enqueue(request);
      handlersSynced[0] = true;
      await clock.advance(100);
      expect(fake.reconciled).toEqual([]);
      handlersSynced[1] = true;
      await clock.advance(100);
      await eventually(() => fake.reconciled.length === 1);
    });

    it('should return an error if it gets started more than once', async () => {
      const { ctl, start } = newController(() => undefined);
      start();
      expect(String(await rejectionOf(ctl.run(new AbortController().signal)))).toContain(
        'controller testcontroller was already started',
      );
    });
  });

  describe('Processing queue items from a Controller', () => {
    it('should call Reconciler if an item is enqueued', async () => {
      const fake = fakeReconciler();
      const { ctl, start } = newController(fake.reconciler);
      start();
      ctl.enqueue(request);
      fake.addResult(() => undefined);
      await eventually(() => ctl.stats().reconcileTotal.success === 1);
      expect(fake.reconciled).toEqual([key]);
      expect(ctl.queue.len()).toBe(0);
      expect(ctl.queue.numRequeues(key)).toBe(0);
    });

    it('should requeue a Request if there is an error and continue processing items', async () => {
      const fake = fakeReconciler();
      const { ctl, start, counts, clock } = newController(fake.reconciler);
      start();
      fake.addResult(() => {
        throw new Error('expected error: reconcile');
      });
      fake.addResult(() => undefined);
      ctl.enqueue(request);
      await eventually(() => counts.addRateLimited === 1);
      await clock.advance(5);
      await eventually(() => ctl.stats().reconcileTotal.success === 1);
      expect(fake.reconciled).toEqual([key, key]);
      expect(ctl.queue.len()).toBe(0);
      expect(ctl.queue.numRequeues(key)).toBe(0);
    });

    it('should not requeue a Request if there is a terminal error', async () => {
      const fake = fakeReconciler();
      const { ctl, start, counts } = newController(fake.reconciler);
      start();
      fake.addResult(() => {
        throw new TerminalError('expected error: reconcile');
      });
      ctl.enqueue(request);
      await eventually(() => ctl.stats().terminalReconcileErrors === 1);
      expect(fake.reconciled).toEqual([key]);
      expect(counts.addRateLimited).toBe(0);
      expect(ctl.queue.len() + ctl.queue.waitingLen()).toBe(0);
    });

    it("should not reset backoff until there's a non-error result", async () => {
      const fake = fakeReconciler();
      const { ctl, start, counts, clock } = newController(fake.reconciler);
      start();
      fake.addResult(() => {
        throw new Error("something's wrong");
      });
      fake.addResult(() => {
        throw new Error("another thing's wrong");
      });
      fake.addResult(() => undefined);
      ctl.enqueue(request);
      await eventually(() => counts.addRateLimited === 1);
      expect(ctl.queue.numRequeues(key)).toBe(1);
      await clock.advance(5);
      await eventually(() => counts.addRateLimited === 2);
      expect(ctl.queue.numRequeues(key)).toBe(2);
      await clock.advance(10);
      await eventually(() => ctl.stats().reconcileTotal.success === 1);
      expect(counts).toEqual({ addRateLimited: 2, addAfter: 0 });
      expect(ctl.queue.len()).toBe(0);
      expect(ctl.queue.numRequeues(key)).toBe(0);
    });

    it('should requeue a Request with rate limiting if the Result sets Requeue:true and continue processing items', async () => {
      const fake = fakeReconciler();
      const { ctl, start, counts, clock } = newController(fake.reconciler);
      start();
      fake.addResult(() => ({ requeue: true }));
      fake.addResult(() => ({ requeue: false }));
      ctl.enqueue(request);
      await eventually(() => counts.addRateLimited === 1);
      await clock.advance(5);
      await eventually(() => ctl.stats().reconcileTotal.success === 1);
      expect(counts).toEqual({ addRateLimited: 1, addAfter: 0 });
      expect(ctl.queue.len()).toBe(0);
      expect(ctl.queue.numRequeues(key)).toBe(0);
    });

    it('should requeue a Request after a duration (but not rate-limited) if the Result sets RequeueAfter (regardless of Requeue)', async () => {
      const fake = fakeReconciler();
      const { ctl, start, counts, clock } = newController(fake.reconciler);
      start();
      fake.addResult(() => ({ requeueAfterMs: 100, requeue: true }));
      fake.addResult(() => ({ requeueAfterMs: 100 }));
      ctl.enqueue(request);
      await eventually(() => counts.addAfter === 1);
      expect(counts.addRateLimited).toBe(0);
      await clock.advance(100);
      await eventually(() => counts.addAfter === 2);
      expect(counts.addRateLimited).toBe(0);
      expect(ctl.queue.len()).toBe(0);
      expect(ctl.queue.numRequeues(key)).toBe(0);
    });

    it('should perform error behavior if error is not nil, regardless of RequeueAfter', async () => {
      // A TypeScript reconciler either returns a result or throws; the thrown error is the
      // Go case's non-nil error, and its result cannot exist.
      const fake = fakeReconciler();
      const { ctl, start, counts, clock } = newController(fake.reconciler);
      start();
      fake.addResult(() => {
        throw new Error('expected error: reconcile');
      });
      fake.addResult(() => ({ requeueAfterMs: 100 }));
      ctl.enqueue(request);
      await eventually(() => counts.addRateLimited === 1);
      expect(counts.addAfter).toBe(0);
      await clock.advance(5);
      await eventually(() => counts.addAfter === 1);
      expect(counts).toEqual({ addRateLimited: 1, addAfter: 1 });
      expect(ctl.queue.len()).toBe(0);
      expect(ctl.queue.numRequeues(key)).toBe(0);
    });

    describe('prometheus metric reconcile_total', () => {
      it.each([
        { name: 'should get updated on successful reconciliation', result: 'success' },
        { name: 'should get updated on reconcile errors', result: 'error' },
        { name: 'should get updated when reconcile returns with retry enabled', result: 'requeue' },
        {
          name: 'should get updated when reconcile returns with retryAfter enabled',
          result: 'requeue_after',
        },
      ])('$name', async ({ result }) => {
        const answers: Record<string, () => unknown> = {
          success: () => undefined,
          error: () => {
            throw new Error('expected error: reconcile');
          },
          requeue: () => ({ requeue: true }),
          requeue_after: () => ({ requeueAfterMs: 5 * 60 * 60 * 1000 }),
        };
        const fake = fakeReconciler();
        const { ctl, start, metric } = newController(fake.reconciler);
        start();
        await eventually(async () => (await metric('reconcile_total', { result })) === 0);
        fake.addResult(answers[result] as () => unknown);
        ctl.enqueue(request);
        await eventually(async () => (await metric('reconcile_total', { result })) === 1);
      });
    });

    describe('should update prometheus metrics', () => {
      it('should requeue a Request if there is an error and continue processing items', async () => {
        const fake = fakeReconciler();
        const { ctl, start, metric, clock } = newController(fake.reconciler);
        start();
        await eventually(async () => (await metric('reconcile_errors_total')) === 0);
        fake.addResult(() => {
          throw new Error('expected error: reconcile');
        });
        fake.addResult(() => undefined);
        ctl.enqueue(request);
        await eventually(async () => (await metric('reconcile_errors_total')) === 1);
        await clock.advance(5);
        await eventually(() => ctl.stats().reconcileTotal.success === 1);
        expect(ctl.queue.len()).toBe(0);
        expect(ctl.queue.numRequeues(key)).toBe(0);
      });

      it('should add a reconcile time to the reconcile time histogram', async () => {
        const fake = fakeReconciler();
        const { ctl, start, metric } = newController(fake.reconciler);
        start();
        expect(await metric('reconcile_time_seconds')).toBe(0);
        ctl.enqueue(request);
        await eventually(() => ctl.stats().reconcileTotal.success === 1);
        expect(ctl.queue.len()).toBe(0);
        expect(ctl.queue.numRequeues(key)).toBe(0);
        expect(await metric('reconcile_time_seconds')).toBe(1);
      });
    });
  });

  // The cases of "Processing queue items from a Controller" that run on a priority queue
  // (Go's fakePriorityQueue records each AddWithOpts).
  describe('Processing queue items from a Controller, on the priority queue', () => {
    function newRecordingController(fake: ReturnType<typeof fakeReconciler>) {
      const made = newController(fake.reconciler, { usePriorityQueue: true });
      const queue = made.ctl.queue;
      if (!(queue instanceof PriorityQueue)) throw new Error('expected the priority queue');
      const added: { options: AddOptions; items: string[] }[] = [];
      const addWithOpts = queue.addWithOpts.bind(queue);
      queue.addWithOpts = (options, ...items) => {
        added.push({ options: { ...options }, items });
        addWithOpts(options, ...items);
      };
      return { ...made, queue, added };
    }

    it.each([
      {
        name: 'should retain the priority when the reconciler requests a requeue',
        result: () => ({ requeue: true }),
        options: { rateLimited: true, priority: 10 },
      },
      {
        name: 'should use the priority from Result when the reconciler requests a requeue',
        result: () => ({ requeue: true, priority: 99 }),
        options: { rateLimited: true, priority: 99 },
      },
      {
        name: 'should retain the priority with RequeueAfter',
        result: () => ({ requeueAfterMs: 100 }),
        options: { after: 100, priority: 10 },
      },
      {
        name: 'should use the priority from Result with RequeueAfter',
        result: () => ({ requeueAfterMs: 100, priority: 99 }),
        options: { after: 100, priority: 99 },
      },
      {
        name: 'should retain the priority when there was an error',
        result: () => {
          throw new Error('oups, I did it again');
        },
        options: { rateLimited: true, priority: 10 },
      },
    ])('$name', async ({ result, options }) => {
      const fake = fakeReconciler();
      const { start, queue, added } = newRecordingController(fake);
      start();
      queue.addWithOpts({ priority: 10 }, key);
      added.length = 0; // the test's own add
      fake.addResult(result);
      await eventually(() => added.length === 1);
      expect(fake.reconciled).toEqual([key]);
      expect(added).toEqual([{ options, items: [key] }]);
    });
  });
});

describe('ReconcileIDFromContext function', () => {
  it('should return the correct reconcileID from context', async () => {
    const seen: string[] = [];
    const fake = fakeReconciler();
    const { ctl, start, logger } = newController((req, ctx) => {
      seen.push(ctx.reconcileID ?? '');
      ctx.logger.info('inside');
      return fake.reconciler(req, ctx);
    });
    start();
    ctl.enqueue(request);
    await eventually(() => ctl.stats().reconcileTotal.success === 1);
    ctl.enqueue(request);
    await eventually(() => ctl.stats().reconcileTotal.success === 2);
    expect(seen).toHaveLength(2);
    for (const id of seen) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
    expect(seen[0]).not.toBe(seen[1]);
    // The reconcile's log lines carry it, as controller-runtime's logger values do.
    const ids = logger.lines
      .filter((l) => l.message === 'inside')
      .map((l) => l.fields?.reconcileID);
    expect(ids).toEqual(seen);
  });
});
