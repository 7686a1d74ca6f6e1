import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@kubets/apimachinery';
import { type apiextensionsv1, appsV1Resources, coreV1Resources } from '@kubets/clientset';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { controller, createOrUpdatePermission, Manager } from './index.js';
import { operatorManifests, writeManifests } from './manifests.js';

const crd: apiextensionsv1.CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'widgets', kind: 'Widget' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object' } },
      },
    ],
  },
};

function operator(): Manager {
  const mgr = new Manager(
    { host: 'http://127.0.0.1:1' },
    { logger: silentLogger, leaderElection: { namespace: 'op-system', name: 'op' } },
  );
  controller(mgr)
    .for(coreV1Resources.configMaps)
    .owns(appsV1Resources.deployments)
    .rbac(createOrUpdatePermission(appsV1Resources.deployments))
    .complete(() => {});
  return mgr;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubets-manifests-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('writeManifests', () => {
  it('writes the namespace, CRDs, RBAC, Deployment and a kustomization listing them', async () => {
    const crdFile = join(dir, 'crd.yaml');
    await writeFile(crdFile, `# a comment\n---\n${JSON.stringify(crd)}\n`);
    const out = join(dir, 'out');
    const written = await writeManifests(out, {
      manager: operator(),
      name: 'op',
      namespace: 'op-system',
      image: 'example.com/op:1.0',
      args: ['--leader-elect', '--health-probe-bind-address=:8081'],
      crds: [crdFile],
    });
    const files = [
      'namespace.yaml',
      'crds/widgets.example.com.yaml',
      'rbac.yaml',
      'deployment.yaml',
      'kustomization.yaml',
    ];
    expect(written).toEqual(files.map((f) => join(out, f)));
    expect(parse(await readFile(join(out, 'kustomization.yaml'), 'utf8'))).toEqual({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: files.slice(0, 4),
    });
    expect(parse(await readFile(join(out, 'crds/widgets.example.com.yaml'), 'utf8'))).toEqual(crd);
    const rbac = parseAllDocuments(await readFile(join(out, 'rbac.yaml'), 'utf8')).map((d) =>
      d.toJS(),
    );
    expect(rbac.map((o) => `${o.kind} ${o.metadata.name}`)).toEqual([
      'ServiceAccount op',
      'ClusterRole op',
      'ClusterRoleBinding op',
      'Role op',
      'RoleBinding op',
    ]);
    const deployment = parse(await readFile(join(out, 'deployment.yaml'), 'utf8'));
    const pod = deployment.spec.template.spec;
    expect(pod.serviceAccountName).toBe('op');
    expect(pod.containers[0]).toMatchObject({
      image: 'example.com/op:1.0',
      args: ['--leader-elect', '--health-probe-bind-address=:8081'],
      ports: [
        { name: 'metrics', containerPort: 8080, protocol: 'TCP' },
        { name: 'health', containerPort: 8081, protocol: 'TCP' },
      ],
      livenessProbe: { httpGet: { path: '/healthz', port: 'health' } },
      readinessProbe: { httpGet: { path: '/readyz', port: 'health' } },
    });
    expect(deployment.spec.selector.matchLabels).toEqual({ 'app.kubernetes.io/name': 'op' });
    expect(deployment.spec.template.metadata.labels).toEqual({ 'app.kubernetes.io/name': 'op' });
  });

  it('gives the same files for the same operator', async () => {
    const options = () => ({
      manager: operator(),
      name: 'op',
      namespace: 'op-system',
      image: 'op:1',
      crds: [crd],
    });
    expect(await operatorManifests(options())).toEqual(await operatorManifests(options()));
  });

  it.each([
    [
      { crds: [{ ...crd, kind: 'Widget' }] },
      /crds\[0\] is not an apiextensions.k8s.io\/v1 CustomResourceDefinition/,
    ],
    [
      { crds: [{ ...crd, metadata: { name: 'widget.example.com' } }] },
      /a CRD must be named <plural>.<group> \(widgets.example.com\), got "widget.example.com"/,
    ],
    [{ crds: [crd, crd] }, /the CRD widgets.example.com is given twice/],
    [{ crds: ['/nonexistent/crd.yaml'] }, /crds\[0\]: cannot read \/nonexistent\/crd.yaml/],
    [{ healthProbePort: 0 }, /healthProbePort must be a port \(1-65535\), got 0/],
    [{ image: '' }, /image must name/],
    [{ name: 'Op' }, /name "Op" is not a valid object name/],
  ])('refuses %j and writes nothing', async (bad, message) => {
    const out = join(dir, 'out');
    await expect(
      writeManifests(out, {
        manager: operator(),
        name: 'op',
        namespace: 'op-system',
        image: 'op:1',
        ...bad,
      } as Parameters<typeof writeManifests>[1]),
    ).rejects.toThrow(message);
    await expect(readFile(join(out, 'kustomization.yaml'))).rejects.toThrow(/ENOENT/);
  });
});
