import { beforeAll, describe, expect, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
import { contractCalls, expectFailure } from './contract-helpers.js';

/**
 * Defaulting and allocation (issue 18 item 2): each test compares the whole `spec` (and
 * `status`) a create answers with what kube-apiserver 1.20 answered for the same body.
 * docs/embedded-server.md names these tests.
 */

const container = (name: string, image: string, extra: Record<string, unknown> = {}) => ({
  name,
  image,
  ...extra,
});

/** What kube-apiserver fills in on a container with only `name` and `image`. */
const defaultedContainer = (name: string, image: string, pullPolicy: string) => ({
  name,
  image,
  resources: {},
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
  imagePullPolicy: pullPolicy,
});

/** What kube-apiserver fills in on a pod spec, containers aside. */
const POD_SPEC_DEFAULTS = {
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 30,
  dnsPolicy: 'ClusterFirst',
  securityContext: {},
  schedulerName: 'default-scheduler',
};

const TEMPLATE = {
  metadata: { labels: { app: 'x' } },
  spec: { containers: [container('c', 'nginx')] },
};

const DEFAULTED_TEMPLATE = {
  metadata: { creationTimestamp: null, labels: { app: 'x' } },
  spec: { containers: [defaultedContainer('c', 'nginx', 'Always')], ...POD_SPEC_DEFAULTS },
};

const IPV4 = /^10\.0\.0\.\d{1,3}$/;

/** Defines the defaulting and allocation contract tests against `getTarget()`. */
export function defineDefaultsContract(getTarget: () => ContractEndpoint): void {
  const { call, create, newNamespace } = contractCalls(getTarget);
  let ns = '';
  beforeAll(async () => {
    ns = await newNamespace('defaults');
  });

  describe('defaulting of built-in objects', () => {
    it('defaults a pod: spec, containers, pull policy by tag, volumes, admission fields, qosClass', async () => {
      const res = await create(`/api/v1/namespaces/${ns}/pods`, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p' },
        spec: {
          containers: [
            container('a', 'nginx'),
            container('b', 'nginx:latest', { resources: { limits: { cpu: '1' } } }),
            container('c', 'nginx:1.2', { ports: [{ containerPort: 80 }] }),
          ],
          initContainers: [container('i', `busybox@sha256:${'a'.repeat(64)}`)],
          volumes: [
            { name: 'e', emptyDir: {} },
            { name: 's', secret: { secretName: 'x' } },
            { name: 'm', configMap: { name: 'y' } },
          ],
        },
      });
      expect(res.json.spec).toEqual({
        volumes: [
          { name: 'e', emptyDir: {} },
          { name: 's', secret: { secretName: 'x', defaultMode: 420 } },
          { name: 'm', configMap: { name: 'y', defaultMode: 420 } },
        ],
        initContainers: [
          defaultedContainer('i', `busybox@sha256:${'a'.repeat(64)}`, 'IfNotPresent'),
        ],
        containers: [
          defaultedContainer('a', 'nginx', 'Always'),
          {
            ...defaultedContainer('b', 'nginx:latest', 'Always'),
            resources: { limits: { cpu: '1' }, requests: { cpu: '1' } },
          },
          {
            ...defaultedContainer('c', 'nginx:1.2', 'IfNotPresent'),
            ports: [{ containerPort: 80, protocol: 'TCP' }],
          },
        ],
        ...POD_SPEC_DEFAULTS,
        tolerations: [
          {
            key: 'node.kubernetes.io/not-ready',
            operator: 'Exists',
            effect: 'NoExecute',
            tolerationSeconds: 300,
          },
          {
            key: 'node.kubernetes.io/unreachable',
            operator: 'Exists',
            effect: 'NoExecute',
            tolerationSeconds: 300,
          },
        ],
        priority: 0,
        enableServiceLinks: true,
        preemptionPolicy: 'PreemptLowerPriority',
      });
      expect(res.json.status).toEqual({ phase: 'Pending', qosClass: 'Burstable' });
    });

    it('classes pods as BestEffort, Burstable or Guaranteed', async () => {
      const qos = async (name: string, resources?: Record<string, unknown>): Promise<unknown> => {
        const res = await create(`/api/v1/namespaces/${ns}/pods`, {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name },
          spec: { containers: [container('c', 'nginx', resources ? { resources } : {})] },
        });
        return res.json.status.qosClass;
      };
      expect(await qos('best-effort')).toBe('BestEffort');
      expect(await qos('burstable', { requests: { memory: '1Mi' } })).toBe('Burstable');
      expect(await qos('guaranteed', { limits: { cpu: '1', memory: '1Mi' } })).toBe('Guaranteed');
    });

    it('defaults deployments, statefulsets, daemonsets, replicasets and their pod templates', async () => {
      const workload = async (resource: string, kind: string, spec: object) => {
        const res = await create(`/apis/apps/v1/namespaces/${ns}/${resource}`, {
          apiVersion: 'apps/v1',
          kind,
          metadata: { name: 'w' },
          spec: { selector: { matchLabels: { app: 'x' } }, template: TEMPLATE, ...spec },
        });
        return { spec: res.json.spec, status: res.json.status };
      };
      const selector = { matchLabels: { app: 'x' } };
      expect(await workload('deployments', 'Deployment', {})).toEqual({
        spec: {
          replicas: 1,
          selector,
          template: DEFAULTED_TEMPLATE,
          strategy: {
            type: 'RollingUpdate',
            rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
          },
          revisionHistoryLimit: 10,
          progressDeadlineSeconds: 600,
        },
        status: {},
      });
      expect(await workload('statefulsets', 'StatefulSet', { serviceName: 'x' })).toEqual({
        spec: {
          replicas: 1,
          selector,
          template: DEFAULTED_TEMPLATE,
          serviceName: 'x',
          podManagementPolicy: 'OrderedReady',
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
          revisionHistoryLimit: 10,
        },
        status: { replicas: 0 },
      });
      expect(await workload('daemonsets', 'DaemonSet', {})).toEqual({
        spec: {
          selector,
          template: DEFAULTED_TEMPLATE,
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
          revisionHistoryLimit: 10,
        },
        status: {
          currentNumberScheduled: 0,
          numberMisscheduled: 0,
          desiredNumberScheduled: 0,
          numberReady: 0,
        },
      });
      expect(await workload('replicasets', 'ReplicaSet', {})).toEqual({
        spec: { replicas: 1, selector, template: DEFAULTED_TEMPLATE },
        status: { replicas: 0 },
      });
    });

    it('defaults a Recreate deployment without rollingUpdate', async () => {
      const res = await create(`/apis/apps/v1/namespaces/${ns}/deployments`, {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'recreate' },
        spec: {
          replicas: 0,
          strategy: { type: 'Recreate' },
          selector: { matchLabels: { app: 'x' } },
          template: TEMPLATE,
        },
      });
      expect(res.json.spec.strategy).toEqual({ type: 'Recreate' });
      expect(res.json.spec.replicas).toBe(0);
    });
  });

  describe('service defaulting and allocation', () => {
    const service = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name },
      spec,
    });
    const path = () => `/api/v1/namespaces/${ns}/services`;

    it('defaults type, sessionAffinity, port protocol and targetPort, and allocates a cluster IP', async () => {
      const res = await create(
        path(),
        service('plain', {
          selector: { a: 'b' },
          ports: [
            { name: 'a', port: 80 },
            { name: 'x', port: 81, targetPort: 'http', protocol: 'UDP' },
          ],
        }),
      );
      const spec = res.json.spec;
      expect(spec.clusterIP).toMatch(IPV4);
      expect(spec.clusterIP).not.toBe('10.0.0.1');
      expect(spec).toEqual({
        ports: [
          { name: 'a', protocol: 'TCP', port: 80, targetPort: 80 },
          { name: 'x', protocol: 'UDP', port: 81, targetPort: 'http' },
        ],
        selector: { a: 'b' },
        clusterIP: spec.clusterIP,
        clusterIPs: [spec.clusterIP],
        type: 'ClusterIP',
        sessionAffinity: 'None',
      });
      expect(res.json.status).toEqual({ loadBalancer: {} });
    });

    it('keeps headless and ExternalName services without a cluster IP', async () => {
      const headless = await create(
        path(),
        service('headless', { clusterIP: 'None', ports: [{ port: 80 }] }),
      );
      expect(headless.json.spec).toEqual({
        ports: [{ protocol: 'TCP', port: 80, targetPort: 80 }],
        clusterIP: 'None',
        clusterIPs: ['None'],
        type: 'ClusterIP',
        sessionAffinity: 'None',
      });
      const external = await create(
        path(),
        service('external', { type: 'ExternalName', externalName: 'x.example' }),
      );
      expect(external.json.spec).toEqual({
        type: 'ExternalName',
        sessionAffinity: 'None',
        externalName: 'x.example',
      });
    });

    it('allocates node ports in 30000–32767 and refuses taken or out-of-range ones and cluster IPs (422)', async () => {
      const nodePort = await create(
        path(),
        service('np', { type: 'NodePort', ports: [{ port: 80 }] }),
      );
      const port = nodePort.json.spec.ports[0].nodePort;
      expect(port).toBeGreaterThanOrEqual(30000);
      expect(port).toBeLessThanOrEqual(32767);
      expect(nodePort.json.spec.externalTrafficPolicy).toBe('Cluster');
      let res = await call('POST', path(), {
        body: service('np2', { type: 'LoadBalancer', ports: [{ port: 80, nodePort: port }] }),
      });
      expectFailure(res, 422, {
        reason: 'Invalid',
        message: `Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: ${port}: provided port is already allocated`,
      });
      res = await call('POST', path(), {
        body: service('np3', { type: 'NodePort', ports: [{ port: 80, nodePort: 20000 }] }),
      });
      expectFailure(res, 422, {
        message:
          'Service "np3" is invalid: spec.ports[0].nodePort: Invalid value: 20000: provided port is not in the valid range. The range of valid ports is 30000-32767',
      });
      const ip = nodePort.json.spec.clusterIP;
      res = await call('POST', path(), {
        body: service('ip2', { clusterIP: ip, ports: [{ port: 80 }] }),
      });
      expectFailure(res, 422, {
        message: `Service "ip2" is invalid: spec.clusterIPs: Invalid value: []string{"${ip}"}: failed to allocated ip:${ip} with error:provided IP is already allocated`,
        details: {
          name: 'ip2',
          kind: 'Service',
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: `Invalid value: []string{"${ip}"}: failed to allocated ip:${ip} with error:provided IP is already allocated`,
              field: 'spec.clusterIPs',
            },
          ],
        },
      });
      res = await call('POST', path(), {
        body: service('ip3', { clusterIP: '10.9.0.1', ports: [{ port: 80 }] }),
      });
      expectFailure(res, 422, {
        message:
          'Service "ip3" is invalid: spec.clusterIPs: Invalid value: []string{"10.9.0.1"}: failed to allocated ip:10.9.0.1 with error:provided IP is not in the valid range. The range of valid IPs is 10.0.0.0/24',
      });
      // A deleted Service's addresses are free again.
      await call('DELETE', `${path()}/np`);
      const again = await create(
        path(),
        service('np4', { type: 'NodePort', clusterIP: ip, ports: [{ port: 80, nodePort: port }] }),
      );
      expect(again.json.spec.clusterIP).toBe(ip);
      expect(again.json.spec.ports[0].nodePort).toBe(port);
    });

    it('keeps the cluster IP and node ports on update', async () => {
      const created = await create(
        path(),
        service('kept', { type: 'NodePort', ports: [{ port: 80 }] }),
      );
      const res = await call('PUT', `${path()}/kept`, {
        body: { ...created.json, metadata: { ...created.json.metadata, labels: { x: 'y' } } },
      });
      expect(res.status).toBe(200);
      expect(res.json.spec.clusterIP).toBe(created.json.spec.clusterIP);
      expect(res.json.spec.ports).toEqual(created.json.spec.ports);
    });
  });
}
