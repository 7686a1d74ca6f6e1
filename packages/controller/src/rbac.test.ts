import { silentLogger } from '@kubets/apimachinery';
import {
  apiextensionsV1Resources,
  appsV1Resources,
  coreV1Resources,
  defineResource,
} from '@kubets/clientset';
import { describe, expect, it } from 'vitest';
import {
  cacheByObject,
  controller,
  createOrPatchPermissions,
  createOrUpdatePermission,
  finalizerPermission,
  Manager,
  type ManagerOptions,
  onlyMetadata,
  rbacManifests,
  rbacRules,
  serverSideApplyPermission,
  statusPermission,
} from './index.js';

// A manager is built without talking to a server: nothing here starts it.
const newManager = (options: ManagerOptions = {}) =>
  new Manager({ host: 'http://127.0.0.1:1' }, { logger: silentLogger, ...options });

const widgets = defineResource<{ metadata?: { name?: string } }>({
  group: 'example.com',
  version: 'v1',
  resource: 'widgets',
  kind: 'Widget',
  namespaced: true,
});

describe('rbacRules', () => {
  it("derives get/list/watch of every watched resource, the recorder's events and the declared writes", () => {
    const mgr = newManager();
    controller(mgr)
      .for(widgets)
      .owns(appsV1Resources.deployments)
      .owns(onlyMetadata(coreV1Resources.secrets))
      .watches('example.com/v1/gadgets', () => [])
      .watches(apiextensionsV1Resources.customResourceDefinitions, () => [])
      .rbac(
        finalizerPermission(widgets),
        statusPermission(widgets, ['patch']),
        createOrUpdatePermission(appsV1Resources.deployments),
        { resource: appsV1Resources.deployments, verbs: ['delete'] },
      )
      .complete(() => {});
    expect(rbacRules(mgr)).toEqual({
      clusterRules: [
        { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
        { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] },
        {
          apiGroups: ['apiextensions.k8s.io'],
          resources: ['customresourcedefinitions'],
          verbs: ['get', 'list', 'watch'],
        },
        {
          apiGroups: ['apps'],
          resources: ['deployments'],
          verbs: ['create', 'delete', 'get', 'list', 'update', 'watch'],
        },
        { apiGroups: ['example.com'], resources: ['gadgets'], verbs: ['get', 'list', 'watch'] },
        {
          apiGroups: ['example.com'],
          resources: ['widgets'],
          verbs: ['get', 'list', 'patch', 'watch'],
        },
        { apiGroups: ['example.com'], resources: ['widgets/status'], verbs: ['patch'] },
      ],
      namespaceRules: new Map(),
    });
  });

  it('merges resources of one group with the same verbs into one rule', () => {
    const mgr = newManager();
    controller(mgr)
      .for(coreV1Resources.configMaps)
      .owns(coreV1Resources.services)
      .owns(coreV1Resources.secrets)
      .complete(() => {});
    expect(rbacRules(mgr).clusterRules).toEqual([
      {
        apiGroups: [''],
        resources: ['configmaps', 'secrets', 'services'],
        verbs: ['get', 'list', 'watch'],
      },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    ]);
  });

  it('gives the same rules whatever the order controllers and permissions were declared in', () => {
    const build = (reverse: boolean) => {
      const mgr = newManager();
      const permissions = [
        ...createOrPatchPermissions(widgets, { status: true }),
        serverSideApplyPermission(coreV1Resources.configMaps),
      ];
      const controllers = [
        () =>
          controller(mgr)
            .for(widgets)
            .rbac(reverse ? permissions.toReversed() : permissions)
            .complete(() => {}),
        () =>
          controller(mgr)
            .for(coreV1Resources.pods)
            .complete(() => {}),
      ];
      for (const c of reverse ? controllers.toReversed() : controllers) c();
      return rbacManifests(mgr, { name: 'op', namespace: 'op-system' });
    };
    expect(build(true)).toEqual(build(false));
  });

  it('limits a namespaced manager to Roles in its namespace; cluster-scoped resources stay cluster-wide', () => {
    const mgr = newManager({ namespace: 'team-a' });
    controller(mgr)
      .for(widgets)
      .watches(coreV1Resources.namespaces, () => [])
      .rbac(createOrUpdatePermission(coreV1Resources.configMaps))
      .complete(() => {});
    const { clusterRules, namespaceRules } = rbacRules(mgr);
    expect(clusterRules).toEqual([
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
    ]);
    expect([...namespaceRules]).toEqual([
      [
        'team-a',
        [
          { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'update'] },
          { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
          { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] },
        ],
      ],
    ]);
  });

  it("reads a cache.byObject resource in that entry's namespace, watched or not", () => {
    const mgr = newManager({
      cache: {
        byObject: [
          cacheByObject(coreV1Resources.secrets, { namespace: 'vault' }),
          cacheByObject(coreV1Resources.nodes, {}),
        ],
      },
    });
    controller(mgr)
      .for(coreV1Resources.pods)
      .owns(coreV1Resources.secrets)
      .complete(() => {});
    const { clusterRules, namespaceRules } = rbacRules(mgr);
    expect(clusterRules).toEqual([
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['get', 'list', 'watch'] },
    ]);
    expect(namespaceRules.get('vault')).toEqual([
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] },
    ]);
  });

  it("grants leader election create on leases and get/update of its own Lease only, in the Lease's namespace", () => {
    const mgr = newManager({ leaderElection: { namespace: 'op-system', name: 'op-lock' } });
    controller(mgr)
      .for(coreV1Resources.pods)
      .complete(() => {});
    expect(rbacRules(mgr).namespaceRules.get('op-system')).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: ['op-lock'],
        verbs: ['get', 'update'],
      },
    ]);
  });

  it('drops a named grant of verbs the same resource already has for every object', () => {
    const mgr = newManager();
    controller(mgr)
      .for(coreV1Resources.configMaps)
      .rbac({
        resource: coreV1Resources.configMaps,
        verbs: ['get', 'update'],
        resourceNames: ['x'],
      })
      .complete(() => {});
    expect(rbacRules(mgr).clusterRules).toContainEqual({
      apiGroups: [''],
      resources: ['configmaps'],
      resourceNames: ['x'],
      verbs: ['update'],
    });
  });

  it('adds permissions the manager’s other runnables need', () => {
    const mgr = newManager();
    controller(mgr)
      .for(coreV1Resources.pods)
      .complete(() => {});
    const rules = rbacRules(mgr, {
      permissions: [{ resource: 'v1/configmaps', verbs: ['get'], namespace: 'kube-system' }],
    });
    expect(rules.namespaceRules.get('kube-system')).toEqual([
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
    ]);
  });

  it('without the event recorder of a manager, grants no events', () => {
    const deps = { informers: newManager().informers };
    controller(deps)
      .for(coreV1Resources.pods)
      .complete(() => {});
    expect(rbacRules(deps).clusterRules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
    ]);
  });

  it('refuses a manager without controllers', () => {
    expect(() => rbacRules(newManager())).toThrow(/no controller was built on this manager/);
  });
});

