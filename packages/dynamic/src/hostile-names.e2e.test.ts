// Hostile names, namespaces and groups through the dynamic client against a real
// kube-apiserver (issue #15): refused before sending or answered about that name; no other
// object changes.
import { randomUUID } from 'node:crypto';
import { isStatusError } from '@kubets/apimachinery';
import { isInvalidRequestError, loadConfig } from '@kubets/rest';
import { configMapOf, rejectionOf, useEnvtest } from '@kubets/test-utils';
import { hostileGroups, hostileSegments } from '@kubets/test-utils/hostile-segments';
import { describe, expect, it } from 'vitest';
import { DynamicClient } from './client.js';

let dynamic: DynamicClient;
const suffix = randomUUID().slice(0, 8);
const home = `hostile-a-${suffix}`;
const victim = `hostile-victim-${suffix}`;
const namespaces = { group: '', version: 'v1', resource: 'namespaces' };
const configMaps = { group: '', version: 'v1', resource: 'configmaps' };

async function snapshot(): Promise<Record<string, string>> {
  const state: Record<string, string> = {};
  for (const ns of [home, victim]) {
    const namespace = await dynamic.resource(namespaces).get(ns);
    state[ns] =
      `${namespace.metadata?.resourceVersion} ${namespace.metadata?.deletionTimestamp ?? ''}`;
    for (const cm of (await dynamic.resource(configMaps).namespace(ns).list()).items) {
      state[`${ns}/${cm.metadata?.name}`] = cm.metadata?.resourceVersion ?? '';
    }
  }
  return state;
}

useEnvtest(async ({ kubeconfigPath: kubeconfig }) => {
  dynamic = new DynamicClient({ ...loadConfig({ kubeconfig }), qps: -1 });
  for (const ns of [home, victim]) {
    await dynamic
      .resource(namespaces)
      .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await dynamic
      .resource(configMaps)
      .namespace(ns)
      .create(configMapOf('cm', { keep: 'me' }));
  }
});

describe('hostile input to the dynamic client against a real kube-apiserver', () => {
  it('changes nothing but the named object', async () => {
    const before = await snapshot();
    const cases = [
      ...hostileSegments,
      { value: `..\\..\\${victim}`, refused: false },
      { value: `.\t.\\.\t.\\${victim}`, refused: false },
    ];
    for (const { value, refused } of cases) {
      for (const [part, call] of [
        ['name', () => dynamic.resource(configMaps).namespace(home).delete(value)],
        ['namespace', () => dynamic.resource(configMaps).namespace(value).delete('cm')],
        ['subresource', () => dynamic.resource(configMaps).namespace(home).delete('cm', {}, value)],
      ] as const) {
        const outcome = await rejectionOf(call());
        if (refused) expect(outcome).toMatchObject({ part });
        else
          expect(isStatusError(outcome) ? outcome.status.code : outcome).toBeOneOf([400, 404, 422]);
      }
    }
    for (const { value, refused } of hostileGroups) {
      if (!refused) continue;
      const outcome = await rejectionOf(
        (async () =>
          dynamic
            .resource({ group: value, version: 'v1', resource: 'namespaces' })
            .delete(victim))(),
      );
      expect(isInvalidRequestError(outcome)).toBe(true);
      expect(outcome).toMatchObject({ part: 'group' });
    }
    expect(await snapshot()).toEqual(before);
  });
});
