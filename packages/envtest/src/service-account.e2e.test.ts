// A ServiceAccount's token from the TokenRequest API acts as that account under RBAC: refused
// (403, naming the user, verb and resource) until a Role grants the verb, then allowed.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Envtest, startEnvtest } from './envtest.js';
import { requestJson } from './https-json.js';
import { serviceAccountUser } from './service-account.js';

let env: Envtest;
beforeAll(async () => {
  env = await startEnvtest();
  await send('POST', '/api/v1/namespaces/default/serviceaccounts', {
    body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader' } },
  });
});
afterAll(() => env?.stop());

/** A request as the admin, or with `token` as a bearer. */
async function send(
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const identity =
    options.token === undefined
      ? { ca: env.tls.caData, cert: env.tls.certData, key: env.tls.keyData }
      : { ca: env.tls.caData, token: options.token };
  const answer = await requestJson(method, `${env.host}${path}`, identity, options);
  return { status: answer.status, json: JSON.parse(answer.body) };
}

describe('serviceAccountUser', () => {
  it('gives a token that is authorized by RBAC as the ServiceAccount', async () => {
    const user = await serviceAccountUser(env, { namespace: 'default', name: 'reader' });
    expect(user.username).toBe('system:serviceaccount:default:reader');
    expect(user.config).toEqual({
      host: env.host,
      tls: { caData: env.tls.caData },
      bearerToken: user.token,
      qps: -1,
    });
    expect(await readFile(user.kubeconfigPath, 'utf8')).toBe(user.kubeconfig);
    expect(user.kubeconfig).toContain(`token: ${JSON.stringify(user.token)}`);

    const refused = await send('GET', '/api/v1/namespaces/default/configmaps', {
      token: user.token,
    });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe(
      'configmaps is forbidden: User "system:serviceaccount:default:reader" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );

    const rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/default';
    await send('POST', `${rbac}/roles`, {
      body: {
        metadata: { name: 'reader' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
      },
    });
    await send('POST', `${rbac}/rolebindings`, {
      body: {
        metadata: { name: 'reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'default' }],
      },
    });
    // RBAC answers from its informers' caches: the new binding is seen a moment later.
    for (;;) {
      const allowed = await send('GET', '/api/v1/namespaces/default/configmaps', {
        token: user.token,
      });
      if (allowed.status === 200) break;
      expect(allowed.status).toBe(403);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  it('says which ServiceAccount has no token and why', async () => {
    await expect(serviceAccountUser(env, { namespace: 'default', name: 'nobody' })).rejects.toThrow(
      'envtest: no token for ServiceAccount default/nobody: the TokenRequest was answered 404: serviceaccounts "nobody" not found',
    );
  });

  it('refuses a name that cannot be a ServiceAccount before asking', async () => {
    await expect(
      serviceAccountUser(env, { namespace: 'default', name: 'No Body' }),
    ).rejects.toThrow(/name "No Body" is not a ServiceAccount name/);
  });
});
