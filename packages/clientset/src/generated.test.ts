import { diffGeneratedFiles } from '@kubets/codegen-kit';
import { describe, expect, it } from 'vitest';
import { fileName, generatedDir, methodName, packageDir, render } from '../scripts/codegen.ts';
import { groupVersions } from '../scripts/resources.ts';

describe('generated code', () => {
  it('matches what scripts/resources.ts generates (run `pnpm --filter @kubets/clientset generate`)', async () => {
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

  it('the table has no duplicate group/versions or resources', () => {
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
