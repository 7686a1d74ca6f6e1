// A webhook named by a Service (what a deployed operator's configurations say) on the in-memory
// server, which has no cluster network to dial it through: the call fails as an unreachable
// webhook's does, with a message that says why and what to use instead, and `failurePolicy`
// decides (embedded only: kube-apiserver dials the Service). docs/embedded-server.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configMapCreateGuard, hookedConfigMap } from '../test/admission-webhook-server.js';
import { type InMemoryApiServer, startApiServer } from './server.js';

let server: InMemoryApiServer;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(async () => {
  await server.stop();
});

async function post(path: string, body: object): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${server.host}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const SERVICE = {
  service: { namespace: 'mydemo-system', name: 'webhook-service', path: '/validate' },
};
const configuration = (name: string, failurePolicy: 'Fail' | 'Ignore') =>
  configMapCreateGuard(name, SERVICE, failurePolicy);
const configMap = hookedConfigMap;

describe('a webhook reached by a service reference', () => {
  it('with failurePolicy Fail, refuses the write naming the Service and what to use instead', async () => {
    const stored = await post(
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
      configuration('strict', 'Fail'),
    );
    expect(stored.status).toBe(201);
    const refused = await post('/api/v1/namespaces/default/configmaps', configMap('a', 'strict'));
    expect(refused.status).toBe(500);
    expect(refused.json).toMatchObject({
      reason: 'InternalError',
      message:
        'Internal error occurred: failed calling webhook "strict.example.com": the in-memory API server cannot reach service "mydemo-system/webhook-service" (port 443): it has no cluster network; give the webhook a clientConfig.url (https://127.0.0.1:<port><path>), as envtest\'s installed configurations do',
    });
  });

  it('with failurePolicy Ignore, skips the webhook', async () => {
    await post(
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
      configuration('lenient', 'Ignore'),
    );
    const created = await post('/api/v1/namespaces/default/configmaps', configMap('b', 'lenient'));
    expect(created.status).toBe(201);
  });
});
