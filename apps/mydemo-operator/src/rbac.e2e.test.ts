// The operator as its own ServiceAccount, with only the RBAC rules derived from its
// controller: the manifests (node src/manifests.ts) are applied with kubectl 1.34 (apply -k),
// the operator runs with a token from the TokenRequest API against envtest's kube-apiserver
// (RBAC on), and converges. With one rule taken away it fails, saying which verb on which
// resource was forbidden: a missing list makes the cache sync time out naming the informer; a
// missing create fails the reconcile. Every wait is on a condition, never a sleep.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { isForbidden, isNotFound } from '@kubets/apimachinery';
import { Clientset, type rbacv1 } from '@kubets/clientset';
import { findStatusCondition } from '@kubets/controller';
import { type ServiceAccountUser, serviceAccountUser } from '@kubets/envtest';
import { loadConfig } from '@kubets/rest';
import { createTestNamespace, eventually, rejectionOf, useEnvtest } from '@kubets/test-utils';
import { type AppProcess, startApp } from '@kubets-apps/shared/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { crddemoV1 } from './generated/index.ts';
import { deploymentArgs, operatorName } from './manifests.ts';

const appDir = new URL('..', import.meta.url);
const poll = { intervalMs: 200, timeoutMs: 90_000 };
const operatorNamespace = 'mydemo-system';
const kubectl134 =
  process.env.KUBETS_KUBECTL ??
  join(process.env.KUBEBUILDER_ASSETS ?? join(homedir(), '.cache/kubets/assets'), 'kubectl-1.34');
const run = promisify(execFile);

const workDir = mkdtempSync(join(tmpdir(), 'mydemo-operator-rbac-'));
let admin: Clientset;
let account: ServiceAccountUser;
/** The operator's own clients: what it may do, it may do here. */
let asOperator: Clientset;

useEnvtest(
  async (env) => {
    admin = new Clientset({ ...loadConfig({ kubeconfig: env.kubeconfigPath }), qps: -1 });
    const config = join(workDir, 'config');
    // Without the webhooks: they need cert-manager, which envtest does not run
    // (src/webhooks.e2e.test.ts proves them; src/manifests.test.ts checks their manifests).
    await run(
      process.execPath,
      ['src/manifests.ts', config, '--namespace', operatorNamespace, '--no-webhooks'],
      { cwd: fileURLToPath(appDir) },
    );
    // kubectl 1.34 builds the kustomization and applies it: the namespace, the CRD, the
    // ServiceAccount, the roles and bindings, and the Deployment (which nothing runs here).
    await run(kubectl134, ['--kubeconfig', env.kubeconfigPath, 'apply', '-k', config]);
    await eventually(() => crddemoV1.mydemosClient(admin).list(), poll);
    account = await serviceAccountUser(env, { namespace: operatorNamespace, name: operatorName });
    asOperator = new Clientset({ ...account.config, timeoutMs: 10_000 });
  },
  () => rmSync(workDir, { recursive: true, force: true }),
);

const apps: AppProcess[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.stop('SIGKILL')));
});

/** Starts the operator as its ServiceAccount, with the Deployment's own arguments. */
function startOperator(...extra: string[]): AppProcess {
  const app = startApp(appDir, [
    ...deploymentArgs(operatorNamespace, { webhooks: false }),
    '--kubeconfig',
    account.kubeconfigPath,
    '--records-dir',
    join(workDir, 'records'),
    '--metrics-bind-address=127.0.0.1:0',
    '--health-probe-bind-address=127.0.0.1:0',
    ...extra,
  ]);
  apps.push(app);
  return app;
}

/**
 * Changes the operator's ClusterRole, and waits until the authorizer decides by the change
 * (it reads RBAC objects from its informers, a moment after the write).
 */
async function editClusterRole(
  edit: (rules: rbacv1.PolicyRule[]) => rbacv1.PolicyRule[],
  takesEffect?: () => Promise<unknown>,
): Promise<void> {
  const roles = admin.rbacV1().clusterRoles();
  const role = await roles.get(operatorName);
  await roles.update({ ...role, rules: edit(role.rules ?? []) });
  if (takesEffect) await eventually(takesEffect, poll);
}

