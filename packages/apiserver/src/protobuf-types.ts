/** How one field of a message turns into JSON. */
export type ProtoType =
  | 'string'
  | 'bool'
  | 'int'
  | 'bytes'
  | 'time'
  | 'quantity'
  | 'intOrString'
  /** A `FieldsV1`: a message whose field 1 holds the JSON itself. */
  | 'fieldsV1'
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

const SCALARS = new Set([
  'string',
  'bool',
  'int',
  'bytes',
  'time',
  'quantity',
  'intOrString',
  'fieldsV1',
]);
const MAP_VALUES = new Set(['string', 'bytes', 'quantity']);

/**
 * Messages from schema text: `Name: number json[:type][[]|?], …;` — type `string` unless
 * given, `{value}` for a map of strings to `value`, any other word a message of this schema;
 * `[]` marks a repeated field and `?` a Go pointer. A message may be used before it is declared.
 */
function parseSchema(text: string): Record<string, ProtoMessage> {
  const declared = text
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const colon = part.indexOf(':');
      if (colon < 0) throw new Error(`protobuf schema: "${part}" has no "Name:" before its fields`);
      const fields = part
        .slice(colon + 1)
        .split(',')
        .map((field) => field.trim())
        .filter((field) => field !== '');
      return { name: part.slice(0, colon).trim(), fields };
    });
  const messages: Record<string, { name: string; fields: Record<number, ProtoField> }> = {};
  for (const { name } of declared) messages[name] = { name, fields: {} };
  const typeOf = (word: string, context: string): ProtoType => {
    if (SCALARS.has(word)) return word as ProtoType;
    const mapValue = /^\{(\w+)\}$/.exec(word)?.[1];
    if (mapValue !== undefined && MAP_VALUES.has(mapValue)) {
      return { map: mapValue as 'string' | 'bytes' | 'quantity' };
    }
    const nested = messages[word];
    if (!nested) throw new Error(`protobuf schema: ${context} has unknown type "${word}"`);
    return { message: nested };
  };
  for (const { name, fields } of declared) {
    const target = messages[name] as { fields: Record<number, ProtoField> };
    for (const field of fields) {
      const parts = /^(?<number>\d+) (?<json>\w+)(?::(?<type>\{\w+\}|\w+))?(?<flag>\[\]|\?)?$/.exec(
        field,
      )?.groups;
      if (!parts?.number || !parts.json) {
        throw new Error(
          `protobuf schema: ${name} field "${field}" is not "number json[:type][[]|?]"`,
        );
      }
      target.fields[Number(parts.number)] = {
        json: parts.json,
        type: typeOf(parts.type ?? 'string', `${name}.${parts.json}`),
        ...(parts.flag === '[]' ? { repeated: true } : {}),
        ...(parts.flag === '?' ? { pointer: true } : {}),
      };
    }
  }
  return messages;
}

/**
 * The protobuf field numbers of the kinds kubectl's typed `create configmap`, `secret`,
 * `deployment`, `namespace`, `serviceaccount`, `service`, `job`, `role` and `token` and
 * `auth can-i` send (from k8s.io/api and k8s.io/apimachinery's `generated.proto`), and of the
 * messages they nest. A field not listed
 * here is refused, never dropped.
 */
