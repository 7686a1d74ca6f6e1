import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  closedPort,
  startTestWebhookServer,
  type TestWebhookServer,
} from './admission-webhook-server.js';
import type { ContractEndpoint } from './contract-client.js';
import { convertHosts, hostsCrd } from './contract-conversion-webhooks.js';
import { cm, contractCalls, expectFailure, suffix } from './contract-helpers.js';

const REGISTRATION = '/apis/admissionregistration.k8s.io/v1';
/** Label of the ConfigMaps that show a configuration is in effect (never sent to test webhooks). */
const PROBE = 'contract-probe';

type Webhook = Record<string, unknown>;

/**
 * Admission webhooks as kube-apiserver 1.20 calls them, against a webhook server of the test's
 * own on 127.0.0.1. Webhook configurations are cluster-wide: each test's only match objects in
 * a namespace labelled for that test, and are deleted when it ends.
 */
export function defineAdmissionWebhooksContract(getTarget: () => ContractEndpoint): void {
  const { call, create, newNamespace, eventually } = contractCalls(getTarget);
  let hooks: TestWebhookServer;
  beforeAll(async () => {
    hooks = await startTestWebhookServer();
  });
  afterAll(async () => {
    await hooks?.stop();
  });

  /** A namespace labelled `contract-webhooks: <its name>`. */
  const labelledNamespace = async (): Promise<string> => {
    const ns = await newNamespace('webhooks');
    const res = await call('PATCH', `/api/v1/namespaces/${ns}`, {
      body: { metadata: { labels: { 'contract-webhooks': ns } } },
      contentType: 'application/merge-patch+json',
    });
    expect(res.status).toBe(200);
    return ns;
  };

  /** A v1 webhook on ConfigMap creates, calling `path` on the test server. */
  const webhook = (name: string, path: string, extra: Webhook = {}): Webhook => ({
    name: `${name}.contract.kubets.io`,
    clientConfig: { url: hooks.url(path), caBundle: hooks.caBundle },
    rules: [
      { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
    ],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  });

  /**
   * Creates a configuration whose webhooks match only in `ns` (and never the probes), waits
   * until the server calls it (kube-apiserver loads configurations asynchronously), and
   * deletes it when the test ends.
   */
  const install = async (
    kind: 'Validating' | 'Mutating',
    ns: string,
    webhooks: Webhook[],
  ): Promise<string> => {
    const name = `contract-${ns}-${suffix()}`;
    const scoped = webhooks.map((hook) => ({
      namespaceSelector: { matchLabels: { 'contract-webhooks': ns } },
      objectSelector: { matchExpressions: [{ key: PROBE, operator: 'DoesNotExist' }] },
      ...hook,
    }));
    const probePath = `/probe/${name}`;
    const probe = webhook('probe', probePath, {
      namespaceSelector: { matchLabels: { 'contract-webhooks': ns } },
      objectSelector: { matchLabels: { [PROBE]: name } },
    });
    const plural = `${kind.toLowerCase()}webhookconfigurations`;
    await create(`${REGISTRATION}/${plural}`, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: `${kind}WebhookConfiguration`,
      metadata: { name },
      webhooks: [...scoped, probe],
    });
    onTestFinished(async () => {
      await call('DELETE', `${REGISTRATION}/${plural}/${name}`);
    });
    await eventually(async () => {
      await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: cm('', { metadata: { generateName: 'probe-', labels: { [PROBE]: name } } }),
      });
      return hooks.calls(probePath).length > 0;
    }, true);
    return name;
  };

  describe('webhook configurations', () => {
    it('stores a ValidatingWebhookConfiguration with the v1 defaults', async () => {
      const name = `contract-defaults-${suffix()}`;
      const rule = {
        operations: ['CREATE'],
        apiGroups: ['contract.kubets.io'],
        apiVersions: ['v1'],
        resources: ['nothings'],
      };
      const hook = {
        name: 'defaults.contract.kubets.io',
        clientConfig: { url: 'https://127.0.0.1:1/never' },
        rules: [rule],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      };
      const res = await create(`${REGISTRATION}/validatingwebhookconfigurations`, {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name },
        webhooks: [hook],
      });
      onTestFinished(async () => {
        await call('DELETE', `${REGISTRATION}/validatingwebhookconfigurations/${name}`);
      });
      // Compared as JSON text: the defaults come in Go's field order.
      expect(JSON.stringify(res.json.webhooks[0])).toBe(
        JSON.stringify({
          name: hook.name,
          clientConfig: hook.clientConfig,
          rules: [{ ...rule, scope: '*' }],
          failurePolicy: 'Fail',
          matchPolicy: 'Equivalent',
          namespaceSelector: {},
          objectSelector: {},
          sideEffects: 'None',
          timeoutSeconds: 10,
          admissionReviewVersions: ['v1'],
        }),
      );
    });

    it('stores a MutatingWebhookConfiguration with reinvocationPolicy Never by default', async () => {
      const name = `contract-defaults-${suffix()}`;
      const res = await create(`${REGISTRATION}/mutatingwebhookconfigurations`, {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name },
        webhooks: [
          {
            name: 'defaults.contract.kubets.io',
            clientConfig: { url: 'https://127.0.0.1:1/never' },
            sideEffects: 'NoneOnDryRun',
            admissionReviewVersions: ['v1beta1', 'v1'],
          },
        ],
      });
      onTestFinished(async () => {
        await call('DELETE', `${REGISTRATION}/mutatingwebhookconfigurations/${name}`);
      });
      expect(res.json.webhooks[0]).toMatchObject({
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        timeoutSeconds: 10,
        reinvocationPolicy: 'Never',
      });
    });
  });

  describe('webhook configuration validation', () => {
    const refused = async (webhooks: Webhook[]) => {
      const name = `contract-invalid-${suffix()}`;
      const res = await call('POST', `${REGISTRATION}/validatingwebhookconfigurations`, {
        body: {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name },
          webhooks,
        },
      });
      if (res.status === 201) {
        await call('DELETE', `${REGISTRATION}/validatingwebhookconfigurations/${name}`);
      }
      expect(res.status).toBe(422);
      expect(res.json.reason).toBe('Invalid');
      return { name, res };
    };

    it('requires sideEffects, admissionReviewVersions, a qualified name and one client', async () => {
      const { name, res } = await refused([{ name: 'short', clientConfig: {} }]);
      expect(res.json.message).toBe(
        `ValidatingWebhookConfiguration.admissionregistration.k8s.io "${name}" is invalid: [webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots, webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun, webhooks[0].clientConfig: Required value: exactly one of url or service is required, webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1]`,
      );
    });

    it('checks policies, timeouts, URLs, rules and duplicate names', async () => {
      const base = {
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        clientConfig: { url: 'https://127.0.0.1:1/ok' },
      };
      const { res } = await refused([
        {
          ...base,
          name: 'a.contract.kubets.io',
          failurePolicy: 'Sometimes',
          timeoutSeconds: 31,
          sideEffects: 'Some',
          clientConfig: { url: 'http://127.0.0.1:1/x?y=1' },
        },
        {
          ...base,
          name: 'a.contract.kubets.io',
          matchPolicy: 'Loose',
          admissionReviewVersions: ['v2'],
          rules: [
            {
              operations: ['*', 'CREATE'],
              apiGroups: [],
              apiVersions: ['v1'],
              resources: ['*', 'pods'],
              scope: 'Everywhere',
            },
          ],
        },
      ]);
      expect(res.json.details.causes).toEqual([
        {
          reason: 'FieldValueNotSupported',
          message: 'Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
          field: 'webhooks[0].failurePolicy',
        },
        {
          reason: 'FieldValueNotSupported',
          message: 'Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
          field: 'webhooks[0].sideEffects',
        },
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 31: the timeout value must be between 1 and 30 seconds',
          field: 'webhooks[0].timeoutSeconds',
        },
        {
          reason: 'FieldValueInvalid',
          message:
            'Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]',
          field: 'webhooks[0].clientConfig.url',
        },
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: "y=1": query parameters are not permitted in the URL',
          field: 'webhooks[0].clientConfig.url',
        },
        {
          reason: 'FieldValueInvalid',
          message:
            'Invalid value: []admissionregistration.OperationType{"*", "CREATE"}: if \'*\' is present, must not specify other operations',
          field: 'webhooks[1].rules[0].operations',
        },
        {
          reason: 'FieldValueRequired',
          message: 'Required value',
          field: 'webhooks[1].rules[0].apiGroups',
        },
        {
          reason: 'FieldValueInvalid',
          message:
            'Invalid value: []string{"*", "pods"}: if \'*\' is present, must not specify other resources without subresources',
          field: 'webhooks[1].rules[0].resources',
        },
        {
          reason: 'FieldValueNotSupported',
          message:
            'Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"',
          field: 'webhooks[1].rules[0].scope',
        },
        {
          reason: 'FieldValueNotSupported',
          message: 'Unsupported value: "Loose": supported values: "Equivalent", "Exact"',
          field: 'webhooks[1].matchPolicy',
        },
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
          field: 'webhooks[1].admissionReviewVersions',
        },
        {
          reason: 'FieldValueDuplicate',
          message: 'Duplicate value: "a.contract.kubets.io"',
          field: 'webhooks[1].name',
        },
      ]);
    });
  });

  describe('validating webhooks', () => {
    it('sends the AdmissionReview of a create and refuses with the webhook status', async () => {
      const ns = await labelledNamespace();
      const path = `/${ns}/deny`;
      hooks.handle(path, (request) => ({
        allowed: request.object?.data?.ok === 'yes',
        status: { code: 403, reason: 'Forbidden', message: 'data.ok must be yes' },
      }));
      await install('Validating', ns, [webhook('deny', path)]);

      const denied = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: cm('refused', { data: { ok: 'no' } }),
      });
      expectFailure(denied, 403, {
        reason: 'Forbidden',
        message:
          'admission webhook "deny.contract.kubets.io" denied the request: data.ok must be yes',
      });
      expect((await call('GET', `/api/v1/namespaces/${ns}/configmaps/refused`)).status).toBe(404);

      const call0 = hooks.calls(path).at(-1);
      expect(call0?.apiVersion).toBe('admission.k8s.io/v1');
      expect(call0?.query.get('timeout')).toBe('10s');
      const request = call0?.request;
      expect(typeof request.uid).toBe('string');
      expect(request).toMatchObject({
        kind: { group: '', version: 'v1', kind: 'ConfigMap' },
        resource: { group: '', version: 'v1', resource: 'configmaps' },
        requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
        requestResource: { group: '', version: 'v1', resource: 'configmaps' },
        name: 'refused',
        namespace: ns,
        operation: 'CREATE',
        object: { apiVersion: 'v1', kind: 'ConfigMap', data: { ok: 'no' } },
        oldObject: null,
        dryRun: false,
        options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
      });
      expect(request.subResource).toBeUndefined();
      expect(typeof request.userInfo.username).toBe('string');
      expect(request.object.metadata).toMatchObject({ name: 'refused', namespace: ns });
      expect(typeof request.object.metadata.uid).toBe('string');

      const allowed = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: cm('allowed', { data: { ok: 'yes' } }),
      });
      expect(allowed.status).toBe(201);
    });

    it('words a denial without a message as made "without explanation", with code 400', async () => {
      const ns = await labelledNamespace();
      const path = `/${ns}/silent`;
      hooks.handle(path, () => ({ allowed: false }));
      await install('Validating', ns, [webhook('silent', path)]);
      const denied = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: cm('refused'),
      });
      expectFailure(denied, 400, {
        message:
          'admission webhook "silent.contract.kubets.io" denied the request without explanation',
      });
    });

    it('sends updates with the old object, patches as UPDATE, deletes with only the old object', async () => {
      const ns = await labelledNamespace();
      const path = `/${ns}/record`;
      await install('Validating', ns, [
        webhook('record', path, {
          rules: [
            {
              operations: ['UPDATE', 'DELETE'],
              apiGroups: [''],
              apiVersions: ['v1'],
              resources: ['configmaps'],
            },
          ],
        }),
      ]);
      await create(`/api/v1/namespaces/${ns}/configmaps`, cm('watched', { data: { a: '1' } }));
      expect(hooks.calls(path)).toHaveLength(0);
      const current = await call('GET', `/api/v1/namespaces/${ns}/configmaps/watched`);
      const put = await call('PUT', `/api/v1/namespaces/${ns}/configmaps/watched`, {
        body: { ...current.json, data: { a: '2' } },
      });
      expect(put.status).toBe(200);
      const update = hooks.calls(path).at(-1)?.request;
      expect(update).toMatchObject({
        operation: 'UPDATE',
        name: 'watched',
        object: { data: { a: '2' } },
        oldObject: { data: { a: '1' } },
        options: { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' },
      });

      const patch = await call('PATCH', `/api/v1/namespaces/${ns}/configmaps/watched`, {
        body: { data: { a: '3' } },
        contentType: 'application/merge-patch+json',
      });
      expect(patch.status).toBe(200);
      expect(hooks.calls(path).at(-1)?.request).toMatchObject({
        operation: 'UPDATE',
        object: { data: { a: '3' } },
        oldObject: { data: { a: '2' } },
        options: { kind: 'UpdateOptions' },
      });

      const del = await call('DELETE', `/api/v1/namespaces/${ns}/configmaps/watched`);
      expect(del.status).toBe(200);
      expect(hooks.calls(path).at(-1)?.request).toMatchObject({
        operation: 'DELETE',
        name: 'watched',
        object: null,
        oldObject: { data: { a: '3' } },
        options: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' },
      });
    });

    it('sends each object a deletecollection deletes (naming none), and refuses it with a denial', async () => {
      const ns = await labelledNamespace();
      const path = `/${ns}/keep`;
      hooks.handle(path, (request) => ({
        allowed: request.oldObject?.metadata.name !== 'keep',
        status: { message: 'keep stays' },
      }));
      await install('Validating', ns, [
        webhook('keep', path, {
          rules: [
            {
              operations: ['DELETE'],
              apiGroups: [''],
              apiVersions: ['v1'],
              resources: ['configmaps'],
            },
          ],
        }),
      ]);
      await create(
        `/api/v1/namespaces/${ns}/configmaps`,
        cm('keep', { metadata: { labels: { set: 'x' } } }),
      );
      const res = await call('DELETE', `/api/v1/namespaces/${ns}/configmaps?labelSelector=set%3Dx`);
      expectFailure(res, 400, {
        message: 'admission webhook "keep.contract.kubets.io" denied the request: keep stays',
      });
      expect(hooks.calls(path).at(-1)?.request.name).toBeUndefined();
      expect(hooks.calls(path).at(-1)?.request).toMatchObject({
        operation: 'DELETE',
        namespace: ns,
        object: null,
        oldObject: { metadata: { name: 'keep' } },
      });
      expect((await call('GET', `/api/v1/namespaces/${ns}/configmaps/keep`)).status).toBe(200);
    });

    it('calls only webhooks whose objectSelector matches the new or old labels', async () => {
      const ns = await labelledNamespace();
      const path = `/${ns}/selected`;
      hooks.handle(path, () => ({ allowed: false, status: { message: 'selected' } }));
      await install('Validating', ns, [
        webhook('selected', path, { objectSelector: { matchLabels: { guarded: 'true' } } }),
      ]);
      const free = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('free') });
      expect(free.status).toBe(201);
      const guarded = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: cm('guarded', { metadata: { labels: { guarded: 'true' } } }),
      });
      expectFailure(guarded, 400, {
        message: 'admission webhook "selected.contract.kubets.io" denied the request: selected',
      });
    });

    it('passes a dry run to side-effect-free webhooks, which see dryRun true', async () => {
      const ns = await labelledNamespace();
      const path = `/${ns}/dry`;
      await install('Validating', ns, [webhook('dry', path)]);
      const res = await call('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, {
        body: cm('dry'),
      });
      expect(res.status).toBe(201);
      expect(hooks.calls(path).at(-1)?.request).toMatchObject({
        dryRun: true,
        options: { kind: 'CreateOptions', dryRun: ['All'] },
      });
      expect((await call('GET', `/api/v1/namespaces/${ns}/configmaps/dry`)).status).toBe(404);
    });

    it('answers the webhook warnings as Warning headers', async () => {
      const ns = await labelledNamespace();
      const path = `/${ns}/warn`;
      hooks.handle(path, () => ({ allowed: true, warnings: ['first warning', 'second "quoted"'] }));
      await install('Validating', ns, [webhook('warn', path)]);
      const res = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('warned') });
      expect(res.status).toBe(201);
      expect(res.headers.warning).toBe('299 - "first warning", 299 - "second \\"quoted\\""');
    });
  });

  describe('failure policy', () => {
    it('fails the write when a Fail webhook cannot be reached, and ignores an Ignore one', async () => {
      const ns = await labelledNamespace();
      const port = await closedPort();
      const url = `https://127.0.0.1:${port}/down`;
      await install('Validating', ns, [
        webhook('ignored', '/unused', {
          clientConfig: { url, caBundle: hooks.caBundle },
          failurePolicy: 'Ignore',
        }),
      ]);
      const ignored = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: cm('through'),
      });
      expect(ignored.status).toBe(201);

      await install('Validating', ns, [
        webhook('down', '/unused', { clientConfig: { url, caBundle: hooks.caBundle } }),
      ]);
      const failed = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: cm('blocked'),
      });
      expectFailure(failed, 500, {
        reason: 'InternalError',
        message: `Internal error occurred: failed calling webhook "down.contract.kubets.io": Post "${url}?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
      });
    });

    it('fails the write when the webhook answers with another uid', async () => {
      const ns = await labelledNamespace();
      const path = `/${ns}/wrong-uid`;
      hooks.handle(path, (request) => ({
        raw: {
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: { uid: `not-${request.uid}`, allowed: true },
        },
      }));
      await install('Validating', ns, [webhook('uid', path)]);
      const failed = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('x') });
      expect(failed.status).toBe(500);
      const uid = hooks.calls(path).at(-1)?.request.uid;
      expect(failed.json.message).toBe(
        `Internal error occurred: failed calling webhook "uid.contract.kubets.io": expected response.uid="${uid}", got "not-${uid}"`,
      );
    });
  });

  describe('timeouts and subresources', () => {
    it('fails the write with the deadline when a Fail webhook does not answer in timeoutSeconds', async () => {
      const ns = await labelledNamespace();
      const path = `/${ns}/hang`;
      hooks.handle(path, (request) => (request.name === 'slow' ? { hang: true } : {}));
      await install('Validating', ns, [webhook('hang', path, { timeoutSeconds: 1 })]);
      const res = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('slow') });
      expectFailure(res, 500, {
        reason: 'InternalError',
        message: `Internal error occurred: failed calling webhook "hang.contract.kubets.io": Post "${hooks.url(path)}?timeout=1s": context deadline exceeded`,
      });
    });

    it('sends a status update to a rule naming the status subresource, and only that', async () => {
      const ns = await labelledNamespace();
      const path = `/${ns}/status`;
      hooks.handle(path, () => ({ allowed: false, status: { message: 'status is frozen' } }));
      await install('Validating', ns, [
        webhook('status', path, {
          rules: [
            {
              operations: ['UPDATE'],
              apiGroups: [''],
              apiVersions: ['v1'],
              resources: ['namespaces/status'],
            },
          ],
        }),
      ]);
      const current = await call('GET', `/api/v1/namespaces/${ns}`);
      const main = await call('PUT', `/api/v1/namespaces/${ns}`, {
        body: { ...current.json, metadata: { ...current.json.metadata, annotations: { a: 'b' } } },
      });
      expect(main.status).toBe(200);
      expect(hooks.calls(path)).toHaveLength(0);
      const status = await call('PUT', `/api/v1/namespaces/${ns}/status`, { body: main.json });
      expectFailure(status, 400, {
        message:
          'admission webhook "status.contract.kubets.io" denied the request: status is frozen',
      });
      expect(hooks.calls(path).at(-1)?.request).toMatchObject({
        operation: 'UPDATE',
        name: ns,
        namespace: ns,
        subResource: 'status',
        requestSubResource: 'status',
        resource: { group: '', version: 'v1', resource: 'namespaces' },
        kind: { group: '', version: 'v1', kind: 'Namespace' },
      });
    });
  });

  describe('custom resources converted through a webhook', () => {
    /**
     * A labelled namespace and a Hosts CRD converting through {@link convertHosts} on the test
     * webhook server: its group and its collections in the namespace.
     */
    const convertingHosts = async () => {
      const ns = await labelledNamespace();
      const convertPath = `/${ns}/convert`;
      hooks.handle(convertPath, (request) => ({ conversion: convertHosts(request) }));
      const group = `adm${suffix()}.contract.kubets.io`;
      await create(
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        hostsCrd(group, hooks.url(convertPath), hooks.caBundle),
      );
      onTestFinished(async () => {
        await call(
          'DELETE',
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/hosts.${group}`,
        );
      });
      const v1 = `/apis/${group}/v1/namespaces/${ns}/hosts`;
      const alpha = `/apis/${group}/v1alpha1/namespaces/${ns}/hosts`;
      for (const collection of [v1, alpha]) {
        await eventually(async () => (await call('GET', collection)).status === 200, true);
      }
      return { ns, group, v1, alpha };
    };

    it('sends a write at one version to webhooks at the versions their rules name', async () => {
      const { ns, group, alpha } = await convertingHosts();
      const hostRule = (version: string) => [
        {
          operations: ['CREATE'],
          apiGroups: [group],
          apiVersions: [version],
          resources: ['hosts'],
        },
      ];
      const labelPath = `/${ns}/label-host`;
      const portPath = `/${ns}/port`;
      hooks.handle(labelPath, () => ({
        patch: [{ op: 'add', path: '/metadata/labels/mutated', value: 'yes' }],
      }));
      hooks.handle(portPath, (request) => ({
        allowed: request.object.spec.port !== 1,
        status: { message: 'port 1 is reserved' },
      }));
      await install('Mutating', ns, [
        webhook('label-host', labelPath, { rules: hostRule('v1alpha1') }),
      ]);
      await install('Validating', ns, [webhook('port', portPath, { rules: hostRule('v1') })]);
      const host = (name: string, hostPort: string) => ({
        apiVersion: `${group}/v1alpha1`,
        kind: 'Host',
        metadata: { name, labels: { app: 'hosts' } },
        spec: { hostPort },
      });

      const denied = await call('POST', alpha, { body: host('reserved', '10.0.0.9:1') });
      expectFailure(denied, 400, {
        message:
          'admission webhook "port.contract.kubets.io" denied the request: port 1 is reserved',
      });
      expect(hooks.calls(labelPath).at(-1)?.request).toMatchObject({
        kind: { group, version: 'v1alpha1', kind: 'Host' },
        object: { apiVersion: `${group}/v1alpha1`, spec: { hostPort: '10.0.0.9:1' } },
      });
      expect(hooks.calls(portPath).at(-1)?.request).toMatchObject({
        kind: { group, version: 'v1', kind: 'Host' },
        resource: { group, version: 'v1', resource: 'hosts' },
        requestKind: { group, version: 'v1alpha1', kind: 'Host' },
        requestResource: { group, version: 'v1alpha1', resource: 'hosts' },
        object: {
          apiVersion: `${group}/v1`,
          metadata: { labels: { app: 'hosts', mutated: 'yes' } },
          spec: { ip: '10.0.0.9', port: 1 },
        },
      });

      const created = await call('POST', alpha, { body: host('web', '10.0.0.9:80') });
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({
        apiVersion: `${group}/v1alpha1`,
        metadata: { labels: { app: 'hosts', mutated: 'yes' } },
        spec: { hostPort: '10.0.0.9:80' },
      });
    });

    it('sends a delete at the other version with the old object at that version', async () => {
      const { ns, group, v1, alpha } = await convertingHosts();
      const guardPath = `/${ns}/guard`;
      hooks.handle(guardPath, (request) => ({
        allowed: !String(request.oldObject?.spec?.hostPort).endsWith(':22'),
        status: { message: 'ssh hosts stay' },
      }));
      await install('Validating', ns, [
        webhook('guard', guardPath, {
          rules: [
            {
              operations: ['DELETE'],
              apiGroups: [group],
              apiVersions: ['v1alpha1'],
              resources: ['hosts'],
            },
          ],
          matchPolicy: 'Exact',
        }),
      ]);
      const host = (name: string, spec: object) => ({
        apiVersion: `${group}/v1`,
        kind: 'Host',
        metadata: { name },
        spec,
      });
      await create(v1, host('ssh', { ip: '10.0.0.1', port: 22 }));
      await create(v1, host('web', { ip: '10.0.0.1', port: 80 }));

      const denied = await call('DELETE', `${alpha}/ssh`);
      expectFailure(denied, 400, {
        message: 'admission webhook "guard.contract.kubets.io" denied the request: ssh hosts stay',
      });
      expect(hooks.calls(guardPath).at(-1)?.request).toMatchObject({
        operation: 'DELETE',
        name: 'ssh',
        kind: { group, version: 'v1alpha1', kind: 'Host' },
        object: null,
        oldObject: { apiVersion: `${group}/v1alpha1`, spec: { hostPort: '10.0.0.1:22' } },
      });
      expect((await call('GET', `${v1}/ssh`)).status).toBe(200);
      expect((await call('DELETE', `${alpha}/web`)).status).toBe(200);
      expect(hooks.calls(guardPath).at(-1)?.request.oldObject.spec).toEqual({
        hostPort: '10.0.0.1:80',
      });
      // Deleted at v1, the rule (Exact, v1alpha1 only) does not match.
      expect((await call('DELETE', `${v1}/ssh`)).status).toBe(200);
    });
  });

  describe('mutating webhooks', () => {
    it('applies the JSON patch before validating webhooks and storage', async () => {
      const ns = await labelledNamespace();
      const mutatePath = `/${ns}/label`;
      const validatePath = `/${ns}/check`;
      hooks.handle(mutatePath, () => ({
        patch: [{ op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } }],
      }));
      await install('Mutating', ns, [webhook('label', mutatePath)]);
      await install('Validating', ns, [webhook('check', validatePath)]);
      const res = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: cm('patched'),
      });
      expect(res.status).toBe(201);
      expect(res.json.metadata.labels).toEqual({ mutated: 'yes' });
      const mutating = hooks.calls(mutatePath).at(-1)?.request;
      expect(mutating.object.metadata.labels).toBeUndefined();
      expect(mutating.object.metadata.uid).toBeUndefined();
      const validating = hooks.calls(validatePath).at(-1)?.request;
      expect(validating.object.metadata.labels).toEqual({ mutated: 'yes' });
      const stored = await call('GET', `/api/v1/namespaces/${ns}/configmaps/patched`);
      expect(stored.json.metadata.labels).toEqual({ mutated: 'yes' });
    });

    it('names a generated object only to validating webhooks, and sends deletes to mutating ones with the old object', async () => {
      const ns = await labelledNamespace();
      const mutatePath = `/${ns}/m`;
      const validatePath = `/${ns}/v`;
      const rules = [
        {
          operations: ['CREATE', 'DELETE'],
          apiGroups: [''],
          apiVersions: ['v1'],
          resources: ['configmaps'],
        },
      ];
      await install('Mutating', ns, [webhook('m', mutatePath, { rules })]);
      await install('Validating', ns, [webhook('v', validatePath, { rules })]);
      const res = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: cm('', { metadata: { generateName: 'gen-' } }),
      });
      expect(res.status).toBe(201);
      const name: string = res.json.metadata.name;
      const mutating = hooks.calls(mutatePath).at(-1)?.request;
      expect(mutating.name).toBeUndefined();
      expect(mutating.object.metadata.name).toBeUndefined();
      const validating = hooks.calls(validatePath).at(-1)?.request;
      expect(validating.name).toBe(name);
      expect(validating.object.metadata.name).toBe(name);

      const del = await call('DELETE', `/api/v1/namespaces/${ns}/configmaps/${name}`);
      expect(del.status).toBe(200);
      expect(hooks.calls(mutatePath).at(-1)?.request).toMatchObject({
        operation: 'DELETE',
        name,
        object: null,
        oldObject: { metadata: { name } },
      });
      expect(hooks.calls(validatePath).at(-1)?.request).toMatchObject({
        operation: 'DELETE',
        name,
        object: null,
        oldObject: { metadata: { name } },
      });
    });

    it('reinvokes an IfNeeded webhook once when a later webhook changed the object', async () => {
      const ns = await labelledNamespace();
      const first = `/${ns}/first`;
      const second = `/${ns}/second`;
      const never = `/${ns}/never`;
      hooks.handle(second, (request) =>
        request.object.metadata.labels?.second
          ? {}
          : { patch: [{ op: 'add', path: '/metadata/labels', value: { second: 'set' } }] },
      );
      await install('Mutating', ns, [
        webhook('first', first, { reinvocationPolicy: 'IfNeeded' }),
        webhook('never', never),
        webhook('second', second),
      ]);
      const before = { first: hooks.calls(first).length, never: hooks.calls(never).length };
      const res = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('again') });
      expect(res.status).toBe(201);
      expect(hooks.calls(first).length - before.first).toBe(2);
      expect(hooks.calls(never).length - before.never).toBe(1);
      expect(hooks.calls(first).at(-1)?.request.object.metadata.labels).toEqual({ second: 'set' });
    });

    it('refuses with the mutating webhook status before any validating webhook runs', async () => {
      const ns = await labelledNamespace();
      const mutatePath = `/${ns}/refuse`;
      const validatePath = `/${ns}/after`;
      hooks.handle(mutatePath, () => ({
        allowed: false,
        status: { code: 422, reason: 'Invalid', message: 'not like this' },
      }));
      await install('Mutating', ns, [webhook('refuse', mutatePath)]);
      await install('Validating', ns, [webhook('after', validatePath)]);
      const before = hooks.calls(validatePath).length;
      const res = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('nope') });
      expectFailure(res, 422, {
        reason: 'Invalid',
        message: 'admission webhook "refuse.contract.kubets.io" denied the request: not like this',
      });
      expect(hooks.calls(validatePath).length).toBe(before);
    });
  });
}
