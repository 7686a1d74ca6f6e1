import { appsV1Resources, coreV1Resources, type corev1 } from '@kubets/clientset';
import { newSharedInformerFactory } from '@kubets/informers';
import {
  configMapOf,
  deploymentOf,
  eventually,
  podFixture,
  rejectionOf,
  thrownBy,
} from '@kubets/test-utils';
import { ItemExponentialFailureRateLimiter } from '@kubets/workqueue';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { useManagers } from '../test/managers.js';
import { countReconcilesPerUpdate } from '../test/reconciles-per-update.js';
import { useSharedApiServer } from '../test/server.js';
import {
  ChannelSource,
  controller,
  generationChanged,
  labelSelectorPredicate,
  Manager,
  predicateFuncs,
  setControllerReference,
} from './index.js';

const shared = useSharedApiServer();

const newManager = useManagers(shared);
let counter = 0;

describe('controller(...).for', () => {
  it('reconciles each object of the primary resource, through add, update and delete', async () => {
    const { mgr, namespace, reconciled, start } = await newManager();
    const seen: (corev1.ConfigMap | undefined)[] = [];
    controller(mgr)
      .for(coreV1Resources.configMaps)
      .complete((request, ctx) => {
        expectTypeOf(ctx.cached()).toEqualTypeOf<corev1.ConfigMap | undefined>();
        reconciled.push(request.name);
        seen.push(ctx.cached());
      });
    const cms = shared.clientset.coreV1().configMaps(namespace);
    await cms.create(configMapOf('before-start', { a: '1' }));
    void start();
    await eventually(() => reconciled.includes('before-start'));
    await cms.create(configMapOf('later', { a: '1' }));
    await eventually(() => reconciled.includes('later'));
    await cms.update({ ...(await cms.get('later')), data: { a: '2' } });
    await eventually(() => seen.some((cm) => cm?.data?.a === '2'));
    const count = reconciled.length;
    await cms.delete('later');
    await eventually(() => reconciled.length > count && seen.at(-1) === undefined);
  });

  it('enqueues only the events every predicate passes', async () => {
    const { mgr, namespace, start } = await newManager();
    // What each reconcile saw: a status-only write must never have caused one.
    const seen: string[] = [];
    controller(mgr)
      .for(appsV1Resources.deployments, {
        predicates: [generationChanged, labelSelectorPredicate('team=a')],
      })
      .complete(({ name }, ctx) => {
        const d = ctx.cached();
        seen.push(
          `${name} gen=${d?.metadata?.generation} observed=${d?.status?.observedGeneration}`,
        );
      });
    void start();
    const deps = shared.clientset.appsV1().deployments(namespace);
    await deps.create(deploymentOf('other-team', 1, { labels: { team: 'b' } }));
    await deps.create(deploymentOf('web', 1, { labels: { team: 'a' } }));
    await eventually(() => seen.length > 0);
    const live = await deps.get('web');
    await deps.updateStatus({ ...live, status: { observedGeneration: 1 } });
    await deps.update({
      ...(await deps.get('web')),
      spec: { ...live.spec, replicas: 3 } as typeof live.spec,
    });
    await eventually(() => seen.includes('web gen=2 observed=1'));
    expect(seen).not.toContain('web gen=1 observed=1');
    expect(seen.every((s) => s.startsWith('web '))).toBe(true);
  });
});

