import { beforeAll, describe, expect, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
import { contractCalls } from './contract-helpers.js';
import {
  type Cause,
  defineInvalidCreates,
  duplicate,
  forbidden,
  type InvalidCreate,
  invalid,
  LABEL_VALUE,
  required,
  SUBDOMAIN,
  unsupported,
} from './validation-causes.js';

/**
 * Validation of Services beyond their ports (issue 18 item 1): the type and what each type
 * allows, the selector, session affinity, cluster and external IPs, repeated ports, as
 * kube-apiserver 1.20 lists them.
 */

const IP = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
const service = (what: string, spec: Record<string, unknown>, causes: Cause[]): InvalidCreate => ({
  what,
  apiVersion: 'v1',
  resource: 'services',
  kind: 'Service',
  spec,
  causes,
});

const CASES: InvalidCreate[] = [
  service(
    'the type, the selector’s labels, sessionAffinity, and a port repeated per protocol',
    {
      type: 'Magic',
      selector: { a: 'b c' },
      sessionAffinity: 'Sticky',
      ports: [{ port: 80 }, { port: 80, name: 'b' }],
    },
    [
      required('spec.ports[0].name'),
      invalid('spec.selector', 'b c', LABEL_VALUE),
      unsupported('spec.sessionAffinity', 'Sticky', ['ClientIP', 'None']),
      unsupported('spec.type', 'Magic', ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort']),
      {
        reason: 'FieldValueDuplicate',
        message:
          'Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
        field: 'spec.ports[1]',
      },
    ],
  ),
  service('an ExternalName service’s required externalName', { type: 'ExternalName' }, [
    required('spec.externalName'),
  ]),
  service(
    'an ExternalName service: no cluster IP, a DNS subdomain (trailing dot dropped)',
    {
      type: 'ExternalName',
      externalName: 'Bad_Host.',
      clusterIP: '10.0.0.5',
      ports: [{ port: 80 }],
    },
    [
      forbidden('spec.clusterIPs', 'may not be set for ExternalName services'),
      invalid('spec.externalName', 'Bad_Host', SUBDOMAIN),
    ],
  ),
  service(
    'a headless NodePort service, and a node port used twice',
    {
      type: 'NodePort',
      clusterIP: 'None',
      ports: [
        { port: 80, nodePort: 30001 },
        { name: 'b', port: 81, nodePort: 30001 },
      ],
    },
    [
      invalid('spec.clusterIPs[0]', 'None', "may not be set to 'None' for NodePort services"),
      required('spec.ports[0].name'),
      duplicate('spec.ports[1].nodePort', 30001),
    ],
  ),
  service(
    'a headless LoadBalancer exposing the kubelet’s port',
    { type: 'LoadBalancer', clusterIP: 'None', ports: [{ port: 10250 }] },
    [
      invalid(
        'spec.ports[0]',
        10250,
        'may not expose port 10250 externally since it is used by kubelet',
      ),
      invalid('spec.clusterIPs[0]', 'None', "may not be set to 'None' for LoadBalancer services"),
    ],
  ),
  service(
    'a node port on a ClusterIP service',
    { type: 'ClusterIP', ports: [{ port: 80, nodePort: 30002 }] },
    [forbidden('spec.ports[0].nodePort', "may not be used when `type` is 'ClusterIP'")],
  ),
  service('a cluster IP that is no IP', { clusterIP: '1.2.3', ports: [{ port: 80 }] }, [
    invalid('spec.clusterIPs[0]', '1.2.3', IP),
  ]),
  service(
    'a ClientIP timeout of 0',
    {
      sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } },
      ports: [{ port: 80 }],
    },
    [
      invalid(
        'spec.sessionAffinityConfig.clientIP.timeoutSeconds',
        0,
        'must be greater than 0 and less than 86400',
      ),
    ],
  ),
  service(
    'external IPs: valid, and not loopback, link-local or unspecified',
    { externalIPs: ['x', '127.0.0.1', '169.254.1.1', '0.0.0.0'], ports: [{ port: 80 }] },
    [
      invalid('spec.externalIPs[0]', 'x', IP),
      invalid('spec.externalIPs[1]', '127.0.0.1', 'may not be in the loopback range (127.0.0.0/8)'),
      invalid(
        'spec.externalIPs[2]',
        '169.254.1.1',
        'may not be in the link-local range (169.254.0.0/16)',
      ),
      invalid('spec.externalIPs[3]', '0.0.0.0', 'may not be unspecified (0.0.0.0)'),
    ],
  ),
];

export function defineServiceValidationContract(getTarget: () => ContractEndpoint): void {
  defineInvalidCreates(getTarget, 'validation of services beyond ports', CASES);
  const { create, newNamespace } = contractCalls(getTarget);
  describe('validation of services beyond ports', () => {
    let ns: string;
    beforeAll(async () => {
      ns = await newNamespace('valid-svc');
    });
    /** Creates Service `name` with `spec` (failing unless 201) and answers its stored spec. */
    const createdSpec = async (name: string, spec: Record<string, unknown>) => {
      const body = { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec };
      const res = await create(`/api/v1/namespaces/${ns}/services`, body);
      return res.json.spec as Record<string, unknown>;
    };

    it('accepts an ExternalName service whose name ends in a dot, without ports', async () => {
      const spec = await createdSpec('ext', { type: 'ExternalName', externalName: 'example.com.' });
      expect(spec.externalName).toBe('example.com.');
    });

    it('drops a session affinity config when the affinity is None, rather than refusing it', async () => {
      const spec = await createdSpec('none', {
        sessionAffinity: 'None',
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } },
        ports: [{ port: 80 }],
      });
      expect(spec.sessionAffinity).toBe('None');
      expect(spec.sessionAffinityConfig).toBeUndefined();
    });
  });
}
