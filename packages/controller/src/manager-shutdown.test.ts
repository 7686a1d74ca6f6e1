import { FakeClock } from '@kubets/apimachinery/testing';
import { eventually } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { useSharedApiServer } from '../test/server.js';
import { Manager } from './index.js';

const shared = useSharedApiServer();

/** A manager whose one runnable keeps "reconciling" after the abort until released. */
function draining(gracefulShutdownTimeoutMs?: number) {
  const clock = new FakeClock(0);
  const mgr = new Manager(
    { host: shared.server.host, qps: -1 },
    {
      namespace: 'shutdown',
      clock,
      ...(gracefulShutdownTimeoutMs === undefined ? {} : { gracefulShutdownTimeoutMs }),
    },
  );
  let release = (): void => {};
  let running = false;
  mgr.add({
    name: 'slow',
    run: () => {
      running = true;
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    },
  });
  const abort = new AbortController();
  const done = mgr.start(abort.signal);
  return { clock, abort, done, release: () => release(), running: () => running };
}

describe('Manager graceful shutdown', () => {
  it('rejects when the runnables do not finish within the default 30 s', async () => {
    const m = draining();
    await eventually(m.running);
    m.abort.abort();
    await eventually(() => m.clock.nextDue() === 30_000, { what: 'the drain deadline' });
    m.clock.step(30_000);
    await expect(m.done).rejects.toThrow(
      'failed waiting for all runnables to end within grace period of 30s: context deadline exceeded',
    );
    m.release();
  });

  it('resolves when the runnables finish before the deadline', async () => {
    const m = draining(5_000);
    await eventually(m.running);
    m.abort.abort();
    await eventually(() => m.clock.nextDue() === 5_000, { what: 'the drain deadline' });
    m.release();
    await expect(m.done).resolves.toBeUndefined();
  });

  it('does not wait at all with a timeout of 0', async () => {
    const m = draining(0);
    await eventually(m.running);
    m.abort.abort();
    await expect(m.done).resolves.toBeUndefined();
    m.release();
  });

  it('refuses a timeout that is not a number', () => {
    expect(
      () => new Manager({ host: 'http://127.0.0.1:1' }, { gracefulShutdownTimeoutMs: Number.NaN }),
    ).toThrow('manager gracefulShutdownTimeoutMs must be a number of milliseconds, got NaN');
  });
});
