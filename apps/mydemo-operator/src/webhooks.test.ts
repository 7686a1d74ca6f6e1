// The operator's webhooks: the defaulter, the validator and the v1alpha1 conversion as
// functions, then issue 32's scenarios on the in-memory API server, which calls them over
// HTTPS as kube-apiserver does (src/webhooks.e2e.test.ts runs the same scenarios on
// kube-apiserver 1.20, and with kubectl on both).

import type { AdmissionContext, ConvertibleObject } from '@kubets/webhook';
import { describe, expect, it } from 'vitest';
import {
  clientWriter,
  useInMemoryWebhookEnv,
  webhookScenarios,
} from '../test/webhook-scenarios.ts';
import type { crddemoV1, crddemoV1alpha1 } from './generated/index.ts';
import { mydemoConverter, mydemoDefaulter, mydemoValidator } from './webhooks.ts';

/** `object` converted to `version` by the operator's converter. */
const convert = (object: object, version: string) =>
  mydemoConverter.convert(object as ConvertibleObject, version);

const context = {} as AdmissionContext;
const mydemo = (spec: crddemoV1.MydemoSpec): crddemoV1.Mydemo => ({
  apiVersion: 'crddemo.k8s.io/v1',
  kind: 'Mydemo',
  metadata: { name: 'web', namespace: 'default' },
  spec,
});

describe('mydemoDefaulter', () => {
  it('gives a Mydemo without an image, or with an empty one, the operator image', async () => {
    for (const spec of [{ port: 80 }, { port: 80, image: '' }]) {
      const object = mydemo(spec);
      await mydemoDefaulter('httpd:2.4').default(object, context);
      expect(object.spec).toEqual({ port: 80, image: 'httpd:2.4' });
    }
  });

  it('keeps an image the spec names, and defaults a Mydemo without a spec', async () => {
    const named = mydemo({ port: 80, image: 'nginx:1.27' });
    await mydemoDefaulter().default(named, context);
    expect(named.spec?.image).toBe('nginx:1.27');
    const bare: crddemoV1.Mydemo = { metadata: { name: 'bare' } };
    await mydemoDefaulter().default(bare, context);
    expect(bare.spec).toEqual({ image: 'nginx:1.25' });
  });
});

describe('mydemoValidator', () => {
  const validator = mydemoValidator();

  it.each([
    [{ port: 0 }, 'spec.port 0 is outside 1-65535'],
    [{ port: 65_536 }, 'spec.port 65536 is outside 1-65535'],
    [{}, 'spec.port (unset) is outside 1-65535'],
    [{ port: 80, replicas: -1 }, 'spec.replicas -1 is not a whole number ≥ 0'],
    [
      { port: 70_000, replicas: 1.5 },
      'spec.port 70000 is outside 1-65535, spec.replicas 1.5 is not a whole number ≥ 0',
    ],
  ])('refuses to create %j, naming what is wrong', (spec, problems) => {
    expect(() => validator.validateCreate?.(mydemo(spec), context)).toThrow(
      `Mydemo.crddemo.k8s.io "web" is invalid: ${problems}`,
    );
  });

  it('lets a valid Mydemo be created and updated', () => {
    expect(validator.validateCreate?.(mydemo({ port: 1, replicas: 0 }), context)).toEqual([]);
    expect(
      validator.validateUpdate?.(mydemo({ port: 80 }), mydemo({ port: 65_535 }), context),
    ).toEqual([]);
  });

  it('refuses an update to an invalid spec, but lets one that keeps an old invalid spec through', () => {
    expect(() =>
      validator.validateUpdate?.(mydemo({ port: 80 }), mydemo({ port: 0 }), context),
    ).toThrow('spec.port 0 is outside 1-65535');
    // A Mydemo stored before the webhook: its finalizer must still come off.
    const stored = mydemo({ port: 70_000 });
    const finalized = { ...stored, metadata: { ...stored.metadata, finalizers: [] } };
    expect(validator.validateUpdate?.(stored, finalized, context)).toEqual([]);
  });
});

describe('mydemoConverter', () => {
  const alpha: crddemoV1alpha1.Mydemo = {
    apiVersion: 'crddemo.k8s.io/v1alpha1',
    kind: 'Mydemo',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: { listen: { ip: '10.0.0.7', port: 8080 }, replicas: 2, image: 'httpd:2.4' },
    status: { observedGeneration: 3 },
  };
  const hub: crddemoV1.Mydemo = {
    apiVersion: 'crddemo.k8s.io/v1',
    kind: 'Mydemo',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: { ip: '10.0.0.7', port: 8080, replicas: 2, image: 'httpd:2.4' },
    status: { observedGeneration: 3 },
  };

  it('converts v1alpha1 spec.listen to v1 spec.ip and spec.port, and back', async () => {
    expect(await convert(alpha, 'v1')).toEqual(hub);
    expect(await convert(hub, 'v1alpha1')).toEqual(alpha);
  });

  it('leaves out a listen (or ip and port) that is not there', async () => {
    const { spec: _spec, ...noSpec } = hub;
    expect(await convert(noSpec, 'v1alpha1')).toEqual({
      ...noSpec,
      apiVersion: 'crddemo.k8s.io/v1alpha1',
    });
    expect((await convert({ ...hub, spec: { image: 'x' } }, 'v1alpha1')).spec).toEqual({
      image: 'x',
    });
    expect((await convert({ ...alpha, spec: { replicas: 1 } }, 'v1')).spec).toEqual({
      replicas: 1,
    });
  });

  it('refuses a version it does not know, naming it', async () => {
    await expect(convert(hub, 'v2')).rejects.toThrow(
      'failed to convert crddemo.k8s.io/v1 to crddemo.k8s.io/v2 of Mydemo.crddemo.k8s.io: not convertible',
    );
  });
});

webhookScenarios(
  'the in-memory API server',
  useInMemoryWebhookEnv((_server, clientset) => clientWriter(clientset)),
);
