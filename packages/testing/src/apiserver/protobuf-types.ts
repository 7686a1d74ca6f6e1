/** How one field of a message turns into JSON. */
export type ProtoType =
  | 'string'
  | 'bool'
  | 'int'
  | 'bytes'
  | 'time'
  | 'quantity'
  | 'intOrString'
  | { readonly message: ProtoMessage }
  | { readonly map: 'string' | 'bytes' | 'quantity' };

/**
 * A field: its JSON name, type, whether it repeats, and whether it is a pointer in Go (sent
 * only when set, so a zero value means zero rather than "unset").
 */
export interface ProtoField {
  readonly json: string;
  readonly type: ProtoType;
  readonly repeated?: boolean;
  readonly pointer?: boolean;
}

/** A message: its name (for errors) and fields by number. */
export interface ProtoMessage {
  readonly name: string;
  readonly fields: Readonly<Record<number, ProtoField>>;
}

/**
 * The protobuf field numbers of the kinds kubectl's typed `create configmap`, `secret`,
 * `deployment`, `namespace`, `serviceaccount` and `service` send (from k8s.io/api and k8s.io/apimachinery's `generated.proto`),
 * and of the messages they nest. A field not listed here is refused, never dropped.
 */

function message(
  name: string,
  fields: Record<number, [json: string, type: ProtoType, flags?: 'repeated' | 'pointer']>,
): ProtoMessage {
  const out: Record<number, ProtoField> = {};
  for (const [number, [json, type, flag]] of Object.entries(fields)) {
    out[Number(number)] = {
      json,
      type,
      ...(flag === 'repeated' ? { repeated: true } : {}),
      ...(flag === 'pointer' ? { pointer: true } : {}),
    };
  }
  return { name, fields: out };
}

const stringMap = { map: 'string' } as const;

const ownerReference = message('OwnerReference', {
  1: ['kind', 'string'],
  3: ['name', 'string'],
  4: ['uid', 'string'],
  5: ['apiVersion', 'string'],
  6: ['controller', 'bool', 'pointer'],
  7: ['blockOwnerDeletion', 'bool', 'pointer'],
});

const objectMeta = message('ObjectMeta', {
  1: ['name', 'string'],
  2: ['generateName', 'string'],
  3: ['namespace', 'string'],
  4: ['selfLink', 'string'],
  5: ['uid', 'string'],
  6: ['resourceVersion', 'string'],
  7: ['generation', 'int'],
  8: ['creationTimestamp', 'time'],
  9: ['deletionTimestamp', 'time'],
  10: ['deletionGracePeriodSeconds', 'int', 'pointer'],
  11: ['labels', stringMap],
  12: ['annotations', stringMap],
  13: ['ownerReferences', { message: ownerReference }, 'repeated'],
  14: ['finalizers', 'string', 'repeated'],
});

const labelSelectorRequirement = message('LabelSelectorRequirement', {
  1: ['key', 'string'],
  2: ['operator', 'string'],
  3: ['values', 'string', 'repeated'],
});

const labelSelector = message('LabelSelector', {
  1: ['matchLabels', stringMap],
  2: ['matchExpressions', { message: labelSelectorRequirement }, 'repeated'],
});

const containerPort = message('ContainerPort', {
  1: ['name', 'string'],
  2: ['hostPort', 'int'],
  3: ['containerPort', 'int'],
  4: ['protocol', 'string'],
  5: ['hostIP', 'string'],
});

const envVar = message('EnvVar', {
  1: ['name', 'string'],
  2: ['value', 'string'],
});

const resourceRequirements = message('ResourceRequirements', {
  1: ['limits', { map: 'quantity' }],
  2: ['requests', { map: 'quantity' }],
});

const container = message('Container', {
  1: ['name', 'string'],
  2: ['image', 'string'],
  3: ['command', 'string', 'repeated'],
  4: ['args', 'string', 'repeated'],
  5: ['workingDir', 'string'],
  6: ['ports', { message: containerPort }, 'repeated'],
  7: ['env', { message: envVar }, 'repeated'],
  8: ['resources', { message: resourceRequirements }],
  13: ['terminationMessagePath', 'string'],
  14: ['imagePullPolicy', 'string'],
  16: ['stdin', 'bool'],
  17: ['stdinOnce', 'bool'],
  18: ['tty', 'bool'],
  20: ['terminationMessagePolicy', 'string'],
});

const podSpec = message('PodSpec', {
  2: ['containers', { message: container }, 'repeated'],
  3: ['restartPolicy', 'string'],
  4: ['terminationGracePeriodSeconds', 'int', 'pointer'],
  5: ['activeDeadlineSeconds', 'int', 'pointer'],
  6: ['dnsPolicy', 'string'],
  7: ['nodeSelector', stringMap],
  8: ['serviceAccountName', 'string'],
  9: ['serviceAccount', 'string'],
  10: ['nodeName', 'string'],
  11: ['hostNetwork', 'bool'],
  12: ['hostPID', 'bool'],
  13: ['hostIPC', 'bool'],
  16: ['hostname', 'string'],
  17: ['subdomain', 'string'],
  19: ['schedulerName', 'string'],
  20: ['initContainers', { message: container }, 'repeated'],
  21: ['automountServiceAccountToken', 'bool', 'pointer'],
  24: ['priorityClassName', 'string'],
  25: ['priority', 'int', 'pointer'],
  30: ['enableServiceLinks', 'bool', 'pointer'],
});

