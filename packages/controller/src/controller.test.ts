import { FakeClock } from '@kubets/apimachinery/testing';
import { deferred, eventually, MemoryLogger, rejectionOf, thrownBy } from '@kubets/test-utils';
import { ItemExponentialFailureRateLimiter } from '@kubets/workqueue';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Controller,
  type ControllerOptions,
  isTerminalError,
  type ReconcileContext,
  type ReconcileRequest,
  type Reconciler,
  TerminalError,
} from './index.js';
import { listerOf } from './testing.js';

type Obj = { metadata?: { name?: string; namespace?: string } };
const web: ReconcileRequest = { namespace: 'default', name: 'web' };

const running: { abort: AbortController; done: Promise<void> }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    r.abort.abort();
    await r.done;
  }
});

/** A controller over a fake clock, started; `calls` records each reconcile's request key. */
function start(reconciler: Reconciler<Obj>, options: Partial<ControllerOptions<Obj>> = {}) {
  const clock = new FakeClock();
  const logger = new MemoryLogger();
  const ctl = new Controller<Obj>({
    name: 'test',
    reconciler,
    lister: listerOf<Obj>([{ metadata: { name: 'web', namespace: 'default' } }]),
    clock,
    logger,
    // Fixed delays, so a test can tell a rate-limited requeue by its wait.
    rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000),
    ...options,
  });
  const abort = new AbortController();
  const done = ctl.run(abort.signal);
  running.push({ abort, done });
  return { ctl, clock, logger, abort, done };
}

/** A reconciler answering each call from `answers` in turn (the last one repeats). */
function answering(calls: string[], ...answers: (() => unknown)[]): Reconciler<Obj> {
  return (request) => {
    calls.push(`${request.namespace}/${request.name}`);
    const answer = answers[Math.min(calls.length, answers.length) - 1];
    return answer?.() as undefined;
  };
}

describe('Controller: what a reconcile returns', () => {
  it('nothing: done, the failures are forgotten', async () => {
    const calls: string[] = [];
    const { ctl } = start(answering(calls, () => undefined));
    ctl.queue.rateLimiter.when('default/web'); // an earlier failure
    ctl.enqueue(web);
    await eventually(() => ctl.stats().reconcileTotal.success === 1);
    expect(calls).toEqual(['default/web']);
    expect(ctl.queue.numRequeues('default/web')).toBe(0);
    expect(ctl.queue.len() + ctl.queue.waitingLen()).toBe(0);
  });

  it.each([{ name: 'requeueAfterMs', result: { requeueAfterMs: 30_000 } }])(
    '{ $name }: forgotten, then reconciled again after exactly that wait',
    async ({ result }) => {
      const calls: string[] = [];
      const { ctl, clock } = start(
        answering(
          calls,
          () => result,
          () => undefined,
        ),
      );
      ctl.queue.rateLimiter.when('default/web');
      ctl.enqueue(web);
      await eventually(() => ctl.stats().reconcileTotal.requeue_after === 1);
      expect(ctl.queue.numRequeues('default/web')).toBe(0);
      clock.step(29_999);
      expect(ctl.queue.len()).toBe(0);
      clock.step(1);
      await eventually(() => calls.length === 2);
      expect(ctl.stats().reconcileTotal).toEqual({
        success: 1,
        error: 0,
        requeue: 0,
        requeue_after: 1,
      });
    },
  );

  it('{ requeue: true }: rate-limited, without an error', async () => {
    const calls: string[] = [];
    const { ctl, clock, logger } = start(
      answering(
        calls,
        () => ({ requeue: true }),
        () => ({ requeue: true }),
        () => undefined,
      ),
    );
    ctl.enqueue(web);
    await eventually(() => ctl.queue.waitingLen() === 1);
    clock.step(5);
    await eventually(() => ctl.stats().reconcileTotal.requeue === 2);
    clock.step(9);
    expect(calls).toHaveLength(2); // the second wait is 10 ms
    clock.step(1);
    await eventually(() => ctl.stats().reconcileTotal.success === 1);
    expect(calls).toHaveLength(3);
    expect(ctl.stats().reconcileErrors).toBe(0);
    expect(logger.errors()).toEqual([]);
  });

  it('a throw: rate-limited requeue, logged and counted', async () => {
    const calls: string[] = [];
    const { ctl, clock, logger } = start(
      answering(
        calls,
        () => {
          throw new Error('boom');
        },
        () => undefined,
      ),
    );
    ctl.enqueue(web);
    await eventually(() => ctl.stats().reconcileErrors === 1);
    expect(ctl.queue.numRequeues('default/web')).toBe(1);
    const line = logger.lines.find((l) => l.level === 'error');
    expect(line?.message).toBe('Reconciler error');
    expect(line?.fields).toMatchObject({ controller: 'test', namespace: 'default', name: 'web' });
    expect(String(line?.fields?.error)).toContain('boom');
    clock.step(5);
    await eventually(() => ctl.stats().reconcileTotal.success === 1);
    expect(ctl.stats().reconcileTotal.error).toBe(1);
    expect(ctl.queue.numRequeues('default/web')).toBe(0);
  });

  it('a TerminalError: logged and counted, not retried', async () => {
    const calls: string[] = [];
    const { ctl, logger } = start(
      answering(calls, () => {
        throw new TerminalError('spec.port is out of range');
      }),
    );
    ctl.enqueue(web);
    await eventually(() => ctl.stats().terminalReconcileErrors === 1);
    expect(ctl.queue.waitingLen() + ctl.queue.len()).toBe(0);
    expect(ctl.queue.numRequeues('default/web')).toBe(0);
    expect(logger.errors()).toEqual(['Reconciler error (terminal: not retried)']);
  });

  it.each([
    { returned: 'done', value: 'done' },
    { returned: 'a negative requeueAfterMs', value: { requeueAfterMs: -1 } },
    { returned: 'a requeueAfter in text', value: { requeueAfter: '5s' } },
    { returned: 'two different waits', value: { requeueAfterMs: 1_000, requeueAfter: 2_000 } },
    { returned: 'a requeue that is not a boolean', value: { requeue: 'yes' } },
    { returned: 'the former requeueAfter', value: { requeueAfter: 30_000 } },
  ])('$returned is reported as an error and retried', async ({ value }) => {
    const { ctl, logger } = start(() => value as unknown as undefined);
    ctl.enqueue(web);
    await eventually(() => ctl.stats().reconcileErrors === 1);
    expect(String(logger.lines.find((l) => l.level === 'error')?.fields?.error)).toContain(
      'expected nothing, { requeue: true } or { requeueAfterMs: <milliseconds ≥ 0> }',
    );
    expect(ctl.queue.numRequeues('default/web')).toBe(1);
  });

  it('names the new field when a reconciler returns the former requeueAfter', async () => {
    const { ctl, logger } = start(() => ({ requeueAfter: 30_000 }) as unknown as undefined);
    ctl.enqueue(web);
    await eventually(() => ctl.stats().reconcileErrors === 1);
    expect(String(logger.lines.find((l) => l.level === 'error')?.fields?.error)).toContain(
      '(requeueAfter is now requeueAfterMs)',
    );
  });
});

