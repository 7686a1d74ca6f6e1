import { describe, expect, it } from 'vitest';
import { wireRoots, wireTypes } from './wire-types.generated.js';

describe('wire-types.generated.ts', () => {
  it('spells Go field names and types as kube-apiserver names them', () => {
    expect(wireRoots['apps/v1/Deployment']).toBe('V1Deployment');
    expect(wireTypes.V1Deployment?.fields.metadata).toEqual(['ObjectMeta', 'V1ObjectMeta']);
    expect(wireTypes.V1PodSpec?.fields.hostIPC).toEqual(['HostIPC', 'bool']);
    expect(wireTypes.V1PodSpec?.fields.dnsPolicy).toEqual(['DNSPolicy', 'string']);
    expect(wireTypes.V1ServiceSpec?.fields.clusterIPs).toEqual(['ClusterIPs', '[]string']);
    expect(wireTypes.V1ResourceRequirements?.fields.limits).toEqual([
      'Limits',
      'map[string]quantity',
    ]);
    expect(wireTypes.V1ServicePort?.fields.targetPort).toEqual(['TargetPort', 'intstr']);
    expect(wireTypes.CoreV1Event?.go).toBe('v1.Event');
  });
});
