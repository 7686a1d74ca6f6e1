import { resourceTable } from '@kubets/clientset';
import { diffGeneratedFiles } from '@kubets/codegen-kit';
import { describe, expect, it } from 'vitest';
import {
  fileName,
  generatedDir,
  informableGroupVersions,
  isInformable,
  notWatchable,
  packageDir,
  render,
} from '../scripts/codegen.ts';

describe('generated informers code', () => {
  it("matches what @kubets/clientset's resource table generates (run `pnpm --filter @kubets/informers generate`)", async () => {
    expect(diffGeneratedFiles(packageDir, generatedDir, await render())).toEqual([]);
  }, 60_000);

  it('has an informer for every listable and watchable resource of the table, and no other', () => {
    const generated = new Set(
      informableGroupVersions().flatMap(({ gv, resources }) =>
        resources.map(({ row }) => `${gv.group}/${gv.version}/${row.resource}`),
      ),
    );
    let rows = 0;
    for (const gv of resourceTable.groupVersions) {
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
