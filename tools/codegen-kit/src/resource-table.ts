// The one table of the built-in resources (group, version, kind, plural, scope, subresources,
// ...). Every generated file about built-in resources comes from it: the typed clients of
// @kubets/clientset, the typed informers of @kubets/informers and the built-in resources the
// in-memory API server of @kubets/apiserver serves (src/builtins.ts renders them). One entry per
// group/version; one row per resource. Change this table, then run
// `pnpm --filter @kubets/clientset generate`, `pnpm --filter @kubets/informers generate` and
// `pnpm --filter @kubets/apiserver generate`, and commit the generated files.

/** Which client class a resource gets. */
export type ClientKind =
  /** Chosen from the subresources: scale → Scalable, status → Status, else Typed. */
  | 'auto'
  /** Only `create` (reviews, bindings): nothing is stored. */
  | 'createOnly'
  /** A hand-written client in src/core.ts with extra subresource methods. */
  | 'PodClient'
  | 'ServiceAccountClient'
  | 'NamespaceClient';

/** One resource of a group/version: what its generated client method and descriptor look like. */
export interface ResourceRow {
  /** Plural resource name as in URLs. */
  resource: string;
  /** The object kind, e.g. `Deployment`. */
  kind: string;
  /** True for namespaced resources, false for cluster-scoped ones. */
  namespaced: boolean;
  /** Subresources the server serves for it. */
  subresources?: string[];
  /** Default 'auto'. */
  client?: ClientKind;
  /** The object type's name in the types module; default `kind`. */
  type?: string;
  /** The list type's name in the types module; default `<type>List` (or `<kind>List`). */
  listType?: string;
  /** Which servers serve it, when narrower than its group/version, e.g. '1.28+'. */
  served?: string;
  /**
   * Served by the in-memory API server of @kubets/apiserver, with these facts of kube-apiserver
   * 1.20 (its `/status`, `/scale` and `/log` subresources come from `subresources`); absent: not
   * served there.
   */
  inMemory?: InMemoryRow;
}

/** How an object's name is validated: DNS subdomain (default), label, DNS-1035 label, path segment. */
export type NameRule = 'subdomain' | 'label' | 'dns1035' | 'path';

/** What the in-memory API server needs to know of a resource beyond the client's facts. */
export interface InMemoryRow {
  /** Short names discovery reports (`po`). */
  shortNames?: string[];
  /** Categories discovery reports (`all`). */
  categories?: string[];
  /** False when the collection cannot be deleted at once (no `deletecollection` verb). */
  deleteCollection?: false;
  /** `metadata.generation` is kept and bumped when anything but metadata and status changes. */
  generation?: true;
  /** Deleting returns the object rather than a success Status, as 1.20 does for it. */
  returnDeletedObject?: true;
  /** How its names are validated; default 'subdomain'. */
  nameRule?: NameRule;
  /** Strategic-merge-patch merge keys for lists, by dotted path (`spec.template.spec.containers`). */
  mergeKeys?: Record<string, string>;
}

/**
 * One group/version of the table: its client class, where its wire types come from, and its
 * resources.
 */
export interface GroupVersionRow {
  /** PascalCase client name: `CoreV1` → class CoreV1Client, method coreV1(). */
  name: string;
  /** API group; '' for core. */
  group: string;
  /** API version, e.g. `v1`. */
  version: string;
  /** Module the wire types come from. */
  types: string;
  /** Which servers serve it, e.g. 'all', '1.21+', 'up to 1.24'. */
  served: string;
  /** The resources served in this group/version, one client method each. */
  resources: ResourceRow[];
}

const ns = true;
const cluster = false;

/** The strategic-merge-patch merge keys of a pod spec at `prefix` (`spec.`, `spec.template.spec.`). */
function podSpecKeys(prefix: string): Record<string, string> {
  return {
    [`${prefix}containers`]: 'name',
    [`${prefix}initContainers`]: 'name',
    [`${prefix}ephemeralContainers`]: 'name',
    [`${prefix}volumes`]: 'name',
    [`${prefix}imagePullSecrets`]: 'name',
    [`${prefix}containers.*.env`]: 'name',
    [`${prefix}containers.*.ports`]: 'containerPort',
    [`${prefix}containers.*.volumeMounts`]: 'mountPath',
    [`${prefix}initContainers.*.env`]: 'name',
    [`${prefix}initContainers.*.ports`]: 'containerPort',
    [`${prefix}initContainers.*.volumeMounts`]: 'mountPath',
    [`${prefix}tolerations`]: 'key',
    [`${prefix}hostAliases`]: 'ip',
  };
}

