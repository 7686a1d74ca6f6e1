// The README's example, run as a test (scripts/readme-examples.mjs checks that README.md
// shows the code between the readme markers): the harness of @kubets/test-utils.

import { startApiServer } from '@kubets/apiserver';
import { configMapOf, eventually, startReadmeHarness } from '@kubets/test-utils';
import { afterAll, expect, it } from 'vitest';

const { logged, stop } = await startReadmeHarness(startApiServer);
afterAll(stop);

// readme:start
import { coreV1Resources } from '@kubets/clientset';
import {
  controller,
  createOrUpdate,
  getConfig,
  labelSelectorPredicate,
  Manager,
  setControllerReference,
} from './index.js';

// Mirrors every ConfigMap labelled mirror=true into a Secret of the same name.
// getConfig: as kubectl (KUBECONFIG, ~/.kube/config, ...), at 20 requests/s, burst 30.
const mgr = new Manager(getConfig());

controller(mgr)
  .for(coreV1Resources.configMaps, { predicates: [labelSelectorPredicate('mirror=true')] })
  .owns(coreV1Resources.secrets) // a changed or deleted Secret is put right
  .complete(async ({ namespace, name }, ctx) => {
    const configMap = ctx.cached();
    if (configMap === undefined) return; // deleted: the garbage collector deletes the Secret
    const secret = { metadata: { name, namespace } };
    const result = await createOrUpdate(mgr.clientset.coreV1().secrets(namespace), secret, (s) => {
      const data = Object.entries(configMap.data ?? {});
      s.data = Object.fromEntries(data.map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
      setControllerReference(configMap, s);
    });
    console.log(`Secret ${namespace}/${name} ${result}`);
  });

const shutdown = new AbortController(); // a real process aborts it on SIGTERM
const stopped = mgr.start(shutdown.signal); // informers, cache sync, then the controller
// readme:end

it('runs the README example: mirrors a labelled ConfigMap, follows its changes, stops', async () => {
  const configMaps = mgr.clientset.coreV1().configMaps('default');
  const secrets = mgr.clientset.coreV1().secrets('default');
  await configMaps.create(configMapOf('plain', { a: '1' }, { namespace: 'default' }));
  await configMaps.create(
    configMapOf('settings', { mode: 'on' }, { namespace: 'default', labels: { mirror: 'true' } }),
  );
  await eventually(() => expect(logged).toContainEqual(['Secret default/settings created']));
  const secret = await secrets.get('settings');
  expect(secret.data).toEqual({ mode: Buffer.from('on').toString('base64') });
  expect(secret.metadata?.ownerReferences).toMatchObject([
    { kind: 'ConfigMap', name: 'settings', controller: true },
  ]);

  const live = await configMaps.get('settings');
  await configMaps.update({ ...live, data: { mode: 'off' } });
  await eventually(() => expect(logged).toContainEqual(['Secret default/settings updated']));
  expect((await secrets.get('settings')).data).toEqual({
    mode: Buffer.from('off').toString('base64'),
  });

  // A Secret changed by someone else is put back (owns), unchanged afterwards.
  await secrets.update({ ...(await secrets.get('settings')), data: { mode: 'eA==' } });
  await eventually(async () =>
    expect((await secrets.get('settings')).data).toEqual({
      mode: Buffer.from('off').toString('base64'),
    }),
  );

  shutdown.abort();
  await stopped;
  await expect(secrets.get('plain')).rejects.toThrow(/not found/);
});
