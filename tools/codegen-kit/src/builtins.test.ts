import { describe, expect, it } from 'vitest';
import {
  fileName,
  informableGroupVersions,
  inMemoryResources,
  isInformable,
  methodName,
  notWatchable,
  targets,
} from './builtins.ts';
import { diffGeneratedFiles } from './index.ts';
import { groupVersions } from './resource-table.ts';

describe('the resource table', () => {
  it('has no duplicate group/versions or resources', () => {
    const seen = new Set<string>();
    for (const gv of groupVersions) {
      const key = `${gv.group}/${gv.version}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
      const resources = gv.resources.map((r) => r.resource);
      expect(new Set(resources).size, key).toBe(resources.length);
      expect([...resources].sort(), `${key} resources are sorted`).toEqual(resources);
    }
  });
});

describe('generated clientset code', () => {
  it('matches what the resource table generates (run `pnpm --filter @kubets/clientset generate`)', async () => {
    const { packageDir, generatedDir, render } = targets.clientset;
    expect(diffGeneratedFiles(packageDir, generatedDir, await render())).toEqual([]);
  }, 60_000);

  it('names methods and files the client-go way', () => {
    const row = (kind: string, resource: string) => ({ kind, resource, namespaced: true });
    expect(methodName(row('Pod', 'pods'))).toBe('pods');
    expect(methodName(row('Endpoints', 'endpoints'))).toBe('endpoints');
    expect(methodName(row('NetworkPolicy', 'networkpolicies'))).toBe('networkPolicies');
    expect(methodName(row('APIService', 'apiservices'))).toBe('apiServices');
    expect(methodName(row('CSIStorageCapacity', 'csistoragecapacities'))).toBe(
      'csiStorageCapacities',
    );
    expect(methodName(row('ComponentStatus', 'componentstatuses'))).toBe('componentStatuses');
    const files = groupVersions.map(fileName);
    expect(files).toContain('core-v1');
    expect(files).toContain('flowcontrol-apiserver-v1');
    expect(files).toContain('autoscaling-v2beta2');
    expect(new Set(files).size).toBe(files.length);
  });
});

describe('generated informers code', () => {
  it('matches what the resource table generates (run `pnpm --filter @kubets/informers generate`)', async () => {
    const { packageDir, generatedDir, render } = targets.informers;
    expect(diffGeneratedFiles(packageDir, generatedDir, await render())).toEqual([]);
  }, 60_000);

  it('has an informer for every listable and watchable resource of the table, and no other', () => {
    const generated = new Set(
      informableGroupVersions().flatMap(({ gv, resources }) =>
        resources.map(({ row }) => `${gv.group}/${gv.version}/${row.resource}`),
      ),
    );
    let rows = 0;
    for (const gv of groupVersions) {
      for (const row of gv.resources) {
        rows++;
        const key = `${gv.group}/${gv.version}/${row.resource}`;
        const expected = row.client !== 'createOnly' && key !== '/v1/componentstatuses';
        expect(generated.has(key), key).toBe(expected);
        expect(isInformable(gv, row), key).toBe(expected);
      }
    }
    expect(generated.size).toBeLessThan(rows);
    expect(generated).toContain('apps/v1/deployments');
    expect(generated).toContain('/v1/pods');
    expect(generated).not.toContain('authentication.k8s.io/v1/tokenreviews');
    expect(notWatchable).toContain('v1/componentstatuses');
  });

  it('names accessors as the clientset does and files by group/version', () => {
    const groups = informableGroupVersions();
    const apps = groups.find((g) => g.accessor === 'appsV1');
    expect(apps?.resources.map((r) => r.method)).toEqual([
      'controllerRevisions',
      'daemonSets',
      'deployments',
      'replicaSets',
      'statefulSets',
    ]);
    const core = groups.find((g) => g.accessor === 'coreV1');
    expect(core?.resources.map((r) => r.method)).toContain('persistentVolumeClaims');
    expect(groups.map((g) => g.accessor)).not.toContain('authenticationV1');
    const files = groups.map((g) => fileName(g.gv));
    expect(files).toContain('core-v1');
    expect(files).toContain('flowcontrol-apiserver-v1');
    expect(new Set(files).size).toBe(files.length);
  });
});

describe("generated in-memory API server's resources", () => {
  it('match what the resource table generates (run `pnpm --filter @kubets/apiserver generate`)', async () => {
    const { packageDir, generatedDir, render } = targets.apiserver;
    expect(diffGeneratedFiles(packageDir, generatedDir, await render())).toEqual([]);
  }, 60_000);

  it('serve each group/resource at one version', () => {
    const keys = inMemoryResources().map(({ gv, row }) => `${gv.group}/${row.resource}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toContain('/pods');
    expect(keys).toContain('apiextensions.k8s.io/customresourcedefinitions');
  });
});
