// Hostile names and namespaces against a real kube-apiserver (issue #15): through the REST
// client and the typed clientset, every value is refused before sending or reaches the
// path that names it, and no other object changes. Before the fix, `..\..\<victim>` deleted
// the victim namespace and `.\t.` deleted the configmap's own namespace.
import { randomUUID } from 'node:crypto';
import { isStatusError } from '@kubets/apimachinery';
import { isInvalidRequestError, loadConfig, RESTClient } from '@kubets/rest';
import { rejectionOf, useEnvtest } from '@kubets/test-utils';
import { hostileSegments } from '@kubets/test-utils/hostile-segments';
import { describe, expect, it } from 'vitest';
import { Clientset } from './clientset.js';

let clientset: Clientset;
let core: RESTClient;
const suffix = randomUUID().slice(0, 8);
const home = `hostile-a-${suffix}`;
const victim = `hostile-victim-${suffix}`;

// The table, plus values aimed at this cluster's namespaces.
const cases = [
  ...hostileSegments,
  { label: 'aimed at the victim namespace', value: `..\\..\\${victim}`, refused: false },
  { label: 'aimed at the victim, TAB spelling', value: `.\t.\\.\t.\\${victim}`, refused: false },
  { label: 'aimed at the victim, slash spelling', value: `../../${victim}`, refused: true },
];

/** Every namespace and configmap of the test, with its resourceVersion and deletion state. */
async function snapshot(): Promise<Record<string, string>> {
  const state: Record<string, string> = {};
  for (const ns of [home, victim]) {
    const namespace = await clientset.coreV1().namespaces().get(ns);
    state[ns] =
      `${namespace.metadata?.resourceVersion} ${namespace.status?.phase} ${namespace.metadata?.deletionTimestamp ?? ''}`;
    for (const cm of (await clientset.coreV1().configMaps(ns).list()).items) {
      state[`${ns}/${cm.metadata?.name}`] = cm.metadata?.resourceVersion ?? '';
    }
  }
  return state;
}

/** The call either was refused before sending or answered by the server about that name. */
function expectRefusedOrAnswered(outcome: unknown, refused: boolean, part: string): void {
  if (refused) {
    expect(isInvalidRequestError(outcome)).toBe(true);
    expect(outcome).toMatchObject({ part });
  } else {
    expect(isStatusError(outcome) ? outcome.status.code : outcome).toBeOneOf([400, 404, 422]);
  }
}

useEnvtest(async ({ kubeconfigPath: kubeconfig }) => {
  const config = { ...loadConfig({ kubeconfig }), qps: -1 };
  clientset = new Clientset(config);
  core = new RESTClient(config, { groupVersion: 'v1' });
  for (const ns of [home, victim]) {
    await clientset
      .coreV1()
      .namespaces()
      .create({ metadata: { name: ns } });
    await clientset
      .coreV1()
      .configMaps(ns)
      .create({ metadata: { name: 'cm' }, data: { keep: 'me' } });
  }
});

describe('hostile names against a real kube-apiserver', () => {
  it('deletes nothing but the named object, through RESTClient and the clientset', async () => {
    const before = await snapshot();
    for (const { value, refused } of cases) {
      expectRefusedOrAnswered(
        await rejectionOf(clientset.coreV1().configMaps(home).delete(value)),
        refused,
        'name',
      );
      expectRefusedOrAnswered(
        await rejectionOf(clientset.coreV1().configMaps(value).delete('cm')),
        refused,
        'namespace',
      );
      expectRefusedOrAnswered(
        await rejectionOf(core.delete().namespace(home).resource('configmaps').name(value).do()),
        refused,
        'name',
      );
      expectRefusedOrAnswered(
        await rejectionOf(
          core.delete().namespace(home).resource('configmaps').name('cm').subresource(value).do(),
        ),
        refused,
        'subresource',
      );
      expectRefusedOrAnswered(
        await rejectionOf(core.delete().namespace(home).resource(value).name('cm').do()),
        refused,
        'resource',
      );
    }
    expect(await snapshot()).toEqual(before);
  });

  it('still deletes the object a plain name names', async () => {
    await clientset
      .coreV1()
      .configMaps(home)
      .create({ metadata: { name: 'doomed' } });
    await clientset.coreV1().configMaps(home).delete('doomed');
    const names = (await clientset.coreV1().configMaps(home).list()).items.map(
      (cm) => cm.metadata?.name,
    );
    expect(names).toEqual(['cm']);
  });
});