function loopingError(): Error {
  const a = new Error('a');
  const b = new Error('b', { cause: a });
  (a as { cause?: unknown }).cause = b;
  return a;
}

describe('isTerminalError', () => {
  it.each([
    { name: 'a TerminalError', err: new TerminalError('x'), terminal: true },
    {
      name: "another copy's (by name)",
      err: Object.assign(new Error('x'), { name: 'TerminalError' }),
      terminal: true,
    },
    { name: 'an Error', err: new Error('x'), terminal: false },
    { name: 'a string', err: 'TerminalError', terminal: false },
    {
      name: 'one wrapped as a cause',
      err: new Error('patching status', { cause: new TerminalError('x') }),
      terminal: true,
    },
    {
      name: 'one wrapped twice',
      err: new Error('a', { cause: new Error('b', { cause: new TerminalError('x') }) }),
      terminal: true,
    },
    {
      name: 'one of an AggregateError',
      err: new AggregateError([new Error('a'), new TerminalError('x')], 'two failed'),
      terminal: true,
    },
    {
      name: 'one in the cause of an AggregateError member',
      err: new AggregateError([new Error('a', { cause: new TerminalError('x') })]),
      terminal: true,
    },
    {
      name: 'an AggregateError of plain errors',
      err: new AggregateError([new Error('a'), new Error('b')]),
      terminal: false,
    },
    {
      name: 'a cause that is a string',
      err: new Error('a', { cause: 'TerminalError' }),
      terminal: false,
    },
    { name: 'a cause chain that loops', err: loopingError(), terminal: false },
  ])('$name → $terminal', ({ err, terminal }) => {
    expect(isTerminalError(err)).toBe(terminal);
  });
});

