import { eventually } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { useSharedApiServer } from '../test/server.js';
import { defaultRetry, Manager, type Runnable, retryOnConflict } from './index.js';

const shared = useSharedApiServer();

// Short leases so a takeover happens within a second or two; the test waits on what the
// replicas do, never on time.
const election = {
  namespace: 'default',
  name: 'ctl-lease',
  leaseDurationMs: 2_000,
  renewDeadlineMs: 1_500,
  retryPeriodMs: 200,
  releaseOnCancel: true,
};

/** A replica whose one runnable records when it runs. */
function replica(identity: string, log: string[]) {
  const mgr = new Manager(
    { host: shared.server.host, qps: -1 },
    { leaderElection: { ...election, identity } },
  );
  const work: Runnable = {
    name: 'work',
    run: (signal) =>
      new Promise<void>((resolve) => {
        log.push(`${identity} runs`);
        signal.addEventListener('abort', () => {
          log.push(`${identity} stops`);
          resolve();
        });
      }),
  };
  mgr.add(work);
  const abort = new AbortController();
  return { mgr, abort, done: mgr.start(abort.signal) };
}

describe('Manager with leader election', () => {
  it('runs the controllers of the Lease holder only; another replica takes over when it stops', async () => {
    const log: string[] = [];
    const a = replica('a', log);
    await eventually(() => log.includes('a runs'));
    expect(a.mgr.isLeader()).toBe(true);
    const b = replica('b', log);
    const lease = () => shared.clientset.coordinationV1().leases('default').get('ctl-lease');
    await eventually(async () => expect((await lease()).spec?.holderIdentity).toBe('a'));
    expect(b.mgr.isLeader()).toBe(false);

    a.abort.abort();
    await a.done;
    await eventually(() => log.includes('b runs'), { what: 'b to take over' });
    expect(log).toEqual(['a runs', 'a stops', 'b runs']);
    expect(b.mgr.isLeader()).toBe(true);
    b.abort.abort();
    await b.done;
    expect(b.mgr.isLeader()).toBe(false);
  });

  it('stops and rejects when the Lease is lost', async () => {
    const log: string[] = [];
    const c = replica('c', log);
    await eventually(() => log.includes('c runs'));
    const leases = shared.clientset.coordinationV1().leases('default');
    const taken = async () => {
      const lease = await leases.get('ctl-lease');
      await leases.update({
        ...lease,
        spec: { ...lease.spec, holderIdentity: 'someone-else', leaseDurationSeconds: 60 },
      });
    };
    // The leader renews meanwhile: a conflict is retried on a fresh read.
    await retryOnConflict(defaultRetry, taken);
    await expect(c.done).rejects.toThrow(
      'leader election lost: c no longer holds lease default/ctl-lease',
    );
    expect(log).toEqual(['c runs', 'c stops']);
  });
});