const withoutVerb = (resource: string, verb: string) => (rules: rbacv1.PolicyRule[]) =>
  rules.map((r) =>
    r.resources?.includes(resource) ? { ...r, verbs: r.verbs.filter((v) => v !== verb) } : r,
  );
const withVerb = (resource: string, verb: string) => (rules: rbacv1.PolicyRule[]) =>
  rules.map((r) =>
    r.resources?.includes(resource) && !r.verbs.includes(verb)
      ? { ...r, verbs: [...r.verbs, verb].sort() }
      : r,
  );

const user = `system:serviceaccount:${operatorNamespace}:${operatorName}`;

describe('mydemo-operator as its ServiceAccount, with only the generated RBAC rules', () => {
  it('converges: leads, creates the children, writes the status, records Events, cleans up', async () => {
    const namespace = await createTestNamespace(admin.coreV1().namespaces(), 'mydemo-rbac');
    const operator = startOperator();
    await operator.waitFor(/Became leader; starting controllers/);
    const mydemos = crddemoV1.mydemosClient(admin, namespace);
    await mydemos.create({
      apiVersion: 'crddemo.k8s.io/v1',
      kind: 'Mydemo',
      metadata: { name: 'web', namespace },
      spec: { ip: '10.0.0.7', port: 8080 },
    });
    await eventually(async () => {
      const live = await mydemos.get('web');
      expect(findStatusCondition(live.status?.conditions, 'Ready')).toMatchObject({
        status: 'True',
      });
      await admin.appsV1().deployments(namespace).get('web');
      await admin.coreV1().services(namespace).get('web');
      const events = await admin.coreV1().events(namespace).list();
      expect(events.items.map((e) => e.reason)).toContain('Synced');
    }, poll);
    await mydemos.delete('web');
    await eventually(async () => {
      expect(isNotFound(await rejectionOf(mydemos.get('web')))).toBe(true);
      expect(isNotFound(await rejectionOf(admin.appsV1().deployments(namespace).get('web')))).toBe(
        true,
      );
    }, poll);
    expect(operator.output.count(/forbidden/i), operator.output.lines.join('\n')).toBe(0);
  });

  it('without list on services: the cache sync times out naming the informer and the Forbidden list', async () => {
    await editClusterRole(withoutVerb('services', 'list'), async () =>
      expect(isForbidden(await rejectionOf(asOperator.coreV1().services('').list()))).toBe(true),
    );
    try {
      const operator = startOperator('--cache-sync-timeout=3s');
      const line = await operator.waitFor(/manager stopped/, { timeoutMs: 60_000 });
      expect(line).toContain(
        `manager stopped: failed to wait for caches to sync: timed out after 3s: v1/services (last list error: services is forbidden: User "${user}" cannot list resource "services" in API group "" at the cluster scope)`,
      );
      expect(await operator.exited).toBe(1);
    } finally {
      await editClusterRole(withVerb('services', 'list'), () =>
        asOperator.coreV1().services('').list(),
      );
    }
  });

  it('without create on deployments: the reconcile fails with the Forbidden create', async () => {
    const namespace = await createTestNamespace(admin.coreV1().namespaces(), 'mydemo-rbac');
    await editClusterRole(withoutVerb('deployments', 'create'), async () =>
      expect(
        isForbidden(
          await rejectionOf(
            asOperator
              .appsV1()
              .deployments(namespace)
              .create({ metadata: { name: 'probe' }, spec: probeDeploymentSpec }),
          ),
        ),
      ).toBe(true),
    );
    try {
      const operator = startOperator();
      await crddemoV1.mydemosClient(admin, namespace).create({
        apiVersion: 'crddemo.k8s.io/v1',
        kind: 'Mydemo',
        metadata: { name: 'web', namespace },
        spec: { ip: '10.0.0.7', port: 8080 },
      });
      const line = await operator.waitFor(/Reconciler error/);
      // The logger quotes the error as a string: its quotes come escaped.
      const forbidden = `deployments.apps is forbidden: User "${user}" cannot create resource "deployments" in API group "apps" in the namespace "${namespace}"`;
      expect(line).toContain(JSON.stringify(forbidden).slice(1, -1));
    } finally {
      await editClusterRole(withVerb('deployments', 'create'));
    }
  });
});

const probeDeploymentSpec = {
  selector: { matchLabels: { app: 'probe' } },
  template: {
    metadata: { labels: { app: 'probe' } },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  },
};