describe('Controller: workers', () => {
  it('reconciles different objects at once, never one object twice at once', async () => {
    const gates = new Map<string, ReturnType<typeof deferred>>();
    const active = new Set<string>();
    let overlap = false;
    let maxActive = 0;
    const { ctl } = start(
      async (request) => {
        if (active.has(request.name)) overlap = true;
        active.add(request.name);
        maxActive = Math.max(maxActive, active.size);
        const gate = deferred();
        gates.set(request.name, gate);
        await gate.promise;
        active.delete(request.name);
      },
      { maxConcurrentReconciles: 2 },
    );
    ctl.enqueue({ namespace: 'default', name: 'a' });
    ctl.enqueue({ namespace: 'default', name: 'b' });
    await eventually(() => active.size === 2);
    ctl.enqueue({ namespace: 'default', name: 'a' }); // while a is being reconciled
    ctl.enqueue({ namespace: 'default', name: 'c' });
    expect(ctl.stats().activeWorkers).toBe(2);
    gates.get('b')?.resolve(undefined);
    await eventually(() => active.has('c'));
    expect(active.has('a')).toBe(true);
    gates.get('a')?.resolve(undefined);
    await eventually(() => ctl.stats().reconcileTotal.success === 2 && active.has('a'));
    gates.get('a')?.resolve(undefined);
    gates.get('c')?.resolve(undefined);
    await eventually(() => ctl.stats().reconcileTotal.success === 4);
    expect(overlap).toBe(false);
    expect(maxActive).toBe(2);
  });

  it('gives the reconciler the cached object, a signal and a logger', async () => {
    let seen: ReconcileContext<Obj> | undefined;
    const { ctl } = start((_request, ctx) => {
      seen = ctx;
    });
    ctl.enqueue(web);
    await eventually(() => seen !== undefined);
    expect(seen?.cached()).toEqual({ metadata: { name: 'web', namespace: 'default' } });
    expect(seen?.lister.list()).toHaveLength(1);
    expect(seen?.controller).toBe('test');
    expect(seen?.signal.aborted).toBe(false);
  });

  it('on shutdown waits for reconciles in flight, which see their signal abort, and starts no new one', async () => {
    const gate = deferred();
    let signal: AbortSignal | undefined;
    const calls: string[] = [];
    const { ctl, abort, done } = start(async (request, ctx) => {
      calls.push(request.name);
      signal = ctx.signal;
      await gate.promise;
    });
    ctl.enqueue(web);
    await eventually(() => signal !== undefined);
    ctl.enqueue({ namespace: 'default', name: 'queued' });
    let stopped = false;
    void done.then(() => {
      stopped = true;
    });
    abort.abort();
    expect(signal?.aborted).toBe(true);
    await eventually(() => ctl.queue.shuttingDown());
    expect(stopped).toBe(false);
    gate.resolve();
    await done;
    expect(calls).toEqual(['web']);
    expect(ctl.stats().activeWorkers).toBe(0);
  });

  it.each([
    { thrown: "the stop's reason", error: (reason: unknown) => reason },
    {
      thrown: 'an error wrapping it',
      error: (reason: unknown) => new Error('get failed', { cause: reason }),
    },
    {
      thrown: 'an AbortError',
      error: () => new DOMException('This operation was aborted', 'AbortError'),
    },
  ])(
    'a reconcile the stop cuts short, throwing $thrown, is no reconcile error',
    async ({ error }) => {
      const started = deferred();
      const { ctl, abort, done, logger } = start(async (_request, ctx) => {
        started.resolve();
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        throw error(ctx.signal.reason);
      });
      ctl.enqueue(web);
      await started.promise;
      abort.abort(new Error('stopping'));
      await done;
      expect(ctl.stats().reconcileErrors).toBe(0);
      expect(ctl.stats().reconcileTotal).toEqual({
        success: 0,
        error: 0,
        requeue: 0,
        requeue_after: 0,
      });
      expect(logger.errors()).toEqual([]);
      expect(logger.lines.map((l) => l.message)).toContain(
        'Reconcile cut short by the controller stopping',
      );
    },
  );

  it('an error of its own thrown while stopping is still a reconcile error', async () => {
    const started = deferred();
    const { ctl, abort, done, logger } = start(async (_request, ctx) => {
      started.resolve();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      throw new Error('the registry is unreachable');
    });
    ctl.enqueue(web);
    await started.promise;
    abort.abort(new Error('stopping'));
    await done;
    expect(ctl.stats().reconcileErrors).toBe(1);
    expect(logger.errors()).toEqual(['Reconciler error']);
  });

  it('an AbortError of its own before any stop is a reconcile error', async () => {
    const { ctl, logger } = start(() => {
      throw new DOMException('a timeout of its own', 'AbortError');
    });
    ctl.enqueue(web);
    await eventually(() => ctl.stats().reconcileErrors === 1);
    expect(logger.errors()).toEqual(['Reconciler error']);
  });

  it('reconciles nothing until its caches have synced', async () => {
    let synced = false;
    const calls: string[] = [];
    const { ctl, clock } = start(
      answering(calls, () => undefined),
      { cacheSyncs: [() => synced] },
    );
    ctl.enqueue(web);
    await eventually(() => ctl.queue.len() === 1);
    expect(calls).toEqual([]);
    synced = true;
    // The caches are checked every 100 ms of the controller's clock.
    await clock.advance(100);
    await eventually(() => calls.length === 1, { what: 'the reconcile after the sync' });
  });

  it('runs once', async () => {
    const { ctl } = start(() => undefined);
    expect(String(await rejectionOf(ctl.run(new AbortController().signal)))).toContain(
      'controller test was already started',
    );
  });
});

