// The deploy manifests (node src/manifests.ts): with the webhooks, the Service in front of the
// webhook server, the configurations and the CRD's conversion pointing at it, cert-manager's
// Issuer and Certificate whose CA is injected into all three, and the Deployment serving the
// certificate's Secret on the webhook port; without them (--no-webhooks), none of it.
// src/rbac.e2e.test.ts applies the manifests without webhooks to kube-apiserver.

import { describe, expect, it } from 'vitest';
import { deploymentArgs, mydemoManifests, webhookCertDir, webhookObjects } from './manifests.ts';

const namespace = 'mydemo-system';
type Manifest = Record<string, unknown> & {
  kind?: string;
  metadata?: { name?: string; annotations?: Record<string, string> };
};

async function objectsByKind(webhooks: boolean): Promise<Map<string, Manifest>> {
  const files = await mydemoManifests(namespace, 'mydemo-operator:1.0', { webhooks });
  const objects = files.flatMap((f) => f.objects as Manifest[]);
  return new Map(objects.map((o) => [o.kind ?? '', o]));
}

describe('the deploy manifests', () => {
  it('serve the webhooks through a Service, with a cert-manager certificate', async () => {
    const files = await mydemoManifests(namespace, 'mydemo-operator:1.0');
    expect(files.map((f) => f.path)).toEqual([
      'namespace.yaml',
      'crds/mydemos.crddemo.k8s.io.yaml',
      'rbac.yaml',
      'deployment.yaml',
      'webhook.yaml',
      'certificate.yaml',
      'kustomization.yaml',
    ]);
    const objects = await objectsByKind(true);
    expect((objects.get('Kustomization') as { resources: string[] }).resources).toEqual(
      files.slice(0, -1).map((f) => f.path),
    );
    const service = { namespace, name: webhookObjects.service };
    const injectCa = {
      'cert-manager.io/inject-ca-from': `${namespace}/${webhookObjects.certificate}`,
    };
    expect(objects.get('MutatingWebhookConfiguration')).toMatchObject({
      metadata: { name: 'mydemo-operator', annotations: injectCa },
      webhooks: [
        {
          name: 'mmydemo.crddemo.k8s.io',
          clientConfig: { service: { ...service, path: '/mutate-crddemo-k8s-io-v1-mydemo' } },
          failurePolicy: 'Fail',
          rules: [{ apiGroups: ['crddemo.k8s.io'], apiVersions: ['v1'], resources: ['mydemos'] }],
        },
      ],
    });
    expect(objects.get('ValidatingWebhookConfiguration')).toMatchObject({
      metadata: { annotations: injectCa },
      webhooks: [
        {
          name: 'vmydemo.crddemo.k8s.io',
          clientConfig: { service: { ...service, path: '/validate-crddemo-k8s-io-v1-mydemo' } },
        },
      ],
    });
    expect(objects.get('CustomResourceDefinition')).toMatchObject({
      metadata: { annotations: injectCa },
      spec: {
        conversion: {
          strategy: 'Webhook',
          webhook: { clientConfig: { service: { ...service, path: '/convert' } } },
        },
      },
    });
    expect(objects.get('Service')).toMatchObject({
      metadata: service,
      spec: { ports: [{ port: 443, targetPort: 'webhook-server' }] },
    });
    expect(objects.get('Certificate')).toMatchObject({
      spec: {
        dnsNames: [
          `${webhookObjects.service}.${namespace}.svc`,
          `${webhookObjects.service}.${namespace}.svc.cluster.local`,
        ],
        secretName: webhookObjects.secret,
      },
    });
    const pod = (objects.get('Deployment') as { spec: { template: { spec: PodSpec } } }).spec
      .template.spec;
    const container = pod.containers[0];
    expect(container?.args).toEqual(deploymentArgs(namespace));
    expect(container?.args).toContain('--enable-webhooks');
    expect(container?.ports).toContainEqual({
      name: 'webhook-server',
      containerPort: 9443,
      protocol: 'TCP',
    });
    expect(container?.volumeMounts).toContainEqual({
      name: 'webhook-cert',
      mountPath: webhookCertDir,
      readOnly: true,
    });
    expect(pod.volumes).toContainEqual({
      name: 'webhook-cert',
      secret: { secretName: webhookObjects.secret },
    });
  });

  it('leave the webhooks out with --no-webhooks', async () => {
    const objects = await objectsByKind(false);
    for (const kind of [
      'MutatingWebhookConfiguration',
      'ValidatingWebhookConfiguration',
      'Service',
      'Certificate',
      'Issuer',
    ]) {
      expect(objects.has(kind), kind).toBe(false);
    }
    expect(objects.get('CustomResourceDefinition')?.spec).not.toHaveProperty('conversion');
    expect(JSON.stringify(objects.get('Deployment'))).not.toContain('webhook');
  });
});

interface PodSpec {
  containers: {
    args?: string[];
    ports?: object[];
    volumeMounts?: object[];
  }[];
  volumes?: object[];
}
