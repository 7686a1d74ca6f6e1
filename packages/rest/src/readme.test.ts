// The README's example (between the readme markers), run as a test: scripts/readme-examples.mjs
// checks that packages/rest/README.md shows this code verbatim, with `from './index.js'`
// written as `from '@kubets/rest'`. The cluster is the in-memory API server of
// @kubets/apiserver; `loadConfig()` finds it through KUBECONFIG, as kubectl would.
import { startApiServer } from '@kubets/apiserver';
import { afterAll, expect, it } from 'vitest';

const server = await startApiServer();
process.env.KUBECONFIG = server.kubeconfigPath;
afterAll(() => server.stop());

// readme:start
import { isNotFound } from '@kubets/apimachinery';
import { loadConfig, PatchType, RESTClient } from './index.js';

interface ConfigMap {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
  data?: Record<string, string>;
}

const config = loadConfig(); // as kubectl finds it; or loadConfig({ kubeconfig: 'path', context: 'dev' })
const core = new RESTClient(config, { groupVersion: 'v1' }); // '/api/v1'; 'apps/v1' → '/apis/apps/v1'

try {
  await core.get().namespace('default').resource('configmaps').name('x').do<ConfigMap>();
} catch (err) {
  if (!isNotFound(err)) throw err;
  const created = { metadata: { name: 'x' }, data: { color: 'red' } };
  await core.post().namespace('default').resource('configmaps').body(created).do<ConfigMap>();
}

const cm = await core
  .patch(PatchType.MergePatch)
  .namespace('default')
  .resource('configmaps')
  .name('x')
  .body({ data: { color: 'blue' } })
  .do<ConfigMap>(); // cm.data: { color: 'blue' }
// readme:end

it('runs the README example: creates the missing ConfigMap, then patches it', async () => {
  expect(cm.data).toEqual({ color: 'blue' });
  const res = await fetch(`${server.host}/api/v1/namespaces/default/configmaps/x`);
  expect(await res.json()).toMatchObject({
    metadata: { name: 'x', resourceVersion: cm.metadata.resourceVersion },
    data: { color: 'blue' },
  });
});
