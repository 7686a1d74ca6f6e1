import { StatusError } from '@kubets/apimachinery';
import { FakeClock } from '@kubets/apimachinery/testing';
import { eventually, rejectionOf } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { useSharedApiServer } from '../test/server.js';
import { CacheSyncTimeoutError, Controller, controller, Manager } from './index.js';
import { listerOf } from './testing.js';

const shared = useSharedApiServer();

const notFound = new StatusError({
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  message: 'the server could not find the requested resource',
  reason: 'NotFound',
  code: 404,
});

describe('cache sync timeout', () => {
  it('a controller whose cache never syncs fails after 2 minutes, naming the resource and the last list error', async () => {
    const clock = new FakeClock();
    const ctl = new Controller({
      name: 'widgets',
      reconciler: () => undefined,
      lister: listerOf([]),
      clock,
      cacheSyncs: [
        { resource: 'v1/configmaps', hasSynced: () => true },
        {
          resource: 'example.com/v1/widgets',
          hasSynced: () => false,
          lastListError: () => notFound,
        },
      ],
    });
    let settled = false;
    const run = ctl.run(new AbortController().signal).finally(() => {
      settled = true;
    });
    const failure = rejectionOf(run);
    await clock.advance(2 * 60 * 1000 - 1);
    expect(settled).toBe(false);
    await clock.advance(1);
    const err = await failure;
    expect(err).toBeInstanceOf(CacheSyncTimeoutError);
    expect((err as Error).message).toBe(
      'failed to wait for widgets caches to sync: timed out after 2m0s waiting for caches to sync: example.com/v1/widgets (last list error: the server could not find the requested resource)',
    );
    expect((err as CacheSyncTimeoutError).resources).toEqual(['example.com/v1/widgets']);
    expect((err as Error).cause).toBe(notFound);
  });

  it('a controller whose caches sync before the timeout runs, and the abort during the wait is no error', async () => {
    const clock = new FakeClock();
    let synced = false;
    const calls: string[] = [];
    const ctl = new Controller({
      name: 'late',
      reconciler: (request) => {
        calls.push(request.name);
      },
      lister: listerOf([]),
      clock,
      cacheSyncTimeoutMs: 10_000,
      cacheSyncs: [{ resource: 'v1/pods', hasSynced: () => synced }],
    });
    const abort = new AbortController();
    const run = ctl.run(abort.signal);
    ctl.enqueue({ namespace: 'default', name: 'a' });
    await clock.advance(9_000);
    synced = true;
    await clock.advance(100);
    await eventually(() => calls.length === 1);
    abort.abort();
    await run;

    const waiting = new Controller({
      name: 'waiting',
      reconciler: () => undefined,
      lister: listerOf([]),
      clock,
      cacheSyncs: [{ resource: 'v1/pods', hasSynced: () => false }],
    });
    const stop = new AbortController();
    const stopped = waiting.run(stop.signal);
    await clock.advance(1_000);
    stop.abort();
    await expect(stopped).resolves.toBeUndefined();
  });

  it('rejects a cacheSyncTimeoutMs that is not a number of milliseconds', () => {
    expect(
      () =>
        new Controller({
          name: 'bad',
          reconciler: () => undefined,
          lister: listerOf([]),
          cacheSyncTimeoutMs: -1,
        }),
    ).toThrow(
      'controller bad: cacheSyncTimeoutMs must be a finite number of milliseconds ≥ 0, got -1',
    );
  });

  it('a manager for a resource the server does not serve: /readyz names it, start fails with it after the timeout', async () => {
    const clock = new FakeClock();
    const mgr = new Manager(
      { host: shared.server.host, qps: -1 },
      { clock, healthProbeBindAddress: '127.0.0.1:0', cacheSyncTimeoutMs: 30_000 },
    );
    controller(mgr)
      .for('example.com/v1/widgets')
      .complete(() => undefined);
    const run = mgr.start(new AbortController().signal);
    const failure = rejectionOf(run);
    await eventually(() => mgr.healthProbeAddress() !== undefined);
    const { host, port } = mgr.healthProbeAddress() ?? { host: '', port: 0 };
    const probe = async (path: string) => {
      const res = await fetch(`http://${host}:${port}${path}`);
      return { status: res.status, body: await res.text() };
    };
    // Once the first list has failed, the check says what never synced and why.
    await eventually(async () =>
      expect(await probe('/readyz/informers-synced')).toEqual({
        status: 500,
        body: 'internal server error: informers not synced: example.com/v1/widgets (last list error: the server could not find the requested resource (get widgets.example.com))\n',
      }),
    );
    expect(await probe('/readyz')).toEqual({
      status: 500,
      body: '[-]informers-synced failed: reason withheld\nhealthz check failed\n',
    });
    clock.step(30_000);
    const err = await failure;
    expect(err).toBeInstanceOf(CacheSyncTimeoutError);
    expect((err as Error).message).toBe(
      'failed to wait for caches to sync: timed out after 30s: example.com/v1/widgets (last list error: the server could not find the requested resource (get widgets.example.com))',
    );
    expect(mgr.healthProbeAddress()).toBeUndefined();
  });
});