describe('owns and watches', () => {
  it('owns: an owned object reconciles its controller owner of the primary kind only', async () => {
    const { mgr, namespace, reconciled, record, start } = await newManager();
    controller(mgr).for(coreV1Resources.configMaps).owns(coreV1Resources.secrets).complete(record);
    void start();
    const owner = await shared.clientset
      .coreV1()
      .configMaps(namespace)
      .create(configMapOf('owner', {}));
    await eventually(() => reconciled.includes(`${namespace}/owner`));
    reconciled.length = 0;

    const owned: corev1.Secret = { metadata: { name: 'owned', namespace } };
    setControllerReference({ apiVersion: 'v1', kind: 'ConfigMap', ...owner }, owned);
    const byDeployment: corev1.Secret = { metadata: { name: 'by-deployment', namespace } };
    setControllerReference(
      { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'x', uid: 'u1' } },
      byDeployment,
    );
    const plainOwner: corev1.Secret = {
      metadata: {
        name: 'plain',
        namespace,
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'y', uid: 'u2' }],
      },
    };
    const secrets = shared.clientset.coreV1().secrets(namespace);
    for (const s of [byDeployment, plainOwner, owned]) await secrets.create(s);
    await eventually(() => reconciled.includes(`${namespace}/owner`));
    // Created last: had the others been mapped, their requests would have come first.
    expect(reconciled).toEqual([`${namespace}/owner`]);
  });

  it('watches: maps any object to requests, old and new object on updates', async () => {
    const { mgr, namespace, reconciled, record, start } = await newManager();
    controller(mgr)
      .for(coreV1Resources.configMaps)
      .watches(
        coreV1Resources.pods,
        (pod) => {
          expectTypeOf(pod).toEqualTypeOf<corev1.Pod>();
          const app = pod.metadata?.labels?.app;
          return app ? [{ namespace, name: `config-of-${app}` }] : [];
        },
        { predicates: [predicateFuncs({ delete: () => false })] },
      )
      .complete(record);
    void start();
    const pods = shared.clientset.coreV1().pods(namespace);
    await pods.create(podFixture(namespace, 'p1', 'web') as corev1.Pod);
    await eventually(() => reconciled.includes(`${namespace}/config-of-web`));
    const live = await pods.get('p1');
    await pods.update({ ...live, metadata: { ...live.metadata, labels: { app: 'api' } } });
    await eventually(() => reconciled.includes(`${namespace}/config-of-api`));
    expect(reconciled.filter((r) => r.endsWith('config-of-web')).length).toBeGreaterThanOrEqual(2);
  });
});

describe('the builder without a manager', () => {
  it('runs on an informer factory the caller starts', async () => {
    const namespace = await shared.createNamespace(`ns-other-${++counter}`);
    const factory = newSharedInformerFactory(shared.clientset, { defaultResyncMs: 0, namespace });
    const reconciled: string[] = [];
    const ctl = controller({ informers: factory })
      .named('mirror')
      .for(coreV1Resources.configMaps)
      .withOptions({ maxConcurrentReconciles: 2 })
      .complete({ reconcile: ({ name }) => void reconciled.push(name) });
    expect(ctl.name).toBe('mirror');
    const abort = new AbortController();
    factory.start(abort.signal);
    const running = ctl.run(abort.signal);
    await shared.clientset.coreV1().configMaps(namespace).create(configMapOf('c1', {}));
    await eventually(() => reconciled.includes('c1'));
    abort.abort();
    await running;
    await factory.shutdown();
  });
});