const schema = parseSchema(`
  OwnerReference: 1 kind, 3 name, 4 uid, 5 apiVersion, 6 controller:bool?,
    7 blockOwnerDeletion:bool?;
  ObjectMeta: 1 name, 2 generateName, 3 namespace, 4 selfLink, 5 uid, 6 resourceVersion,
    7 generation:int, 8 creationTimestamp:time, 9 deletionTimestamp:time,
    10 deletionGracePeriodSeconds:int?, 11 labels:{string}, 12 annotations:{string},
    13 ownerReferences:OwnerReference[], 14 finalizers:string[], 15 clusterName,
    17 managedFields:ManagedFieldsEntry[];
  ManagedFieldsEntry: 1 manager, 2 operation, 3 apiVersion, 4 time:time, 6 fieldsType,
    7 fieldsV1:fieldsV1, 8 subresource;
  LabelSelectorRequirement: 1 key, 2 operator, 3 values:string[];
  LabelSelector: 1 matchLabels:{string}, 2 matchExpressions:LabelSelectorRequirement[];
  ContainerPort: 1 name, 2 hostPort:int, 3 containerPort:int, 4 protocol, 5 hostIP;
  EnvVar: 1 name, 2 value;
  ResourceRequirements: 1 limits:{quantity}, 2 requests:{quantity};
  Container: 1 name, 2 image, 3 command:string[], 4 args:string[], 5 workingDir,
    6 ports:ContainerPort[], 7 env:EnvVar[], 8 resources:ResourceRequirements,
    13 terminationMessagePath, 14 imagePullPolicy, 16 stdin:bool, 17 stdinOnce:bool, 18 tty:bool,
    20 terminationMessagePolicy;
  PodSpec: 2 containers:Container[], 3 restartPolicy, 4 terminationGracePeriodSeconds:int?,
    5 activeDeadlineSeconds:int?, 6 dnsPolicy, 7 nodeSelector:{string}, 8 serviceAccountName,
    9 serviceAccount, 10 nodeName, 11 hostNetwork:bool, 12 hostPID:bool, 13 hostIPC:bool,
    16 hostname, 17 subdomain, 19 schedulerName, 20 initContainers:Container[],
    21 automountServiceAccountToken:bool?, 24 priorityClassName, 25 priority:int?,
    30 enableServiceLinks:bool?;
  PodTemplateSpec: 1 metadata:ObjectMeta, 2 spec:PodSpec;
  RollingUpdateDeployment: 1 maxUnavailable:intOrString?, 2 maxSurge:intOrString?;
  DeploymentStrategy: 1 type, 2 rollingUpdate:RollingUpdateDeployment;
  DeploymentSpec: 1 replicas:int?, 2 selector:LabelSelector, 3 template:PodTemplateSpec,
    4 strategy:DeploymentStrategy, 5 minReadySeconds:int, 6 revisionHistoryLimit:int?,
    7 paused:bool, 9 progressDeadlineSeconds:int?;
  DeploymentStatus: 1 observedGeneration:int, 2 replicas:int, 3 updatedReplicas:int,
    4 availableReplicas:int, 5 unavailableReplicas:int, 7 readyReplicas:int,
    8 collisionCount:int?;
  Deployment: 1 metadata:ObjectMeta, 2 spec:DeploymentSpec, 3 status:DeploymentStatus;
  ObjectReference: 1 kind, 2 namespace, 3 name, 4 uid, 5 apiVersion, 6 resourceVersion,
    7 fieldPath;
  LocalObjectReference: 1 name;
  ServiceAccount: 1 metadata:ObjectMeta, 2 secrets:ObjectReference[],
    3 imagePullSecrets:LocalObjectReference[], 4 automountServiceAccountToken:bool?;
  ServicePort: 1 name, 2 protocol, 3 port:int, 4 targetPort:intOrString, 5 nodePort:int,
    6 appProtocol:string?;
  ServiceSpec: 1 ports:ServicePort[], 2 selector:{string}, 3 clusterIP, 4 type,
    5 externalIPs:string[], 7 sessionAffinity, 8 loadBalancerIP,
    9 loadBalancerSourceRanges:string[], 10 externalName, 11 externalTrafficPolicy,
    12 healthCheckNodePort:int, 13 publishNotReadyAddresses:bool, 17 ipFamilyPolicy:string?,
    18 clusterIPs:string[], 19 ipFamilies:string[];
  LoadBalancerStatus: ;
  ServiceStatus: 1 loadBalancer:LoadBalancerStatus;
  Service: 1 metadata:ObjectMeta, 2 spec:ServiceSpec, 3 status:ServiceStatus;
  ConfigMap: 1 metadata:ObjectMeta, 2 data:{string}, 3 binaryData:{bytes}, 4 immutable:bool?;
  Secret: 1 metadata:ObjectMeta, 2 data:{bytes}, 3 type, 4 stringData:{string},
    5 immutable:bool?;
  NamespaceSpec: 1 finalizers:string[];
  NamespaceStatus: 1 phase;
  Namespace: 1 metadata:ObjectMeta, 2 spec:NamespaceSpec, 3 status:NamespaceStatus;
  ResourceAttributes: 1 namespace, 2 verb, 3 group, 4 version, 5 resource, 6 subresource, 7 name;
  NonResourceAttributes: 1 path, 2 verb;
  SelfSubjectAccessReviewSpec: 1 resourceAttributes:ResourceAttributes,
    2 nonResourceAttributes:NonResourceAttributes;
  SubjectAccessReviewStatus: 1 allowed:bool, 4 denied:bool, 2 reason, 3 evaluationError;
  SelfSubjectAccessReview: 1 metadata:ObjectMeta, 2 spec:SelfSubjectAccessReviewSpec,
    3 status:SubjectAccessReviewStatus;
  ResourceRule: 1 verbs:string[], 2 apiGroups:string[], 3 resources:string[],
    4 resourceNames:string[];
  NonResourceRule: 1 verbs:string[], 2 nonResourceURLs:string[];
  SubjectRulesReviewStatus: 1 resourceRules:ResourceRule[], 2 nonResourceRules:NonResourceRule[],
    3 incomplete:bool, 4 evaluationError;
  SelfSubjectRulesReviewSpec: 1 namespace;
  SelfSubjectRulesReview: 1 metadata:ObjectMeta, 2 spec:SelfSubjectRulesReviewSpec,
    3 status:SubjectRulesReviewStatus;
  JobCondition: 1 type, 2 status, 3 lastProbeTime:time, 4 lastTransitionTime:time, 5 reason,
    6 message;
  JobSpec: 1 parallelism:int?, 2 completions:int?, 3 activeDeadlineSeconds:int?,
    4 selector:LabelSelector, 5 manualSelector:bool?, 6 template:PodTemplateSpec,
    7 backoffLimit:int?, 8 ttlSecondsAfterFinished:int?;
  JobStatus: 1 conditions:JobCondition[], 2 startTime:time, 3 completionTime:time, 4 active:int,
    5 succeeded:int, 6 failed:int, 7 completedIndexes;
  Job: 1 metadata:ObjectMeta, 2 spec:JobSpec, 3 status:JobStatus;
  PolicyRule: 1 verbs:string[], 2 apiGroups:string[], 3 resources:string[],
    4 resourceNames:string[], 5 nonResourceURLs:string[];
  Role: 1 metadata:ObjectMeta, 2 rules:PolicyRule[];
  BoundObjectReference: 1 kind, 2 apiVersion, 3 name, 4 uid;
  TokenRequestSpec: 1 audiences:string[], 4 expirationSeconds:int?,
    3 boundObjectRef:BoundObjectReference;
  TokenRequestStatus: 1 token, 2 expirationTimestamp:time;
  TokenRequest: 1 metadata:ObjectMeta, 2 spec:TokenRequestSpec, 3 status:TokenRequestStatus;
`);

/** The messages of the kinds decoded from protobuf, by `apiVersion/kind`. */
export const protobufKinds: Readonly<Record<string, ProtoMessage>> = Object.fromEntries(
  [
    ['v1/ConfigMap', 'ConfigMap'],
    ['v1/Secret', 'Secret'],
    ['v1/Namespace', 'Namespace'],
    ['v1/ServiceAccount', 'ServiceAccount'],
    ['v1/Service', 'Service'],
    ['apps/v1/Deployment', 'Deployment'],
    // kubectl create job, role and token
    ['batch/v1/Job', 'Job'],
    ['rbac.authorization.k8s.io/v1/Role', 'Role'],
    ['authentication.k8s.io/v1/TokenRequest', 'TokenRequest'],
    // kubectl auth can-i
    ['authorization.k8s.io/v1/SelfSubjectAccessReview', 'SelfSubjectAccessReview'],
    ['authorization.k8s.io/v1/SelfSubjectRulesReview', 'SelfSubjectRulesReview'],
  ].map(([kind, name]) => [kind, schema[name as string] as ProtoMessage]),
);
