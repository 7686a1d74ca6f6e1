import { afterEach, describe, expect, it } from 'vitest';
import {
  addWidgets,
  type CannedDiscovery,
  cannedDiscovery,
  discoveryServerPool,
} from '../test/fixtures.js';
import { DiscoveryClient } from './discovery.js';
import { isNoMatchError, NoKindMatchError, NoResourceMatchError } from './errors.js';
import { MemCacheClient } from './memcache.js';
import { RESTMapper, StaticRESTMapper } from './restmapper.js';

const servers = discoveryServerPool();
afterEach(servers.closeAll);

async function mapperFor(canned: CannedDiscovery = cannedDiscovery()) {
  const server = await servers.start(canned);
  const discovery = new MemCacheClient(new DiscoveryClient({ host: server.url, qps: -1 }));
  const apisRequests = () => server.paths.filter((p) => p === '/apis').length;
  return { mapper: new RESTMapper(discovery), canned, apisRequests };
}

describe('RESTMapper', () => {
  it('resolves plural, singular, short and kind names case-insensitively, like kubectl', async () => {
    const { mapper } = await mapperFor();
    const deployments = { group: 'apps', version: 'v1', resource: 'deployments' };
    for (const arg of [
      'deployments',
      'deployment',
      'deploy',
      'Deployment',
      'DEPLOY',
      'deployments.apps',
      'deployments.v1.apps',
      'deploy.apps',
    ]) {
      expect(await mapper.resourceFor(arg), arg).toEqual(deployments);
    }
    const pods = { group: '', version: 'v1', resource: 'pods' };
    expect(await mapper.resourceFor('po')).toEqual(pods);
    expect(await mapper.resourceFor({ resource: 'pod' })).toEqual(pods);
  });

  it('maps resources to kinds', async () => {
    const { mapper } = await mapperFor();
    const deployment = { group: 'apps', version: 'v1', kind: 'Deployment' };
    expect(await mapper.kindFor('deploy')).toEqual(deployment);
    const deployments = { group: 'apps', version: 'v1', resource: 'deployments' };
    expect(await mapper.kindFor(deployments)).toEqual(deployment);
    const cronJob = { group: 'batch', version: 'v1beta1', kind: 'CronJob' };
    expect(await mapper.kindFor('cj')).toEqual(cronJob);
  });

  it('prefers the earlier group and the preferred version when several match', async () => {
    const { mapper } = await mapperFor();
    const coreEvents = { group: '', version: 'v1', resource: 'events' };
    const eventsV1 = { group: 'events.k8s.io', version: 'v1', resource: 'events' };
    expect(await mapper.resourceFor('events')).toEqual(coreEvents);
    expect(await mapper.resourcesFor('ev')).toEqual([coreEvents, eventsV1]);
    expect(await mapper.resourceFor('events.events.k8s.io')).toEqual(eventsV1);
    // autoscaling lists v2beta1 first but prefers v1.
    expect(await mapper.resourceFor('hpa')).toEqual({
      group: 'autoscaling',
      version: 'v1',
      resource: 'horizontalpodautoscalers',
    });
    expect((await mapper.resourcesFor('hpa')).map((r) => r.version)).toEqual(['v1', 'v2beta1']);
  });

  it('returns REST mappings with scope, preferred version first', async () => {
    const { mapper } = await mapperFor();
    expect(await mapper.restMapping({ group: 'apps', kind: 'Deployment' })).toEqual({
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      groupVersionKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      scope: 'namespace',
    });
    expect((await mapper.restMapping({ group: '', kind: 'Namespace' })).scope).toBe('root');
    expect(
      (await mapper.restMappings({ group: 'batch', kind: 'Job' })).map((m) => m.resource.version),
    ).toEqual(['v1', 'v1beta1']);
    expect(
      (await mapper.restMapping({ group: 'batch', kind: 'Job' }, 'v1beta1')).resource.version,
    ).toBe('v1beta1');
  });

  it('resolves what kubectl accepts, resource or kind', async () => {
    const { mapper } = await mapperFor();
    expect((await mapper.mappingFor('Deployment')).resource).toEqual({
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
    });
    expect((await mapper.mappingFor('po')).groupVersionKind.kind).toBe('Pod');
    expect((await mapper.mappingFor('Job.v1beta1.batch')).resource.version).toBe('v1beta1');
    expect((await mapper.mappingFor('CronJob.batch')).resource.resource).toBe('cronjobs');
    expect(
      (await mapper.mappingForObject({ apiVersion: 'apps/v1', kind: 'ReplicaSet' })).resource
        .resource,
    ).toBe('replicasets');
  });

  it('skips subresources', async () => {
    const { mapper } = await mapperFor();
    await expect(mapper.resourceFor('pods/log')).rejects.toBeInstanceOf(NoResourceMatchError);
    const all = (await mapper.snapshot()).mappings();
    expect(all.some((m) => m.resource.resource.includes('/'))).toBe(false);
    expect(all.some((m) => m.groupVersionKind.kind === 'Scale')).toBe(false);
  });

  it('re-discovers exactly once on a miss, then fails with a message naming the request', async () => {
    const { mapper, apisRequests } = await mapperFor();
    await mapper.resourceFor('pods');
    expect(apisRequests()).toBe(1);
    const err = await mapper
      .restMapping({ group: 'nope.io', kind: 'Gizmo' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoKindMatchError);
    expect(isNoMatchError(err)).toBe(true);
    expect((err as Error).message).toContain('no matches for kind "Gizmo" in group "nope.io"');
    expect(apisRequests()).toBe(2);
    expect(mapper.loads).toBe(2);

    const byResource = await mapper.resourceFor('gizmos').catch((e: unknown) => e);
    expect(byResource).toBeInstanceOf(NoResourceMatchError);
    expect((byResource as Error).message).toContain('"gizmos"');
    expect(apisRequests()).toBe(3);

    const versioned = await mapper
      .restMapping({ group: 'apps', kind: 'Deployment' }, 'v9')
      .catch((e: unknown) => e);
    expect((versioned as Error).message).toContain(
      'no matches for kind "Deployment" in version "apps/v9"',
    );
  });

  it('finds a resource added after the first load through that one re-discovery', async () => {
    const { mapper, canned, apisRequests } = await mapperFor();
    await mapper.resourceFor('pods');
    addWidgets(canned);
    expect(await mapper.resourceFor('wg')).toEqual({
      group: 'e2e.kubets.dev',
      version: 'v1',
      resource: 'widgets',
    });
    expect(await mapper.restMapping({ group: 'e2e.kubets.dev', kind: 'Widget' })).toMatchObject({
      scope: 'namespace',
    });
    expect(apisRequests()).toBe(2);
  });

  it('shares one re-discovery between concurrent misses', async () => {
    const { mapper, apisRequests } = await mapperFor();
    await mapper.resourceFor('pods');
    const results = await Promise.allSettled([
      mapper.resourceFor('gizmos'),
      mapper.resourceFor('doodads'),
      mapper.kindFor('things'),
    ]);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(apisRequests()).toBe(2);
  });

  it('maps what it could discover when a group-version fails', async () => {
    const { mapper } = await mapperFor();
    // broken.example.com/v1 fails; everything else is there.
    expect(await mapper.resourceFor('rs')).toMatchObject({ resource: 'replicasets' });
    await expect(mapper.resourceFor('gadgets')).rejects.toSatisfy(isNoMatchError);
  });
});

describe('StaticRESTMapper', () => {
  it('guesses the singular from the kind when the server sends none', () => {
    const mapper = new StaticRESTMapper({
      groups: [{ name: '', versions: [{ groupVersion: 'v1', version: 'v1' }] }],
      resources: [
        {
          groupVersion: 'v1',
          resources: [
            {
              name: 'configmaps',
              singularName: '',
              namespaced: true,
              kind: 'ConfigMap',
              verbs: [],
            },
          ],
        },
      ],
    });
    expect(mapper.resourceFor('configmap')).toEqual({
      group: '',
      version: 'v1',
      resource: 'configmaps',
    });
    expect(() => mapper.kindFor('secrets')).toThrow('no matches for resource "secrets"');
  });
});
