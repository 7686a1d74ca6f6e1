import { eventually } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { idleRunnable } from '../test/runnables.js';
import { useSharedApiServer } from '../test/server.js';
import { Manager } from './index.js';

const shared = useSharedApiServer();

/** What one probe request answers: path, status, body. */
type Answer = [path: string, status: number, body: string];

describe('Manager health probes', () => {
  it('serves /healthz and /readyz as controller-runtime does', async () => {
    const mgr = new Manager(
      { host: shared.server.host, qps: -1 },
      { namespace: 'health-1', healthProbeBindAddress: '127.0.0.1:0' },
    );
    let dbUp = true;
    mgr.addReadyzCheck('db', () => {
      if (!dbUp) throw new Error('db down');
    });
    mgr.add(idleRunnable);
    const abort = new AbortController();
    const running = mgr.start(abort.signal);
    await eventually(() => mgr.healthProbeAddress() !== undefined);
    const { host, port } = mgr.healthProbeAddress() ?? { host: '', port: 0 };
    const get = async (path: string) => {
      const res = await fetch(`http://${host}:${port}${path}`);
      return { status: res.status, body: await res.text() };
    };
    const expectAnswers = async (table: Answer[]) => {
      for (const [path, status, body] of table) {
        expect({ path, ...(await get(path)) }).toEqual({ path, status, body });
      }
    };

    await eventually(async () => expect(await get('/readyz')).toEqual({ status: 200, body: 'ok' }));
    // The table of controller-runtime's healthz handler tests, as data.
    // Rows: path, status, body.
    const passing: Answer[] = [
      ['/healthz', 200, 'ok'],
      ['/healthz?verbose', 200, '[+]ping ok\nhealthz check passed\n'],
      ['/readyz?verbose', 200, '[+]db ok\n[+]informers-synced ok\nhealthz check passed\n'],
      ['/readyz/informers-synced', 200, 'ok'],
      ['/readyz/nope', 404, '404 page not found\n'],
      ['/livez', 404, '404 page not found\n'],
    ];
    await expectAnswers(passing);

    dbUp = false;
    const warn = 'warn: some health checks cannot be excluded: no matches for "x"';
    const failing: Answer[] = [
      [
        '/readyz',
        500,
        '[-]db failed: reason withheld\n[+]informers-synced ok\nhealthz check failed\n',
      ],
      ['/readyz/db', 500, 'internal server error: db down\n'],
      ['/readyz?exclude=db', 200, 'ok'],
      [
        '/readyz?exclude=db&exclude=x&verbose',
        200,
        `[+]db excluded: ok\n[+]informers-synced ok\n${warn}\nhealthz check passed\n`,
      ],
      ['/healthz', 200, 'ok'],
    ];
    await expectAnswers(failing);

    abort.abort();
    await running;
    expect(mgr.healthProbeAddress()).toBeUndefined();
  });

  it('has a leader-election liveness check when electing', () => {
    const mgr = new Manager(
      { host: 'http://127.0.0.1:1' },
      { leaderElection: { namespace: 'default', name: 'l' } },
    );
    expect(() => mgr.addHealthzCheck('leader-election', () => {})).toThrow(
      'healthz check leader-election was already added',
    );
  });

  it.each([
    { name: '', message: `readyz check name must be letters, digits, '.', '_' or '-', got ""` },
    { name: 'a/b', message: 'got "a/b"' },
    { name: 'informers-synced', message: 'readyz check informers-synced was already added' },
  ])('refuses the readyz check name "$name"', ({ name, message }) => {
    const mgr = new Manager({ host: 'http://127.0.0.1:1' });
    expect(() => mgr.addReadyzCheck(name, () => {})).toThrow(message);
  });

  it('refuses a check that is not a function', () => {
    const mgr = new Manager({ host: 'http://127.0.0.1:1' });
    expect(() => mgr.addHealthzCheck('x', 'yes' as never)).toThrow(
      'healthz check x must be a function',
    );
  });
});