describe('rbacManifests', () => {
  it('makes the ServiceAccount, the ClusterRole and Roles and their bindings, in a fixed order', () => {
    const mgr = newManager({ leaderElection: { namespace: 'op-system', name: 'op' } });
    controller(mgr)
      .for(widgets)
      .complete(() => {});
    const objects = rbacManifests(mgr, {
      name: 'op',
      namespace: 'op-system',
      labels: { 'app.kubernetes.io/name': 'op' },
    });
    expect(
      objects.map((o) => `${o.kind} ${o.metadata?.namespace ?? ''}/${o.metadata?.name}`),
    ).toEqual([
      'ServiceAccount op-system/op',
      'ClusterRole /op',
      'ClusterRoleBinding /op',
      'Role op-system/op',
      'RoleBinding op-system/op',
    ]);
    const subject = { kind: 'ServiceAccount', name: 'op', namespace: 'op-system' };
    expect(objects[2]).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'op', labels: { 'app.kubernetes.io/name': 'op' } },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'op' },
      subjects: [subject],
    });
    expect(objects[4]).toMatchObject({
      roleRef: { kind: 'Role', name: 'op' },
      subjects: [subject],
    });
  });

  it('refuses a name or namespace that cannot be an object name', () => {
    const mgr = newManager();
    controller(mgr)
      .for(coreV1Resources.pods)
      .complete(() => {});
    expect(() => rbacManifests(mgr, { name: 'My Operator', namespace: 'x' })).toThrow(
      /name "My Operator" is not a valid object name/,
    );
    expect(() => rbacManifests(mgr, { name: 'op', namespace: 'a.b' })).toThrow(
      /namespace "a.b" is not a valid namespace name/,
    );
  });
});

describe('.rbac(...) refuses what is not a permission', () => {
  const builder = () => controller(newManager()).for(coreV1Resources.pods);
  it.each([
    [
      { resource: 42, verbs: ['get'] },
      /permissions\[0\]: the resource must be a resource descriptor/,
    ],
    [{ resource: 'nope', verbs: ['get'] }, /"nope" is not a group\/version\/resource/],
    [{ resource: coreV1Resources.pods, verbs: [] }, /verbs must be a non-empty list/],
    [{ resource: coreV1Resources.pods, verbs: ['Get it'] }, /"Get it" is not a verb/],
    [
      { resource: coreV1Resources.pods, verbs: ['list', 'get'], resourceNames: ['a'] },
      /resourceNames cannot limit list/,
    ],
    [
      { resource: coreV1Resources.pods, subresource: 'Status!', verbs: ['get'] },
      /subresource "Status!" is not one/,
    ],
  ])('%j', (permission, message) => {
    // biome-ignore lint/suspicious/noExplicitAny: bad input on purpose.
    expect(() => builder().rbac(permission as any)).toThrow(message);
  });
});