describe('bad input', () => {
  const mgr = () => new Manager({ host: 'http://127.0.0.1:1' });
  it.each([
    {
      name: 'deps without informers',
      build: () => controller({} as never),
      message: 'controller(deps): deps.informers must be an informer factory',
    },
    {
      name: 'for without a descriptor',
      build: () => controller(mgr()).for({ kind: 'ConfigMap' } as never),
      message: 'for(...) needs a resource descriptor',
    },
    {
      name: 'owns without a descriptor',
      build: () =>
        controller(mgr())
          .for(coreV1Resources.configMaps)
          .owns('secrets' as never),
      message: 'owns(...) needs a resource descriptor',
    },
    {
      name: 'watches without a map function',
      build: () =>
        controller(mgr())
          .for(coreV1Resources.configMaps)
          .watches(coreV1Resources.pods, undefined as never),
      message: 'watches(pods): the handler must be a map function',
    },
    {
      name: 'watches with an event handler lacking functions',
      build: () =>
        controller(mgr())
          .for(coreV1Resources.configMaps)
          .watches(coreV1Resources.pods, { create: () => {} } as never),
      message: 'watches(pods): the handler must be a map function',
    },
    {
      name: 'watchesSource without a source',
      build: () =>
        controller(mgr())
          .for(coreV1Resources.configMaps)
          .watchesSource({} as never, () => []),
      message: 'watchesSource(source): source must be an event source',
    },
    {
      name: 'a predicate that is not one',
      build: () => controller(mgr()).for(coreV1Resources.configMaps, { predicates: [{} as never] }),
      message: 'for(configmaps): predicates[0] is not a predicate',
    },
    {
      name: 'zero workers',
      build: () =>
        controller(mgr())
          .for(coreV1Resources.configMaps)
          .withOptions({ maxConcurrentReconciles: 0 })
          .complete(() => {}),
      message: 'maxConcurrentReconciles must be a positive integer, got 0',
    },
    {
      name: 'a negative resync',
      build: () => new Manager({ host: 'http://127.0.0.1:1' }, { resyncMs: -1 }),
      message: 'manager resyncMs must be a number of milliseconds ≥ 0, got -1',
    },
  ])('$name', ({ build, message }) => {
    expect(String(thrownBy(build))).toContain(message);
  });

  it('withOptions: the controller paces retries with the rate limiter given', () => {
    const rateLimiter = new ItemExponentialFailureRateLimiter<string>(1, 10);
    const ctl = controller(mgr())
      .for(coreV1Resources.configMaps)
      .withOptions({ rateLimiter })
      .withOptions({ maxConcurrentReconciles: 3 }) // later options add to earlier ones
      .complete(() => {});
    expect(ctl.queue.rateLimiter).toBe(rateLimiter);
  });

  it('complete twice, and two controllers of one name in a manager', () => {
    const m = mgr();
    const builder = controller(m).for(coreV1Resources.configMaps);
    builder.complete(() => {});
    expect(String(thrownBy(() => builder.complete(() => {})))).toContain(
      'controller configmap was already completed',
    );
    expect(
      String(
        thrownBy(() =>
          controller(m)
            .for(coreV1Resources.configMaps)
            .complete(() => {}),
        ),
      ),
    ).toContain(
      'a controller named configmap was already added: name controllers uniquely with named()',
    );
    controller(m)
      .named('second')
      .for(coreV1Resources.configMaps)
      .complete(() => {});
  });
});

describe('Manager', () => {
  it('stops everything when a runnable fails, and rejects with its error', async () => {
    const { mgr, start } = await newManager();
    let otherStopped = false;
    mgr.add({ name: 'failing', run: () => Promise.reject(new Error('cannot serve')) });
    mgr.add({
      name: 'waiting',
      run: (signal) =>
        new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => {
            otherStopped = true;
            resolve();
          }),
        ),
    });
    expect(String(await rejectionOf(start()))).toContain('cannot serve');
    expect(otherStopped).toBe(true);
  });

  it('starts once, and takes no runnable once started', async () => {
    const { mgr, start, abort } = await newManager();
    const running = start();
    expect(String(thrownBy(() => mgr.add({ name: 'late', run: async () => {} })))).toContain(
      'cannot add late to a manager that was already started',
    );
    expect(String(await rejectionOf(mgr.start(abort.signal)))).toContain(
      'the manager was already started',
    );
    abort.abort();
    await running;
  });
});

describe('one reconcile per change', () => {
  it('one update of a watched object reconciles it once; one update of an owned object reconciles its owner once', async () => {
    const namespace = await shared.createNamespace(`ns-other-${++counter}`);
    const counts = await countReconcilesPerUpdate(
      { host: shared.server.host, qps: -1 },
      namespace,
      3,
    );
    expect(counts).toEqual({ watched: 3, owner: 3 });
  });
});

describe('watchesSource', () => {
  it('reconciles what a ChannelSource emits, through the generic predicates and the handler, events before the start included', async () => {
    const { mgr, namespace, reconciled, record, start } = await newManager();
    const source = new ChannelSource<{ target: string }>();
    source.emit({ target: 'early' });
    controller(mgr)
      .for(coreV1Resources.configMaps)
      .watchesSource(source, (event) => [{ namespace, name: event.target }], {
        predicates: [predicateFuncs({ generic: (e) => e.object.target !== 'dropped' })],
      })
      .complete(record);
    void start();
    await eventually(() => reconciled.includes(`${namespace}/early`));
    await source.emitFrom(['dropped', 'late'].map((target) => ({ target })));
    await eventually(() => reconciled.includes(`${namespace}/late`));
    expect(reconciled).not.toContain(`${namespace}/dropped`);
  });
});
