import { silentLogger } from '@kubets/apimachinery';
import { FakeClock } from '@kubets/apimachinery/testing';
import { coreV1Resources } from '@kubets/clientset';
import { eventually, rejectionOf } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { idleRunnable } from '../test/runnables.js';
import { useSharedApiServer } from '../test/server.js';
import { controller, Manager, type ReconcileRequest, TerminalError } from './index.js';

const shared = useSharedApiServer();

/** The value of one sample line of a text exposition, e.g. `name{label="v"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('Manager metrics', () => {
  it('serves controller-runtime and workqueue metrics on /metrics', async () => {
    const namespace = await shared.createNamespace('metrics-1');
    const clock = new FakeClock(1_000);
    const mgr = new Manager(
      { host: shared.server.host, qps: -1 },
      { namespace, clock, metricsBindAddress: '127.0.0.1:0' },
    );
    const done: string[] = [];
    controller(mgr)
      .named('cms')
      .for(coreV1Resources.configMaps)
      .withOptions({ maxConcurrentReconciles: 2 })
      .complete((request: ReconcileRequest) => {
        done.push(request.name);
        // The fake clock makes the observed reconcile time exact.
        if (request.name === 'slow') clock.step(250);
        if (request.name === 'bad') throw new TerminalError('cannot fix');
        if (request.name === 'later') return { requeueAfterMs: 60_000 };
        return undefined;
      });
    const abort = new AbortController();
    const running = mgr.start(abort.signal);
    for (const name of ['slow', 'bad', 'later']) {
      await shared.clientset.coreV1().configMaps(namespace).create({ metadata: { name } });
    }
    await eventually(() => done.length === 3, { what: 'three reconciles' });
    await eventually(() => mgr.metricsAddress() !== undefined);
    const { host, port } = mgr.metricsAddress() ?? { host: '', port: 0 };

    // A reconcile is counted just after it returns: wait until all three are.
    const c = '{controller="cms"}';
    let text = '';
    await eventually(async () => {
      const res = await fetch(`http://${host}:${port}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain');
      text = await res.text();
      expect(sample(text, `controller_runtime_reconcile_time_seconds_count${c}`)).toBe(3);
    });
    expect({
      success: sample(
        text,
        'controller_runtime_reconcile_total{controller="cms",result="success"}',
      ),
      error: sample(text, 'controller_runtime_reconcile_total{controller="cms",result="error"}'),
      requeue: sample(
        text,
        'controller_runtime_reconcile_total{controller="cms",result="requeue"}',
      ),
      errors: sample(text, `controller_runtime_reconcile_errors_total${c}`),
      terminal: sample(text, `controller_runtime_terminal_reconcile_errors_total${c}`),
      active: sample(text, `controller_runtime_active_workers${c}`),
      max: sample(text, `controller_runtime_max_concurrent_reconciles${c}`),
      count: sample(text, `controller_runtime_reconcile_time_seconds_count${c}`),
      sum: sample(text, `controller_runtime_reconcile_time_seconds_sum${c}`),
      under100ms: sample(
        text,
        'controller_runtime_reconcile_time_seconds_bucket{le="0.1",controller="cms"}',
      ),
      under250ms: sample(
        text,
        'controller_runtime_reconcile_time_seconds_bucket{le="0.25",controller="cms"}',
      ),
    }).toEqual({
      success: 1,
      error: 1,
      requeue: 0,
      errors: 1,
      terminal: 1,
      active: 0,
      max: 2,
      count: 3,
      sum: 0.25,
      under100ms: 2,
      under250ms: 3,
    });
    // client-go's workqueue metrics of the controller's queue, in the same registry.
    expect(sample(text, 'workqueue_adds_total{name="cms"}')).toBe(3);
    // The priority queue's depth is by priority (controller-runtime's label); nothing waits.
    const depths = text
      .split('\n')
      .filter((l) => l.startsWith('workqueue_depth{name="cms",priority="'));
    expect(depths.length).toBeGreaterThan(0);
    expect(depths.map((l) => Number(l.split(' ')[1])).reduce((a, b) => a + b)).toBe(0);
    expect(text).toContain('workqueue_retries_total');

    const notFound = await fetch(`http://${host}:${port}/other`);
    expect(notFound.status).toBe(404);
    abort.abort();
    await running;
    expect(mgr.metricsAddress()).toBeUndefined();
    // Nothing listens any more: fetch rejects with a TypeError (worded "fetch failed" by Node,
    // "ECONNREFUSED: Unable to connect" by Bun).
    expect(await rejectionOf(fetch(`http://${host}:${port}/metrics`))).toBeInstanceOf(TypeError);
  });

  it("serves its informers' reflector and informer metrics, two managers side by side", async () => {
    const namespace = await shared.createNamespace('metrics-informers');
    await shared.clientset
      .coreV1()
      .configMaps(namespace)
      .create({ metadata: { name: 'one' } });
    const managers = [1, 2].map(
      () =>
        new Manager(
          { host: shared.server.host, qps: -1 },
          { namespace, metricsBindAddress: '127.0.0.1:0' },
        ),
    );
    const abort = new AbortController();
    const running = managers.map((mgr) => {
      controller(mgr)
        .for(coreV1Resources.configMaps)
        .complete(() => undefined);
      return mgr.start(abort.signal);
    });
    const texts = await Promise.all(
      managers.map(async (mgr) => {
        let text = '';
        await eventually(async () => {
          const address = mgr.metricsAddress();
          expect(address).toBeDefined();
          text = await (await fetch(`http://${address?.host}:${address?.port}/metrics`)).text();
          expect(text).toMatch(/^reflector_lists_total\{name="[^"]+"\} [1-9]/m);
          expect(text).toMatch(
            /^informer_store_resource_version\{[^}]*name="controller-manager(-\d+)?"[^}]*resource="configmaps"[^}]*\} [1-9]/m,
          );
        });
        return text;
      }),
    );
    const namesOf = (text: string) =>
      /^informer_store_resource_version\{[^}]*name="([^"]+)"/m.exec(text)?.[1];
    // Each manager publishes under its own informer name, to its own registry.
    expect(new Set(texts.map(namesOf)).size).toBe(2);
    expect(texts.every((text) => text.includes('reflector_items_per_list'))).toBe(true);
    abort.abort();
    await Promise.all(running);
  });

  it('has no registry and opens no port by default', () => {
    const mgr = new Manager({ host: 'http://127.0.0.1:1' });
    expect(mgr.metricsRegistry).toBeUndefined();
    expect(mgr.metricsAddress()).toBeUndefined();
  });

  it.each([
    {
      address: '8080',
      message: `metricsBindAddress must be 'host:port', ':port' or '0' to disable, got "8080"`,
    },
    { address: 'localhost:99999', message: 'got "localhost:99999"' },
  ])('refuses the bind address $address', ({ address, message }) => {
    expect(
      () => new Manager({ host: 'http://127.0.0.1:1' }, { metricsBindAddress: address }),
    ).toThrow(message);
  });
});

describe('Manager metrics: leadership, requests, process', () => {
  it('serves leader_election_master_status, rest_client_requests_total and process metrics', async () => {
    const namespace = await shared.createNamespace('metrics-leader');
    const seen: string[] = [];
    const mgr = new Manager(
      {
        host: shared.server.host,
        qps: -1,
        // The config's own hook still hears every request.
        onRequestResult: (result) => seen.push(result.code),
      },
      {
        namespace,
        metricsBindAddress: '127.0.0.1:0',
        leaderElection: { namespace, name: 'metrics-lease', identity: 'one' },
        logger: silentLogger,
      },
    );
    mgr.add(idleRunnable);
    const abort = new AbortController();
    const running = mgr.start(abort.signal);
    await eventually(() => mgr.isLeader() && mgr.metricsAddress() !== undefined);
    const { host, port } = mgr.metricsAddress() ?? { host: '', port: 0 };
    const apiHost = new URL(shared.server.host).host;
    let text = '';
    await eventually(async () => {
      text = await (await fetch(`http://${host}:${port}/metrics`)).text();
      expect(sample(text, 'leader_election_master_status{name="metrics-lease"}')).toBe(1);
    });
    // The Lease was read (404) and created (201) through the manager's clientset.
    expect(
      sample(text, `rest_client_requests_total{code="201",method="POST",host="${apiHost}"}`),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, `rest_client_requests_total{code="404",method="GET",host="${apiHost}"}`),
    ).toBeGreaterThanOrEqual(1);
    expect(text).toContain(
      '# HELP rest_client_requests_total Number of HTTP requests, partitioned by status code, method, and host.',
    );
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE process_resident_memory_bytes gauge');
    expect(seen).toContain('201');
    abort.abort();
    await running;
  });
});