const podTemplateSpec = message('PodTemplateSpec', {
  1: ['metadata', { message: objectMeta }],
  2: ['spec', { message: podSpec }],
});

const rollingUpdateDeployment = message('RollingUpdateDeployment', {
  1: ['maxUnavailable', 'intOrString', 'pointer'],
  2: ['maxSurge', 'intOrString', 'pointer'],
});

const deploymentStrategy = message('DeploymentStrategy', {
  1: ['type', 'string'],
  2: ['rollingUpdate', { message: rollingUpdateDeployment }],
});

const deploymentSpec = message('DeploymentSpec', {
  1: ['replicas', 'int', 'pointer'],
  2: ['selector', { message: labelSelector }],
  3: ['template', { message: podTemplateSpec }],
  4: ['strategy', { message: deploymentStrategy }],
  5: ['minReadySeconds', 'int'],
  6: ['revisionHistoryLimit', 'int', 'pointer'],
  7: ['paused', 'bool'],
  9: ['progressDeadlineSeconds', 'int', 'pointer'],
});

const deploymentStatus = message('DeploymentStatus', {
  1: ['observedGeneration', 'int'],
  2: ['replicas', 'int'],
  3: ['updatedReplicas', 'int'],
  4: ['availableReplicas', 'int'],
  5: ['unavailableReplicas', 'int'],
  7: ['readyReplicas', 'int'],
  8: ['collisionCount', 'int', 'pointer'],
});

const objectReference = message('ObjectReference', {
  1: ['kind', 'string'],
  2: ['namespace', 'string'],
  3: ['name', 'string'],
  4: ['uid', 'string'],
  5: ['apiVersion', 'string'],
  6: ['resourceVersion', 'string'],
  7: ['fieldPath', 'string'],
});

const servicePort = message('ServicePort', {
  1: ['name', 'string'],
  2: ['protocol', 'string'],
  3: ['port', 'int'],
  4: ['targetPort', 'intOrString'],
  5: ['nodePort', 'int'],
  6: ['appProtocol', 'string', 'pointer'],
});

const serviceSpec = message('ServiceSpec', {
  1: ['ports', { message: servicePort }, 'repeated'],
  2: ['selector', stringMap],
  3: ['clusterIP', 'string'],
  4: ['type', 'string'],
  5: ['externalIPs', 'string', 'repeated'],
  7: ['sessionAffinity', 'string'],
  8: ['loadBalancerIP', 'string'],
  9: ['loadBalancerSourceRanges', 'string', 'repeated'],
  10: ['externalName', 'string'],
  11: ['externalTrafficPolicy', 'string'],
  12: ['healthCheckNodePort', 'int'],
  13: ['publishNotReadyAddresses', 'bool'],
  17: ['ipFamilyPolicy', 'string', 'pointer'],
  18: ['clusterIPs', 'string', 'repeated'],
  19: ['ipFamilies', 'string', 'repeated'],
});

/** The messages of the kinds decoded from protobuf, by `apiVersion/kind`. */
export const protobufKinds: Readonly<Record<string, ProtoMessage>> = {
  'v1/ConfigMap': message('ConfigMap', {
    1: ['metadata', { message: objectMeta }],
    2: ['data', stringMap],
    3: ['binaryData', { map: 'bytes' }],
    4: ['immutable', 'bool', 'pointer'],
  }),
  'v1/Secret': message('Secret', {
    1: ['metadata', { message: objectMeta }],
    2: ['data', { map: 'bytes' }],
    3: ['type', 'string'],
    4: ['stringData', stringMap],
    5: ['immutable', 'bool', 'pointer'],
  }),
  'v1/Namespace': message('Namespace', {
    1: ['metadata', { message: objectMeta }],
    2: ['spec', { message: message('NamespaceSpec', { 1: ['finalizers', 'string', 'repeated'] }) }],
    3: ['status', { message: message('NamespaceStatus', { 1: ['phase', 'string'] }) }],
  }),
  'v1/ServiceAccount': message('ServiceAccount', {
    1: ['metadata', { message: objectMeta }],
    2: ['secrets', { message: objectReference }, 'repeated'],
    3: [
      'imagePullSecrets',
      { message: message('LocalObjectReference', { 1: ['name', 'string'] }) },
      'repeated',
    ],
    4: ['automountServiceAccountToken', 'bool', 'pointer'],
  }),
  'v1/Service': message('Service', {
    1: ['metadata', { message: objectMeta }],
    2: ['spec', { message: serviceSpec }],
    3: [
      'status',
      {
        message: message('ServiceStatus', {
          1: ['loadBalancer', { message: message('LoadBalancerStatus', {}) }],
        }),
      },
    ],
  }),
  'apps/v1/Deployment': message('Deployment', {
    1: ['metadata', { message: objectMeta }],
    2: ['spec', { message: deploymentSpec }],
    3: ['status', { message: deploymentStatus }],
  }),
};