describe('Controller: bad settings', () => {
  const lister = listerOf<Obj>();
  it.each([
    {
      name: 'no name',
      options: { name: '', reconciler: () => undefined },
      message: 'controller name must be a non-empty string',
    },
    {
      name: 'zero workers',
      options: { name: 'c', reconciler: () => undefined, maxConcurrentReconciles: 0 },
      message: 'controller c: maxConcurrentReconciles must be a positive integer, got 0',
    },
    {
      name: 'fractional workers',
      options: { name: 'c', reconciler: () => undefined, maxConcurrentReconciles: 1.5 },
      message: 'got 1.5',
    },
    {
      name: 'no reconciler',
      options: { name: 'c', reconciler: {} as Reconciler<Obj> },
      message:
        'controller c: the reconciler must be a function or an object with a reconcile method',
    },
  ])('$name', ({ options, message }) => {
    expect(String(thrownBy(() => new Controller<Obj>({ lister, ...options })))).toContain(message);
  });

  it('accepts an object with a reconcile method', async () => {
    const calls: string[] = [];
    const { ctl } = start({
      reconcile: answering(calls, () => undefined) as (r: ReconcileRequest) => undefined,
    });
    ctl.enqueue(web);
    await eventually(() => calls.length === 1);
  });
});

describe('Controller: the priority of a requeued request', () => {
  // 'a' is handed out at low priority and asks to be requeued; while a gate reconcile holds
  // the one worker, 'a' becomes ready again and 'b' is queued at -50. The order the worker
  // takes them in afterwards tells the priority 'a' went back at.
  async function order(firstResult: object): Promise<string[]> {
    const calls: string[] = [];
    const gate = deferred<void>();
    let gateEntered = false;
    const { ctl, clock } = start((request) => {
      calls.push(request.name);
      if (request.name === 'gate') {
        gateEntered = true;
        return gate.promise;
      }
      return request.name === 'a' && calls.filter((c) => c === 'a').length === 1
        ? firstResult
        : undefined;
    });
    ctl.enqueue({ namespace: 'default', name: 'a' }, -100);
    await eventually(() => calls.length === 1);
    ctl.enqueue({ namespace: 'default', name: 'gate' });
    await eventually(() => gateEntered);
    clock.step(1000); // 'a' is ready again (after its 5 ms backoff or 1 s wait)
    ctl.enqueue({ namespace: 'default', name: 'b' }, -50);
    gate.resolve();
    await eventually(() => calls.length === 4);
    return calls;
  }

  it('a rate-limited requeue goes back at the priority it was handed out at', async () => {
    expect(await order({ requeue: true })).toEqual(['a', 'gate', 'b', 'a']);
  });

  it('so does a requeue after a wait', async () => {
    expect(await order({ requeueAfterMs: 1000 })).toEqual(['a', 'gate', 'b', 'a']);
  });

  it('the result can name another priority', async () => {
    expect(await order({ requeue: true, priority: 10 })).toEqual(['a', 'gate', 'a', 'b']);
  });

  it('a priority that is not an integer is refused', async () => {
    const { ctl, logger } = start(() => ({ requeue: true, priority: 0.5 }));
    ctl.enqueue({ namespace: 'default', name: 'web' });
    await eventually(() => ctl.stats().reconcileTotal.error === 1);
    expect(String(logger.lines.find((l) => l.level === 'error')?.fields?.error)).toContain(
      'with an optional integer priority',
    );
  });
});

describe('Controller: a result that is no result', () => {
  it('a cyclic or huge value is named briefly, and the request retried', async () => {
    const cyclic: Record<string, unknown> = { requeue: 'yes' };
    cyclic.self = cyclic;
    const huge = { requeue: 'x'.repeat(1_000_000) };
    for (const value of [cyclic, huge]) {
      const { ctl, logger } = start(() => value as unknown as undefined);
      ctl.enqueue(web);
      await eventually(() => ctl.stats().reconcileErrors === 1);
      const error = String(logger.lines.find((l) => l.level === 'error')?.fields?.error);
      expect(error).toContain('expected nothing, { requeue: true }');
      expect(error.length).toBeLessThan(1000);
      expect(ctl.queue.numRequeues('default/web')).toBe(1);
    }
  });
});
