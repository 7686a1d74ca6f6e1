// The README's example (between the readme markers), run as a test: scripts/readme-examples.mjs
// checks that packages/apiserver/README.md shows this code verbatim, with `from './index.js'`
// written as `from '@kubets/apiserver'`.

// readme:start
import { startApiServer } from './index.js';

await using server = await startApiServer(); // plain HTTP on a free port, ready in milliseconds
// server.kubeconfigPath: a kubeconfig for any client (kubets, @kubernetes/client-node, kubectl)

const configMaps = `${server.host}/api/v1/namespaces/default/configmaps`;
const created = await fetch(configMaps, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web' } }),
});
const list = await (await fetch(configMaps)).json(); // a ConfigMapList holding "web"

server.faults.respondWith(429, { retryAfterSeconds: 1, times: 1 }); // the next request only
const throttled = await fetch(configMaps); // 429, Retry-After: 1
const after = await fetch(configMaps); // 200 again

// readme:end
import { expect, it } from 'vitest'; // after the example, so sorting imports keeps it out

it('runs the README example: a working API server with faults, stopped at the end of scope', async () => {
  expect(created.status).toBe(201);
  expect(list).toMatchObject({ kind: 'ConfigMapList', items: [{ metadata: { name: 'web' } }] });
  expect(throttled.status).toBe(429);
  expect(throttled.headers.get('retry-after')).toBe('1');
  expect(after.status).toBe(200);
  // `await using` stopped the server when the module's top level finished.
  await expect(fetch(configMaps)).rejects.toThrow();
});
