// How many reconciles updates cause, on any API server: a controller of ConfigMaps that owns
// Secrets; `updates` updates of a watched ConfigMap, then `updates` updates of a Secret owned
// by another ConfigMap. Each update is made once the reconcile that saw the previous one was
// counted, so every update is observed alone. At the end a fence (a new ConfigMap) is
// reconciled: the one worker takes requests in order, and a second request of an update is
// queued the moment its first reconcile ends, long before the fence's watch event arrives,
// so any extra reconcile is counted before the fence's.
import { coreV1Resources, type corev1 } from '@kubets/clientset';
import type { Config } from '@kubets/rest';
import { eventually } from '@kubets/test-utils';
import { controller, Manager, setControllerReference } from '../src/index.js';

/** Reconciles counted by {@link countReconcilesPerUpdate}. */
export interface ReconcilesPerUpdate {
  /** Reconciles of the watched ConfigMap caused by the updates. */
  readonly watched: number;
  /** Reconciles of the owner caused by the updates of its Secret. */
  readonly owner: number;
}

/**
 * Runs a manager on `config` in `namespace` (which must exist and be empty of the names
 * used here), makes the updates and counts the reconciles they caused.
 */
export async function countReconcilesPerUpdate(
  config: Config,
  namespace: string,
  updates: number,
): Promise<ReconcilesPerUpdate> {
  const mgr = new Manager(config, { namespace });
  const secretLister = mgr.informers.forResource(coreV1Resources.secrets).lister();
  // What each reconcile saw: `watched` → its data.n; `owner` → its Secret's data.n.
  const seen = new Map<string, string[]>();
  const seenBy = (name: string) => seen.get(name) ?? [];
  controller(mgr)
    .for(coreV1Resources.configMaps)
    .owns(coreV1Resources.secrets)
    .complete(({ name }, ctx) => {
      const observed =
        name === 'owner'
          ? Buffer.from(secretOf(secretLister, namespace)?.data?.n ?? '', 'base64').toString()
          : (ctx.cached()?.data?.n ?? '');
      seen.set(name, [...seenBy(name), observed]);
    });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  try {
    const configMaps = mgr.clientset.coreV1().configMaps(namespace);
    const secrets = mgr.clientset.coreV1().secrets(namespace);
    await configMaps.create({ metadata: { name: 'watched' }, data: { n: '0' } });
    const owner = await configMaps.create({ metadata: { name: 'owner' } });
    const secret: corev1.Secret = {
      metadata: { name: 'owned', namespace },
      data: { n: base64('0') },
    };
    setControllerReference(owner, secret);
    await secrets.create(secret);
    await eventually(() => seenBy('watched').includes('0') && seenBy('owner').includes('0'), {
      what: 'the first reconciles',
    });
    await fence(configMaps, seenBy, 'fence-start');
    const before = { watched: seenBy('watched').length, owner: seenBy('owner').length };

    for (let n = 1; n <= updates; n++) {
      const cm = await configMaps.get('watched');
      await configMaps.update({ ...cm, data: { n: String(n) } });
      await eventually(() => seenBy('watched').at(-1) === String(n), {
        what: `the reconcile of update ${n} of the watched ConfigMap`,
      });
    }
    for (let n = 1; n <= updates; n++) {
      const current = await secrets.get('owned');
      await secrets.update({ ...current, data: { n: base64(String(n)) } });
      await eventually(() => seenBy('owner').at(-1) === String(n), {
        what: `the owner's reconcile of update ${n} of its Secret`,
      });
    }
    await fence(configMaps, seenBy, 'fence-end');
    return {
      watched: seenBy('watched').length - before.watched,
      owner: seenBy('owner').length - before.owner,
    };
  } finally {
    stop.abort();
    await running;
  }
}

async function fence(
  configMaps: { create(cm: corev1.ConfigMap): Promise<unknown> },
  seenBy: (name: string) => string[],
  name: string,
): Promise<void> {
  await configMaps.create({ metadata: { name } });
  await eventually(() => seenBy(name).length > 0, { what: `the reconcile of ${name}` });
}

function secretOf(
  lister: { byNamespace(ns: string): { get(name: string): corev1.Secret } },
  namespace: string,
): corev1.Secret | undefined {
  try {
    return lister.byNamespace(namespace).get('owned');
  } catch {
    return undefined;
  }
}

const base64 = (text: string) => Buffer.from(text).toString('base64');