/** The in-memory facts shared by the apps/v1 workloads. */
function workload(shortName: string): InMemoryRow {
  return {
    shortNames: [shortName],
    categories: ['all'],
    generation: true,
    mergeKeys: podSpecKeys('spec.template.spec.'),
  };
}

/**
 * Every group/version the clientset has a typed client for, in the order the generated code lists
 * them.
 */
export const groupVersions: GroupVersionRow[] = [
  {
    name: 'CoreV1',
    group: '',
    version: 'v1',
    types: 'kubernetes-types/core/v1',
    served: 'all',
    resources: [
      { resource: 'bindings', kind: 'Binding', namespaced: ns, client: 'createOnly' },
      { resource: 'componentstatuses', kind: 'ComponentStatus', namespaced: cluster },
      {
        resource: 'configmaps',
        kind: 'ConfigMap',
        namespaced: ns,
        inMemory: { shortNames: ['cm'] },
      },
      {
        resource: 'endpoints',
        kind: 'Endpoints',
        namespaced: ns,
        listType: 'EndpointsList',
        inMemory: { shortNames: ['ep'] },
      },
      {
        resource: 'events',
        kind: 'Event',
        namespaced: ns,
        inMemory: { shortNames: ['ev'], nameRule: 'path' },
      },
      { resource: 'limitranges', kind: 'LimitRange', namespaced: ns },
      {
        resource: 'namespaces',
        kind: 'Namespace',
        namespaced: cluster,
        subresources: ['status', 'finalize'],
        client: 'NamespaceClient',
        inMemory: {
          shortNames: ['ns'],
          deleteCollection: false,
          returnDeletedObject: true,
          nameRule: 'label',
        },
      },
      {
        resource: 'nodes',
        kind: 'Node',
        namespaced: cluster,
        subresources: ['status', 'proxy'],
        inMemory: { shortNames: ['no'] },
      },
      {
        resource: 'persistentvolumeclaims',
        kind: 'PersistentVolumeClaim',
        namespaced: ns,
        subresources: ['status'],
      },
      {
        resource: 'persistentvolumes',
        kind: 'PersistentVolume',
        namespaced: cluster,
        subresources: ['status'],
      },
      {
        resource: 'pods',
        kind: 'Pod',
        namespaced: ns,
        subresources: [
          'status',
          'log',
          'eviction',
          'binding',
          'ephemeralcontainers',
          'exec',
          'attach',
          'portforward',
          'proxy',
        ],
        client: 'PodClient',
        inMemory: {
          shortNames: ['po'],
          categories: ['all'],
          returnDeletedObject: true,
          mergeKeys: podSpecKeys('spec.'),
        },
      },
      { resource: 'podtemplates', kind: 'PodTemplate', namespaced: ns },
      {
        resource: 'replicationcontrollers',
        kind: 'ReplicationController',
        namespaced: ns,
        subresources: ['status', 'scale'],
      },
      {
        resource: 'resourcequotas',
        kind: 'ResourceQuota',
        namespaced: ns,
        subresources: ['status'],
      },
      { resource: 'secrets', kind: 'Secret', namespaced: ns, inMemory: {} },
      {
        resource: 'serviceaccounts',
        kind: 'ServiceAccount',
        namespaced: ns,
        subresources: ['token'],
        client: 'ServiceAccountClient',
        inMemory: { shortNames: ['sa'] },
      },
      {
        resource: 'services',
        kind: 'Service',
        namespaced: ns,
        subresources: ['status', 'proxy'],
        inMemory: {
          shortNames: ['svc'],
          categories: ['all'],
          deleteCollection: false,
          nameRule: 'dns1035',
          mergeKeys: { 'spec.ports': 'port' },
        },
      },
    ],
  },
  {
    name: 'AdmissionregistrationV1',
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    types: 'kubernetes-types/admissionregistration/v1',
    served: 'all',
    resources: [
      {
        resource: 'mutatingwebhookconfigurations',
        kind: 'MutatingWebhookConfiguration',
        namespaced: cluster,
        inMemory: {},
      },
      {
        resource: 'validatingadmissionpolicies',
        kind: 'ValidatingAdmissionPolicy',
        namespaced: cluster,
        subresources: ['status'],
        served: '1.30+',
      },
      {
        resource: 'validatingadmissionpolicybindings',
        kind: 'ValidatingAdmissionPolicyBinding',
        namespaced: cluster,
        served: '1.30+',
      },
      {
        resource: 'validatingwebhookconfigurations',
        kind: 'ValidatingWebhookConfiguration',
        namespaced: cluster,
        inMemory: {},
      },
    ],
  },
  {
    name: 'ApiextensionsV1',
    group: 'apiextensions.k8s.io',
    version: 'v1',
    types: 'kubernetes-types/apiextensions/v1',
    served: 'all',
    resources: [
      {
        resource: 'customresourcedefinitions',
        kind: 'CustomResourceDefinition',
        namespaced: cluster,
        subresources: ['status'],
        inMemory: {
          shortNames: ['crd', 'crds'],
          categories: ['api-extensions'],
          generation: true,
          mergeKeys: { 'spec.versions': 'name' },
        },
      },
    ],
  },
  {
    name: 'ApiregistrationV1',
    group: 'apiregistration.k8s.io',
    version: 'v1',
    types: '../types/apiregistration.js',
    served: 'all',
    resources: [
      {
        resource: 'apiservices',
        kind: 'APIService',
        namespaced: cluster,
        subresources: ['status'],
      },
    ],
  },
  {
    name: 'AppsV1',
    group: 'apps',
    version: 'v1',
    types: 'kubernetes-types/apps/v1',
    served: 'all',
    resources: [
      {
        resource: 'controllerrevisions',
        kind: 'ControllerRevision',
        namespaced: ns,
        inMemory: {},
      },
      {
        resource: 'daemonsets',
        kind: 'DaemonSet',
        namespaced: ns,
        subresources: ['status'],
        inMemory: workload('ds'),
      },
      {
        resource: 'deployments',
        kind: 'Deployment',
        namespaced: ns,
        subresources: ['status', 'scale'],
        inMemory: workload('deploy'),
      },
      {
        resource: 'replicasets',
        kind: 'ReplicaSet',
        namespaced: ns,
        subresources: ['status', 'scale'],
        inMemory: workload('rs'),
      },
      {
        resource: 'statefulsets',
        kind: 'StatefulSet',
        namespaced: ns,
        subresources: ['status', 'scale'],
        inMemory: workload('sts'),
      },
    ],
  },
  {
    name: 'AuthenticationV1',
    group: 'authentication.k8s.io',
    version: 'v1',
    types: 'kubernetes-types/authentication/v1',
    served: 'all',
    resources: [
      {
        resource: 'selfsubjectreviews',
        kind: 'SelfSubjectReview',
        namespaced: cluster,
        client: 'createOnly',
        served: '1.28+',
      },
      { resource: 'tokenreviews', kind: 'TokenReview', namespaced: cluster, client: 'createOnly' },
    ],
  },
  {
    name: 'AuthorizationV1',
    group: 'authorization.k8s.io',
    version: 'v1',
    types: 'kubernetes-types/authorization/v1',
    served: 'all',
    resources: [
      {
        resource: 'localsubjectaccessreviews',
        kind: 'LocalSubjectAccessReview',
        namespaced: ns,
        client: 'createOnly',
        inMemory: {},
      },
      {
        resource: 'selfsubjectaccessreviews',
        kind: 'SelfSubjectAccessReview',
        namespaced: cluster,
        client: 'createOnly',
        inMemory: {},
      },
      {
        resource: 'selfsubjectrulesreviews',
        kind: 'SelfSubjectRulesReview',
        namespaced: cluster,
        client: 'createOnly',
        inMemory: {},
      },
      {
        resource: 'subjectaccessreviews',
        kind: 'SubjectAccessReview',
        namespaced: cluster,
        client: 'createOnly',
        inMemory: {},
      },
    ],
  },
  {
    name: 'AutoscalingV1',
    group: 'autoscaling',
    version: 'v1',
    types: 'kubernetes-types/autoscaling/v1',
    served: 'all',
    resources: [
      {
        resource: 'horizontalpodautoscalers',
        kind: 'HorizontalPodAutoscaler',
        namespaced: ns,
        subresources: ['status'],
        inMemory: { shortNames: ['hpa'], categories: ['all'] },
      },
    ],
  },
  {
    name: 'AutoscalingV2',
    group: 'autoscaling',
    version: 'v2',
    types: 'kubernetes-types/autoscaling/v2',
    served: '1.23+',
    resources: [
      {
        resource: 'horizontalpodautoscalers',
        kind: 'HorizontalPodAutoscaler',
        namespaced: ns,
        subresources: ['status'],
      },
    ],
  },
  {
    name: 'AutoscalingV2beta2',
    group: 'autoscaling',
    version: 'v2beta2',
    types: '../types/beta.js',
    served: 'up to 1.25',
    resources: [
      {
        resource: 'horizontalpodautoscalers',
        kind: 'HorizontalPodAutoscaler',
        namespaced: ns,
        subresources: ['status'],
        type: 'HorizontalPodAutoscalerV2beta2',
        listType: 'HorizontalPodAutoscalerListV2beta2',
      },
    ],
  },
  {
    name: 'BatchV1',
    group: 'batch',
    version: 'v1',
    types: 'kubernetes-types/batch/v1',
    served: 'all',
    resources: [
      {
        resource: 'cronjobs',
        kind: 'CronJob',
        namespaced: ns,
        subresources: ['status'],
        served: '1.21+',
      },
      {
        resource: 'jobs',
        kind: 'Job',
        namespaced: ns,
        subresources: ['status'],
        inMemory: {
          categories: ['all'],
          returnDeletedObject: true,
          mergeKeys: podSpecKeys('spec.template.spec.'),
        },
      },
    ],
  },
  {
    name: 'BatchV1beta1',
    group: 'batch',
    version: 'v1beta1',
    types: '../types/beta.js',
    served: 'up to 1.24',
    resources: [
      {
        resource: 'cronjobs',
        kind: 'CronJob',
        namespaced: ns,
        subresources: ['status'],
        inMemory: {
          shortNames: ['cj'],
          categories: ['all'],
          returnDeletedObject: true,
          mergeKeys: podSpecKeys('spec.jobTemplate.spec.template.spec.'),
        },
        type: 'CronJobV1beta1',
        listType: 'CronJobListV1beta1',
      },
    ],
  },
  {
    name: 'CertificatesV1',
    group: 'certificates.k8s.io',
    version: 'v1',
    types: 'kubernetes-types/certificates/v1',
    served: 'all',
    resources: [
      {
        resource: 'certificatesigningrequests',
        kind: 'CertificateSigningRequest',
        namespaced: cluster,
        subresources: ['status', 'approval'],
      },
    ],
  },
  {
    name: 'CoordinationV1',
    group: 'coordination.k8s.io',
    version: 'v1',
    types: 'kubernetes-types/coordination/v1',
    served: 'all',
    resources: [{ resource: 'leases', kind: 'Lease', namespaced: ns, inMemory: {} }],
  },
  {
    name: 'DiscoveryV1',
    group: 'discovery.k8s.io',
    version: 'v1',
    types: 'kubernetes-types/discovery/v1',
    served: '1.21+',
    resources: [{ resource: 'endpointslices', kind: 'EndpointSlice', namespaced: ns }],
  },
  {
    name: 'DiscoveryV1beta1',
    group: 'discovery.k8s.io',
    version: 'v1beta1',
    types: '../types/beta.js',
    served: 'up to 1.24',
    resources: [
      {
        resource: 'endpointslices',
        kind: 'EndpointSlice',
        namespaced: ns,
        type: 'EndpointSliceV1beta1',
        listType: 'EndpointSliceListV1beta1',
      },
    ],
  },
  {
    name: 'EventsV1',
    group: 'events.k8s.io',
    version: 'v1',
    types: 'kubernetes-types/events/v1',
    served: 'all',
    resources: [
      {
        resource: 'events',
        kind: 'Event',
        namespaced: ns,
        inMemory: { shortNames: ['ev'], nameRule: 'path' },
      },
    ],
  },
  {
    name: 'FlowcontrolApiserverV1',
    group: 'flowcontrol.apiserver.k8s.io',
    version: 'v1',
    types: 'kubernetes-types/flowcontrol/v1',
    served: '1.29+',
    resources: [
      {
        resource: 'flowschemas',
        kind: 'FlowSchema',
        namespaced: cluster,
        subresources: ['status'],
      },
      {
        resource: 'prioritylevelconfigurations',
        kind: 'PriorityLevelConfiguration',
        namespaced: cluster,
        subresources: ['status'],
      },
    ],
  },
  {
    name: 'NetworkingV1',
    group: 'networking.k8s.io',
    version: 'v1',
    types: 'kubernetes-types/networking/v1',
    served: 'all',
    resources: [
      {
        resource: 'ingressclasses',
        kind: 'IngressClass',
        namespaced: cluster,
        inMemory: { generation: true },
      },
      {
        resource: 'ingresses',
        kind: 'Ingress',
        namespaced: ns,
        subresources: ['status'],
        inMemory: { shortNames: ['ing'], generation: true },
      },
      {
        resource: 'networkpolicies',
        kind: 'NetworkPolicy',
        namespaced: ns,
        inMemory: { shortNames: ['netpol'], generation: true },
      },
    ],
  },
  {
    name: 'NodeV1',
    group: 'node.k8s.io',
    version: 'v1',
    types: 'kubernetes-types/node/v1',
    served: 'all',
    resources: [{ resource: 'runtimeclasses', kind: 'RuntimeClass', namespaced: cluster }],
  },
  {
    name: 'NodeV1beta1',
    group: 'node.k8s.io',
    version: 'v1beta1',
    types: '../types/beta.js',
    served: 'up to 1.24',
    resources: [
      {
        resource: 'runtimeclasses',
        kind: 'RuntimeClass',
        namespaced: cluster,
        type: 'RuntimeClassV1beta1',
        listType: 'RuntimeClassListV1beta1',
      },
    ],
  },
  {
    name: 'PolicyV1',
    group: 'policy',
    version: 'v1',
    types: 'kubernetes-types/policy/v1',
    served: '1.21+',
    resources: [
      {
        resource: 'poddisruptionbudgets',
        kind: 'PodDisruptionBudget',
        namespaced: ns,
        subresources: ['status'],
      },
    ],
  },
  {
    name: 'PolicyV1beta1',
    group: 'policy',
    version: 'v1beta1',
    types: '../types/beta.js',
    served: 'up to 1.24',
    resources: [
      {
        resource: 'poddisruptionbudgets',
        kind: 'PodDisruptionBudget',
        namespaced: ns,
        subresources: ['status'],
        inMemory: { shortNames: ['pdb'], generation: true },
        type: 'PodDisruptionBudgetV1beta1',
        listType: 'PodDisruptionBudgetListV1beta1',
      },
    ],
  },
  {
    name: 'RbacV1',
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    types: 'kubernetes-types/rbac/v1',
    served: 'all',
    resources: [
      {
        resource: 'clusterrolebindings',
        kind: 'ClusterRoleBinding',
        namespaced: cluster,
        inMemory: {},
      },
      { resource: 'clusterroles', kind: 'ClusterRole', namespaced: cluster, inMemory: {} },
      { resource: 'rolebindings', kind: 'RoleBinding', namespaced: ns, inMemory: {} },
      { resource: 'roles', kind: 'Role', namespaced: ns, inMemory: {} },
    ],
  },
  {
    name: 'SchedulingV1',
    group: 'scheduling.k8s.io',
    version: 'v1',
    types: 'kubernetes-types/scheduling/v1',
    served: 'all',
    resources: [{ resource: 'priorityclasses', kind: 'PriorityClass', namespaced: cluster }],
  },
  {
    name: 'StorageV1',
    group: 'storage.k8s.io',
    version: 'v1',
    types: 'kubernetes-types/storage/v1',
    served: 'all',
    resources: [
      { resource: 'csidrivers', kind: 'CSIDriver', namespaced: cluster, inMemory: {} },
      { resource: 'csinodes', kind: 'CSINode', namespaced: cluster, inMemory: {} },
      {
        resource: 'csistoragecapacities',
        kind: 'CSIStorageCapacity',
        namespaced: ns,
        served: '1.24+',
      },
      {
        resource: 'storageclasses',
        kind: 'StorageClass',
        namespaced: cluster,
        inMemory: { shortNames: ['sc'], returnDeletedObject: true },
      },
      {
        resource: 'volumeattachments',
        kind: 'VolumeAttachment',
        namespaced: cluster,
        subresources: ['status'],
        inMemory: {},
      },
    ],
  },
];
