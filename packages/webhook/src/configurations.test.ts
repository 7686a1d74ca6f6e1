import { describe, expect, it } from 'vitest';
import {
  type AdmissionRegistration,
  crdConversion,
  mutatingPath,
  rulesFor,
  validatingPath,
  webhookConfigurations,
} from './index.js';

const caBundlePem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const caBundle = Buffer.from(caBundlePem).toString('base64');
const mydemo = { group: 'demo.example.com', version: 'v1', kind: 'Mydemo', resource: 'mydemos' };

describe('webhook configurations', () => {
  it("names paths as controller-runtime's builder does", () => {
    expect(mutatingPath(mydemo)).toBe('/mutate-demo-example-com-v1-mydemo');
    expect(validatingPath(mydemo)).toBe('/validate-demo-example-com-v1-mydemo');
    expect(validatingPath({ group: '', version: 'v1', kind: 'Pod' })).toBe('/validate--v1-pod');
  });

  it('builds both configurations with the CA bundle, pointing at a URL or a Service', () => {
    const registrations: AdmissionRegistration[] = [
      {
        type: 'mutating',
        name: 'mmydemo.demo.example.com',
        path: mutatingPath(mydemo),
        rules: rulesFor(mydemo),
      },
      {
        type: 'validating',
        name: 'vmydemo.demo.example.com',
        path: validatingPath(mydemo),
        rules: rulesFor(mydemo, ['CREATE', 'UPDATE', 'DELETE']),
        failurePolicy: 'Ignore',
        timeoutSeconds: 5,
      },
    ];
    const byUrl = webhookConfigurations('mydemo', registrations, {
      caBundlePem,
      url: 'https://127.0.0.1:9443/',
    });
    expect(byUrl.mutating).toEqual({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'mydemo' },
      webhooks: [
        {
          name: 'mmydemo.demo.example.com',
          clientConfig: {
            caBundle,
            url: 'https://127.0.0.1:9443/mutate-demo-example-com-v1-mydemo',
          },
          rules: [
            {
              apiGroups: ['demo.example.com'],
              apiVersions: ['v1'],
              resources: ['mydemos'],
              operations: ['CREATE', 'UPDATE'],
            },
          ],
          failurePolicy: 'Fail',
          sideEffects: 'None',
          admissionReviewVersions: ['v1', 'v1beta1'],
          reinvocationPolicy: 'Never',
        },
      ],
    });
    expect(byUrl.validating?.webhooks?.[0]).toMatchObject({
      failurePolicy: 'Ignore',
      timeoutSeconds: 5,
    });
    const byService = webhookConfigurations('mydemo', registrations, {
      caBundlePem,
      service: { namespace: 'system', name: 'webhook-service' },
    });
    expect(byService.validating?.webhooks?.[0]?.clientConfig).toEqual({
      caBundle,
      service: {
        namespace: 'system',
        name: 'webhook-service',
        path: '/validate-demo-example-com-v1-mydemo',
      },
    });
  });

  it('leaves out a configuration with no webhooks, refuses duplicates and a CA that is not PEM, and leaves out a CA not given', () => {
    expect(webhookConfigurations('x', [], { caBundlePem, url: 'https://h' })).toEqual({});
    const one: AdmissionRegistration = { type: 'validating', name: 'v.x', path: '/v', rules: [] };
    expect(() => webhookConfigurations('x', [one, one], { caBundlePem, url: 'https://h' })).toThrow(
      'two validating webhooks are named v.x',
    );
    expect(() =>
      webhookConfigurations('x', [one], { caBundlePem: 'nope', url: 'https://h' }),
    ).toThrow('webhook target caBundlePem must be a PEM certificate');
    expect(() => webhookConfigurations('x', [one], { caBundlePem })).toThrow(
      'webhook target needs a service or a url',
    );
  });

  it("builds a CRD's conversion stanza", () => {
    expect(crdConversion({ caBundlePem, url: 'https://127.0.0.1:9443' })).toEqual({
      strategy: 'Webhook',
      webhook: {
        clientConfig: { caBundle, url: 'https://127.0.0.1:9443/convert' },
        conversionReviewVersions: ['v1', 'v1beta1'],
      },
    });
  });
});
