import { beforeAll, describe, expect, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
import { cm, contractCalls, expectFailure } from './contract-helpers.js';
import { defineDataValidationContract } from './contract-validation-data.js';
import { definePodSpecValidationContract } from './contract-validation-pod.js';
import { defineServiceValidationContract } from './contract-validation-services.js';
import { defineWorkloadValidationContract } from './contract-validation-workloads.js';
import {
  type Cause,
  DNS_LABEL,
  DNS1035,
  expectInvalid,
  invalid,
  LABEL_VALUE,
  QUALIFIED,
  required,
  SUBDOMAIN,
} from './validation-causes.js';

/**
 * Validation of built-in objects (issue 18 item 1): the 422 Invalid Status and its
 * `details.causes`, as kube-apiserver 1.20 gives them, on create and update.
 * docs/embedded-server.md names these tests.
 */

const pod = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec,
});

export function defineValidationContract(getTarget: () => ContractEndpoint): void {
  const { call, create, newNamespace } = contractCalls(getTarget);
  let ns: string;
  beforeAll(async () => {
    ns = await newNamespace('valid');
  });

  describe('validation of names', () => {
    it('checks generateName, then the generated name; namespaces are DNS labels, services DNS-1035', async () => {
      const res = await call('POST', `/api/v1/namespaces/${ns}/pods`, {
        body: {
          ...pod('', { containers: [{ name: 'c', image: 'x' }] }),
          metadata: { generateName: 'Bad_' },
        },
      });
      expect(res.status).toBe(422);
      const name = String((res.json.details as { name: string }).name);
      expect(name).toMatch(/^Bad_[a-z0-9]{5}$/);
      expectInvalid(res, 'Pod', name, [
        invalid('metadata.generateName', 'Bad_', SUBDOMAIN),
        invalid('metadata.name', name, SUBDOMAIN),
      ]);
      const nsRes = await call('POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a.b' } },
      });
      expectInvalid(nsRes, 'Namespace', 'a.b', [invalid('metadata.name', 'a.b', DNS_LABEL)]);
      const svc = await call('POST', `/api/v1/namespaces/${ns}/services`, {
        body: {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: '1ab' },
          spec: { ports: [{ port: 80 }] },
        },
      });
      expectInvalid(svc, 'Service', '1ab', [invalid('metadata.name', '1ab', DNS1035)]);
      const ok = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'ok-' } },
      });
      expect(ok.status).toBe(201);
    });
  });

  describe('validation of labels and annotations', () => {
    it('refuses bad label keys and values and annotation keys on create (422)', async () => {
      const cases: [Record<string, unknown>, Cause][] = [
        [
          { labels: { 'bad key': 'x' } },
          invalid('metadata.labels', 'bad key', `name part ${QUALIFIED}`),
        ],
        [{ labels: { ok: 'bad value!' } }, invalid('metadata.labels', 'bad value!', LABEL_VALUE)],
        [
          { labels: { 'a/b/c': 'v' } },
          invalid(
            'metadata.labels',
            'a/b/c',
            `a qualified name ${QUALIFIED} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
          ),
        ],
        [
          { labels: { ['k'.repeat(64)]: 'v' } },
          invalid(
            'metadata.labels',
            'k'.repeat(64),
            'name part must be no more than 63 characters',
          ),
        ],
        [
          { labels: { k: 'v'.repeat(64) } },
          invalid('metadata.labels', 'v'.repeat(64), 'must be no more than 63 characters'),
        ],
        [
          { annotations: { 'Bad_/x': '1' } },
          invalid('metadata.annotations', 'Bad_/x', `prefix part ${SUBDOMAIN}`),
        ],
        [
          { annotations: { a: 'x'.repeat(256 * 1024) } },
          {
            reason: 'FieldValueTooLong',
            message: 'Too long: must have at most 262144 bytes',
            field: 'metadata.annotations',
          },
        ],
      ];
      for (const [metadata, cause] of cases) {
        const res = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
          body: cm('bad', { metadata }),
        });
        expectInvalid(res, 'ConfigMap', 'bad', [cause]);
      }
    });

    it('lists a bad label four times on a core update, three times on a deployment', async () => {
      const made = await create(`/api/v1/namespaces/${ns}/configmaps`, cm('relabel'));
      const body = {
        ...made.json,
        metadata: { ...(made.json.metadata as object), labels: { '-x': 'y' } },
      };
      const cause = invalid('metadata.labels', '-x', `name part ${QUALIFIED}`);
      const res = await call('PUT', `/api/v1/namespaces/${ns}/configmaps/relabel`, { body });
      expectInvalid(res, 'ConfigMap', 'relabel', [cause, cause, cause, cause]);
      const deployment = await create(`/apis/apps/v1/namespaces/${ns}/deployments`, {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'relabel' },
        spec: {
          selector: { matchLabels: { a: 'b' } },
          template: {
            metadata: { labels: { a: 'b' } },
            spec: { containers: [{ name: 'c', image: 'x' }] },
          },
        },
      });
      const next = {
        ...deployment.json,
        metadata: { ...(deployment.json.metadata as object), labels: { '-x': 'y' } },
      };
      const dres = await call('PUT', `/apis/apps/v1/namespaces/${ns}/deployments/relabel`, {
        body: next,
      });
      expectInvalid(dres, 'Deployment.apps', 'relabel', [cause, cause, cause]);
    });
  });

  describe('validation of pods', () => {
    it('requires containers', async () => {
      const res = await call('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('p', {}) });
      expectInvalid(res, 'Pod', 'p', [required('spec.containers')]);
    });

    it('checks container names, images and restartPolicy, in the real server’s order', async () => {
      const res = await call('POST', `/api/v1/namespaces/${ns}/pods`, {
        body: pod('p', {
          restartPolicy: 'Sometimes',
          initContainers: [{ name: 'c' }],
          containers: [{ name: 'c' }, { name: 'Bad_Name', image: 'x' }],
        }),
      });
      expectInvalid(res, 'Pod', 'p', [
        required('spec.containers[0].image'),
        invalid('spec.containers[1].name', 'Bad_Name', DNS_LABEL),
        required('spec.initContainers[0].image'),
        {
          reason: 'FieldValueDuplicate',
          message: 'Duplicate value: "c"',
          field: 'spec.initContainers[0].name',
        },
        {
          reason: 'FieldValueNotSupported',
          message:
            'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
          field: 'spec.restartPolicy',
        },
      ]);
    });

    it('requires a container name and requests ≤ limits', async () => {
      const res = await call('POST', `/api/v1/namespaces/${ns}/pods`, {
        body: pod('p', {
          containers: [
            {
              name: '',
              image: 'x',
              resources: { requests: { memory: '2Gi' }, limits: { memory: '1Gi' } },
            },
            {
              name: 'b',
              image: 'x',
              resources: { requests: { cpu: '1500m' }, limits: { cpu: '1' } },
            },
            {
              name: 'c',
              image: 'x',
              resources: { requests: { cpu: '500m' }, limits: { cpu: '1' } },
            },
          ],
        }),
      });
      expectInvalid(res, 'Pod', 'p', [
        required('spec.containers[0].name'),
        invalid(
          'spec.containers[0].resources.requests',
          '2Gi',
          'must be less than or equal to memory limit',
        ),
        invalid(
          'spec.containers[1].resources.requests',
          '1500m',
          'must be less than or equal to cpu limit',
        ),
      ]);
    });

    it('refuses pod spec changes other than images on update (the diff kube-apiserver appends is not reproduced)', async () => {
      const made = await create(
        `/api/v1/namespaces/${ns}/pods`,
        pod('fixed', { containers: [{ name: 'c', image: 'x' }] }),
      );
      const base = made.json as { metadata: object; spec: object };
      const changed = {
        ...base,
        spec: {
          ...base.spec,
          containers: [{ name: 'c', image: 'y', ports: [{ containerPort: 80 }] }],
        },
      };
      const res = await call('PUT', `/api/v1/namespaces/${ns}/pods/fixed`, { body: changed });
      const prefix =
        'Forbidden: pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or `spec.tolerations` (only additions to existing tolerations)\n';
      expectFailure(res, 422, { reason: 'Invalid', details: { name: 'fixed', kind: 'Pod' } });
      const causes = (res.json.details as { causes: Cause[] }).causes;
      expect(causes).toHaveLength(1);
      expect(causes[0]).toMatchObject({ reason: 'FieldValueForbidden', field: 'spec' });
      expect(causes[0]?.message.startsWith(prefix)).toBe(true);
      expect(String(res.json.message).startsWith(`Pod "fixed" is invalid: spec: ${prefix}`)).toBe(
        true,
      );
      const image = { ...base, spec: { ...base.spec, containers: [{ name: 'c', image: 'y' }] } };
      const ok = await call('PUT', `/api/v1/namespaces/${ns}/pods/fixed`, { body: image });
      expect(ok.status).toBe(200);
    });
  });

  describe('validation of deployments and services', () => {
    const deployment = (spec: Record<string, unknown>) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec,
    });
    const template = (
      labels: Record<string, string>,
      containers: unknown[] = [{ name: 'c', image: 'x' }],
    ) => ({
      metadata: { labels },
      spec: { containers },
    });

    it('checks replicas ≥ 0, the selector and the template', async () => {
      const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
      const notMatching = {
        reason: 'FieldValueInvalid',
        message:
          'Invalid value: map[string]string{"a":"c"}: `selector` does not match template `labels`',
        field: 'spec.template.metadata.labels',
      };
      let res = await call('POST', path, {
        body: deployment({
          replicas: -1,
          selector: { matchLabels: { a: 'b' } },
          template: template({ a: 'c' }),
        }),
      });
      expectInvalid(res, 'Deployment.apps', 'd', [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: -1: must be greater than or equal to 0',
          field: 'spec.replicas',
        },
        notMatching,
      ]);
      res = await call('POST', path, { body: deployment({ template: template({ a: 'c' }) }) });
      expectInvalid(res, 'Deployment.apps', 'd', [required('spec.selector'), notMatching]);
      res = await call('POST', path, {
        body: deployment({ selector: {}, template: template({ a: 'b' }) }),
      });
      expectInvalid(res, 'Deployment.apps', 'd', [
        {
          reason: 'FieldValueInvalid',
          message:
            'Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
          field: 'spec.selector',
        },
      ]);
      res = await call('POST', path, {
        body: deployment({
          selector: { matchLabels: { a: 'b' } },
          template: template({ a: 'b' }, []),
        }),
      });
      expectInvalid(res, 'Deployment.apps', 'd', [required('spec.template.spec.containers')]);
    });

    it('checks service ports: required, names, range, protocol', async () => {
      const path = `/api/v1/namespaces/${ns}/services`;
      const svc = (spec: Record<string, unknown>) => ({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 's' },
        spec,
      });
      const range = (field: string, value: number): Cause => ({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${value}: must be between 1 and 65535, inclusive`,
        field,
      });
      let res = await call('POST', path, { body: svc({}) });
      expectInvalid(res, 'Service', 's', [required('spec.ports')]);
      res = await call('POST', path, {
        body: svc({ ports: [{ port: 0, protocol: 'FOO' }, { port: 70000 }] }),
      });
      expectInvalid(res, 'Service', 's', [
        required('spec.ports[0].name'),
        range('spec.ports[0].port', 0),
        {
          reason: 'FieldValueNotSupported',
          message: 'Unsupported value: "FOO": supported values: "SCTP", "TCP", "UDP"',
          field: 'spec.ports[0].protocol',
        },
        range('spec.ports[0].targetPort', 0),
        required('spec.ports[1].name'),
        range('spec.ports[1].port', 70000),
        range('spec.ports[1].targetPort', 70000),
      ]);
      res = await call('POST', path, {
        body: svc({
          ports: [
            { name: 'a', port: 80 },
            { name: 'a', port: 81 },
          ],
        }),
      });
      expectInvalid(res, 'Service', 's', [
        {
          reason: 'FieldValueDuplicate',
          message: 'Duplicate value: "a"',
          field: 'spec.ports[1].name',
        },
      ]);
      res = await call('POST', path, {
        body: svc({ ports: [{ port: 80 }, { name: 'B', port: 81 }] }),
      });
      expectInvalid(res, 'Service', 's', [
        required('spec.ports[0].name'),
        invalid('spec.ports[1].name', 'B', DNS_LABEL),
      ]);
    });
  });

  defineDataValidationContract(getTarget);
  definePodSpecValidationContract(getTarget);
  defineWorkloadValidationContract(getTarget);
  defineServiceValidationContract(getTarget);
}
