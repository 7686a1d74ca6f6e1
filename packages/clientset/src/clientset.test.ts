import { FakeClock } from '@kubets/apimachinery/testing';
import { startApiServer } from '@kubets/apiserver';
import { type RequestRateLimiter, TokenBucketRateLimiter } from '@kubets/rest';
import {
  echo,
  eventually,
  type Mydemo,
  mydemoCrd,
  mydemoResource,
  type StubServer,
  startStubServer,
} from '@kubets/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Clientset, clientsetFor } from './clientset.js';
import { defineResource } from './descriptor.js';
import { groupVersionClientClasses } from './generated/clientset.js';
import { coreV1Resources } from './generated/core-v1.js';

let server: StubServer;

beforeEach(async () => {
  server = await startStubServer(echo);
});

afterEach(async () => {
  await server.close();
});

describe('Clientset', () => {
  it('shares one rate limiter across every group/version', async () => {
    const clock = new FakeClock();
    const clientset = new Clientset({ host: server.url, qps: 1, burst: 2 }, { clock });
    const limiter = clientset.rateLimiter;
    expect(limiter).toBeInstanceOf(TokenBucketRateLimiter);
    expect(clientset.coreV1().restClient.rateLimiter).toBe(limiter);
    expect(clientset.appsV1().restClient.rateLimiter).toBe(limiter);
    expect(clientset.batchV1().restClient.rateLimiter).toBe(limiter);

    // Burst 2: one request in core and one in apps use it up; a third in batch must wait.
    await clientset.coreV1().pods('ns').list();
    await clientset.appsV1().deployments('ns').list();
    const third = clientset.batchV1().jobs('ns').list();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.requests).toHaveLength(2);
    clock.step(1000);
    await third;
    expect(server.requests.map((r) => r.path)).toEqual([
      '/api/v1/namespaces/ns/pods',
      '/apis/apps/v1/namespaces/ns/deployments',
      '/apis/batch/v1/namespaces/ns/jobs',
    ]);
  });

  it('uses config.rateLimiter when given, for every group', async () => {
    let waits = 0;
    const counting: RequestRateLimiter = {
      qps: 100,
      wait: async () => {
        waits++;
      },
      tryAccept: () => true,
    };
    const clientset = clientsetFor({ host: server.url, rateLimiter: counting });
    expect(clientset.rateLimiter).toBe(counting);
    await clientset.coreV1().configMaps('ns').list();
    await clientset.networkingV1().ingresses('ns').list();
    await clientset.resource(coreV1Resources.secrets, 'ns').list();
    expect(waits).toBe(3);
  });

  it('a negative qps disables throttling everywhere', () => {
    const clientset = new Clientset({ host: server.url, qps: -1 });
    expect(clientset.rateLimiter).toBeUndefined();
    expect(clientset.appsV1().restClient.rateLimiter).toBeUndefined();
  });

  it('caches one group client and one REST client per group/version', () => {
    const clientset = new Clientset({ host: server.url, qps: -1 });
    expect(clientset.appsV1()).toBe(clientset.appsV1());
    expect(clientset.appsV1().restClient).toBe(
      clientset.restClientFor({ group: 'apps', version: 'v1' }),
    );
    expect(clientset.autoscalingV1().restClient).not.toBe(clientset.autoscalingV2().restClient);
  });

  it('reports an unusable configuration at construction', () => {
    expect(() => new Clientset({ host: '' })).toThrow(/host/);
  });

  it('every generated group/version client addresses its own API path', async () => {
    const clientset = new Clientset({ host: server.url, qps: -1 });
    const accessors = [
      clientset.coreV1(),
      clientset.admissionregistrationV1(),
      clientset.apiextensionsV1(),
      clientset.apiregistrationV1(),
      clientset.appsV1(),
      clientset.authenticationV1(),
      clientset.authorizationV1(),
      clientset.autoscalingV1(),
      clientset.autoscalingV2(),
      clientset.autoscalingV2beta2(),
      clientset.batchV1(),
      clientset.batchV1beta1(),
      clientset.certificatesV1(),
      clientset.coordinationV1(),
      clientset.discoveryV1(),
      clientset.discoveryV1beta1(),
      clientset.eventsV1(),
      clientset.flowcontrolApiserverV1(),
      clientset.networkingV1(),
      clientset.nodeV1(),
      clientset.nodeV1beta1(),
      clientset.policyV1(),
      clientset.policyV1beta1(),
      clientset.rbacV1(),
      clientset.schedulingV1(),
      clientset.storageV1(),
    ];
    expect(accessors.map((client) => client.constructor)).toEqual([...groupVersionClientClasses]);
    for (const client of accessors) {
      const { group, version } = (client.constructor as (typeof groupVersionClientClasses)[number])
        .groupVersion;
      await client.restClient.get().resource('x').do();
      expect(server.requests.at(-1)?.path).toBe(
        group === '' ? `/api/${version}/x` : `/apis/${group}/${version}/x`,
      );
    }
  });

  it('gives custom resources a typed client from a descriptor alone', async () => {
    const mydemos = defineResource<Mydemo>({ ...mydemoResource, subresources: ['status'] });
    const clientset = new Clientset({ host: server.url, qps: -1 });
    const client = clientset.resource(mydemos, 'default');
    const created = await client.create({
      metadata: { name: 'example-mydemo' },
      spec: { ip: '10.0.0.1', port: 80 },
    });
    expect(created.spec?.port).toBe(80);
    expect(server.requests.at(-1)?.path).toBe('/apis/crddemo.k8s.io/v1/namespaces/default/mydemos');
    // client-go's scheme fills in apiVersion and kind; the descriptor does it here.
    expect(JSON.parse(server.requests.at(-1)?.body ?? '')).toMatchObject({
      apiVersion: 'crddemo.k8s.io/v1',
      kind: 'Mydemo',
    });
    await client.apply(
      { metadata: { name: 'example-mydemo' }, spec: { port: 81 } },
      {
        fieldManager: 'demo',
      },
    );
    expect(JSON.parse(server.requests.at(-1)?.body ?? '')).toMatchObject({
      apiVersion: 'crddemo.k8s.io/v1',
      kind: 'Mydemo',
    });
    await client.updateStatus({ metadata: { name: 'example-mydemo' } });
    expect(server.requests.at(-1)?.path).toBe(
      '/apis/crddemo.k8s.io/v1/namespaces/default/mydemos/example-mydemo/status',
    );
    expect(JSON.parse(server.requests.at(-1)?.body ?? '')).toMatchObject({
      apiVersion: 'crddemo.k8s.io/v1',
      kind: 'Mydemo',
    });
    await eventually(() => server.requests.length === 3);
  });

  it('creates and updates a custom resource that omits apiVersion and kind (the server requires them)', async () => {
    await using api = await startApiServer();
    const clientset = new Clientset({ host: api.host, qps: -1 });
    await clientset.apiextensionsV1().customResourceDefinitions().create(mydemoCrd);
    const client = clientset.resource(defineResource<Mydemo>(mydemoResource), 'default');
    const created = await client.create({
      metadata: { name: 'bare' },
      spec: { ip: '10.0.0.1', port: 80 },
    });
    expect(created).toMatchObject({ apiVersion: 'crddemo.k8s.io/v1', kind: 'Mydemo' });
    const updated = await client.update({
      metadata: { name: 'bare', resourceVersion: created.metadata?.resourceVersion },
      spec: { ip: '10.0.0.1', port: 81 },
    });
    expect(updated.spec?.port).toBe(81);
  });
});
