import { isObject, type JsonObject, type JsonValue } from './patch.js';
import {
  AGE,
  ageCell,
  columns,
  columnTable,
  NAME,
  namedPrinter,
  nameOf,
  type PrintedRow,
  type Printer,
  tableColumn,
  workloadPrinter,
} from './table-columns.js';
import {
  ageOf,
  arrayAt,
  formatLabelSelector,
  formatLabels,
  intAt,
  objectAt,
  stringAt,
} from './table-format.js';

/** `ready/total` and the pod's status word, as `kubectl get pods` shows them. */
function podStatus(pod: JsonObject): { ready: string; reason: string; restarts: number } {
  const spec = objectAt(pod, 'spec');
  const status = objectAt(pod, 'status');
  let reason = stringAt(status, 'reason', stringAt(status, 'phase'));
  let restarts = 0;
  let initializing = false;
  const initStatuses = arrayAt(status, 'initContainerStatuses').filter(isObject);
  const initCount = arrayAt(spec, 'initContainers').length;
  for (const [index, container] of initStatuses.entries()) {
    restarts += intAt(container, 'restartCount');
    const state = objectAt(container, 'state');
    const terminated = isObject(state.terminated) ? state.terminated : undefined;
    const waiting = isObject(state.waiting) ? state.waiting : undefined;
    if (terminated && intAt(terminated, 'exitCode') === 0) continue;
    initializing = true;
    if (terminated) {
      const why = stringAt(terminated, 'reason');
      reason =
        why !== ''
          ? `Init:${why}`
          : intAt(terminated, 'signal') !== 0
            ? `Init:Signal:${intAt(terminated, 'signal')}`
            : `Init:ExitCode:${intAt(terminated, 'exitCode')}`;
    } else if (
      waiting &&
      stringAt(waiting, 'reason') !== '' &&
      waiting.reason !== 'PodInitializing'
    ) {
      reason = `Init:${stringAt(waiting, 'reason')}`;
    } else {
      reason = `Init:${index}/${initCount}`;
    }
    break;
  }
  let readyCount = 0;
  if (!initializing) {
    restarts = 0;
    let running = false;
    const statuses = arrayAt(status, 'containerStatuses').filter(isObject);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const container = statuses[i] as JsonObject;
      restarts += intAt(container, 'restartCount');
      const state = objectAt(container, 'state');
      const waiting = isObject(state.waiting) ? state.waiting : undefined;
      const terminated = isObject(state.terminated) ? state.terminated : undefined;
      if (waiting && stringAt(waiting, 'reason') !== '') reason = stringAt(waiting, 'reason');
      else if (terminated && stringAt(terminated, 'reason') !== '')
        reason = stringAt(terminated, 'reason');
      else if (terminated)
        reason =
          intAt(terminated, 'signal') !== 0
            ? `Signal:${intAt(terminated, 'signal')}`
            : `ExitCode:${intAt(terminated, 'exitCode')}`;
      else if (container.ready === true && isObject(state.running)) {
        running = true;
        readyCount++;
      }
    }
    if (reason === 'Completed' && running) reason = 'Running';
  }
  if (objectAt(pod, 'metadata').deletionTimestamp !== undefined) {
    reason = status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  }
  return {
    ready: `${readyCount}/${arrayAt(spec, 'containers').length}`,
    reason,
    restarts,
  };
}

const podPrinter: Printer = {
  columns: columns(
    NAME,
    ...columnTable(`
      Ready | string | The aggregate readiness state of this pod for accepting traffic.
      Status | string | The aggregate status of the containers in this pod.
      Restarts | integer | The number of times the containers in this pod have been restarted.
    `),
    AGE,
    ...columnTable(`
      IP | string | field:io.k8s.api.core.v1.PodStatus.podIP | wide
      Node | string | field:io.k8s.api.core.v1.PodSpec.nodeName | wide
      Nominated Node | string | field:io.k8s.api.core.v1.PodStatus.nominatedNodeName | wide
      Readiness Gates | string | field:io.k8s.api.core.v1.PodSpec.readinessGates | wide
    `),
  ),
  row(pod, now) {
    const spec = objectAt(pod, 'spec');
    const status = objectAt(pod, 'status');
    const { ready, reason, restarts } = podStatus(pod);
    const ips = arrayAt(status, 'podIPs').filter(isObject);
    const ip = ips.length > 0 ? stringAt(ips[0] as JsonObject, 'ip') : stringAt(status, 'podIP');
    const gates = arrayAt(spec, 'readinessGates').filter(isObject);
    const conditions = arrayAt(status, 'conditions').filter(isObject);
    const trueGates = gates.filter((gate) =>
      conditions.some((c) => c.type === gate.conditionType && c.status === 'True'),
    ).length;
    const row: PrintedRow = {
      cells: [
        nameOf(pod),
        ready,
        reason,
        restarts,
        ageCell(pod, now),
        ip || '<none>',
        stringAt(spec, 'nodeName', '<none>'),
        stringAt(status, 'nominatedNodeName', '<none>'),
        gates.length > 0 ? `${trueGates}/${gates.length}` : '<none>',
      ],
    };
    const phase = status.phase;
    if (phase === 'Succeeded' || phase === 'Failed') {
      row.conditions = [
        {
          type: 'Completed',
          status: 'True',
          reason: phase,
          message:
            phase === 'Succeeded' ? 'The pod has completed successfully.' : 'The pod failed.',
        },
      ];
    }
    return row;
  },
};

function servicePorts(spec: JsonObject): string {
  const ports = arrayAt(spec, 'ports').filter(isObject);
  if (ports.length === 0) return '<none>';
  return ports
    .map((p) => {
      const protocol = stringAt(p, 'protocol', 'TCP');
      const nodePort = intAt(p, 'nodePort');
      return nodePort > 0
        ? `${intAt(p, 'port')}:${nodePort}/${protocol}`
        : `${intAt(p, 'port')}/${protocol}`;
    })
    .join(',');
}

function serviceExternalIp(spec: JsonObject, status: JsonObject): string {
  const external = arrayAt(spec, 'externalIPs').map(String);
  switch (spec.type ?? 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = arrayAt(objectAt(status, 'loadBalancer'), 'ingress')
        .filter(isObject)
        .map((i) => stringAt(i, 'ip', stringAt(i, 'hostname')))
        .filter((s) => s !== '');
      const all = [...external, ...ingress];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return stringAt(spec, 'externalName');
    default:
      return '<unknown>';
  }
}

const servicePrinter: Printer = {
  columns: columns(
    NAME,
    ...columnTable(`
      Type | string | field:io.k8s.api.core.v1.ServiceSpec.type
      Cluster-IP | string | field:io.k8s.api.core.v1.ServiceSpec.clusterIP
      External-IP | string | field:io.k8s.api.core.v1.ServiceSpec.externalIPs
      Port(s) | string | field:io.k8s.api.core.v1.ServiceSpec.ports
    `),
    AGE,
    ...columnTable(`
      Selector | string | field:io.k8s.api.core.v1.ServiceSpec.selector | wide
    `),
  ),
  row(service, now) {
    const spec = objectAt(service, 'spec');
    const clusterIps = arrayAt(spec, 'clusterIPs').map(String);
    return {
      cells: [
        nameOf(service),
        stringAt(spec, 'type'),
        clusterIps[0] ?? stringAt(spec, 'clusterIP', '<none>'),
        serviceExternalIp(spec, objectAt(service, 'status')),
        servicePorts(spec),
        ageCell(service, now),
        formatLabels(spec.selector),
      ],
    };
  },
};

function endpointsText(endpoints: JsonObject): string {
  const subsets = arrayAt(endpoints, 'subsets').filter(isObject);
  if (subsets.length === 0) return '<none>';
  const shown: string[] = [];
  let count = 0;
  for (const subset of subsets) {
    for (const port of arrayAt(subset, 'ports').filter(isObject)) {
      for (const address of arrayAt(subset, 'addresses').filter(isObject)) {
        const ip = stringAt(address, 'ip');
        if (shown.length < 3)
          shown.push(
            ip.includes(':') ? `[${ip}]:${intAt(port, 'port')}` : `${ip}:${intAt(port, 'port')}`,
          );
        count++;
      }
    }
  }
  const text = shown.join(',');
  return count > 3 ? `${text} + ${count - 3} more...` : text;
}

function nodeStatus(node: JsonObject): string {
  const ready = arrayAt(objectAt(node, 'status'), 'conditions')
    .filter(isObject)
    .find((c) => c.type === 'Ready');
  const words = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (objectAt(node, 'spec').unschedulable === true) words.push('SchedulingDisabled');
  return words.join(',');
}

function nodeRoles(node: JsonObject): string {
  const roles = new Set<string>();
  const labels = objectAt(node, 'metadata.labels');
  for (const [key, value] of Object.entries(labels)) {
    if (key.startsWith('node-role.kubernetes.io/')) {
      const role = key.slice('node-role.kubernetes.io/'.length);
      if (role !== '') roles.add(role);
    } else if (key === 'kubernetes.io/role' && typeof value === 'string' && value !== '') {
      roles.add(value);
    }
  }
  return roles.size > 0 ? [...roles].sort().join(',') : '<none>';
}

function nodeAddress(node: JsonObject, type: string): string {
  const found = arrayAt(objectAt(node, 'status'), 'addresses')
    .filter(isObject)
    .find((a) => a.type === type);
  return found ? stringAt(found, 'address', '<none>') : '<none>';
}

/** core/v1 and events.k8s.io/v1 Events print the same; the latter's fields are renamed. */
function eventRow(event: JsonObject, now: number): PrintedRow {
  const modern = event.regarding !== undefined || event.note !== undefined;
  const involved = objectAt(event, modern ? 'regarding' : 'involvedObject');
  const source = objectAt(event, modern ? 'deprecatedSource' : 'source');
  const first = event[modern ? 'deprecatedFirstTimestamp' : 'firstTimestamp'];
  const last = event[modern ? 'deprecatedLastTimestamp' : 'lastTimestamp'];
  const firstSeen = typeof first === 'string' ? ageOf(first, now) : ageOf(event.eventTime, now);
  let lastSeen = typeof last === 'string' ? ageOf(last, now) : firstSeen;
  let count = intAt(event, modern ? 'deprecatedCount' : 'count');
  if (isObject(event.series)) {
    lastSeen = ageOf(event.series.lastObservedTime, now);
    count = intAt(event.series, 'count');
  } else if (count === 0) count = 1;
  const kind = stringAt(involved, 'kind').toLowerCase();
  const name = stringAt(involved, 'name');
  const component = stringAt(source, 'component', stringAt(event, 'reportingController'));
  const host = stringAt(source, 'host');
  return {
    cells: [
      lastSeen,
      stringAt(event, 'type'),
      stringAt(event, 'reason'),
      name !== '' ? `${kind}/${name}` : kind,
      stringAt(involved, 'fieldPath'),
      host !== '' ? `${component}, ${host}` : component,
      stringAt(event, modern ? 'note' : 'message').trim(),
      firstSeen,
      count,
      nameOf(event),
    ],
  };
}

const eventPrinter: Printer = {
  columns: columns(
    ...columnTable(`
      Last Seen | string | When it was last seen.
      Type | string | Normal or Warning.
      Reason | string | Why it happened, in one word.
      Object | string | The object it is about.
      Subobject | string | The part of the object it is about. | wide
      Source | string | The component that reported it. | wide
      Message | string | What happened.
      First Seen | string | When it was first seen. | wide
      Count | string | How often it happened. | wide
      Name | string | The name of the object. | wide
    `),
  ),
  row: eventRow,
};

/** `kind.group/name` of an object's controller, lowercased as the printers write it. */
function controllerName(obj: JsonObject): string {
  const owner = arrayAt(objectAt(obj, 'metadata'), 'ownerReferences')
    .filter(isObject)
    .find((o) => o.controller === true);
  if (!owner) return '<none>';
  const apiVersion = stringAt(owner, 'apiVersion');
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  const kind = stringAt(owner, 'kind').toLowerCase();
  return `${group ? `${kind}.${group}` : kind}/${stringAt(owner, 'name')}`;
}

/** A workload's `spec.selector` as a selector string (empty when it has none). */
function specSelector(obj: JsonObject): string {
  return formatLabelSelector(objectAt(obj, 'spec').selector);
}

/**
 * The printers of the built-in resources the in-memory server serves, by `group/resource`:
 * the columns kube-apiserver 1.20's table printers give them (names, types, priorities) and
 * cells computed the same way.
 */
export const builtinPrinters: Readonly<Record<string, Printer>> = {
  '/pods': podPrinter,
  '/services': servicePrinter,
  '/events': eventPrinter,
  'events.k8s.io/events': eventPrinter,
  '/configmaps': namedPrinter({
    columns: `
      Data | string | field:io.k8s.api.core.v1.ConfigMap.data
    `,
    cells: (obj) => [
      Object.keys(objectAt(obj, 'data')).length + Object.keys(objectAt(obj, 'binaryData')).length,
    ],
  }),
  '/secrets': namedPrinter({
    columns: `
      Type | string | field:io.k8s.api.core.v1.Secret.type
      Data | string | field:io.k8s.api.core.v1.Secret.data
    `,
    cells: (obj) => [stringAt(obj, 'type'), Object.keys(objectAt(obj, 'data')).length],
  }),
  '/serviceaccounts': namedPrinter({
    columns: `
      Secrets | string | How many secrets it may use.
    `,
    cells: (obj) => [arrayAt(obj, 'secrets').length],
  }),
  '/namespaces': namedPrinter({
    columns: `
      Status | string | The status of the namespace
    `,
    cells: (obj) => [stringAt(objectAt(obj, 'status'), 'phase')],
  }),
  '/endpoints': namedPrinter({
    columns: `
      Endpoints | string | The first addresses and ports.
    `,
    cells: (obj) => [endpointsText(obj)],
  }),
  '/nodes': namedPrinter({
    columns: `
      Status | string | Whether the node is ready.
      Roles | string | The node’s roles, from its labels.
    `,
    cells: (node) => [nodeStatus(node), nodeRoles(node)],
    afterAge: `
      Version | string | The kubelet’s version.
      Internal-IP | string | The node’s internal address. | wide
      External-IP | string | The node’s external address. | wide
      OS-Image | string | The node’s operating system. | wide
      Kernel-Version | string | The node’s kernel. | wide
      Container-Runtime | string | The node’s container runtime. | wide
    `,
    afterAgeCells: (node) => {
      const info = objectAt(node, 'status.nodeInfo');
      return [
        stringAt(info, 'kubeletVersion'),
        nodeAddress(node, 'InternalIP'),
        nodeAddress(node, 'ExternalIP'),
        ...['osImage', 'kernelVersion', 'containerRuntimeVersion'].map((key) =>
          stringAt(info, key, '<unknown>'),
        ),
      ];
    },
  }),
  'apps/deployments': workloadPrinter({
    columns: `
      Ready | string | Ready replicas of the desired ones.
      Up-to-date | string | Replicas running the current template.
      Available | string | Replicas available to users.
    `,
    cells: (obj) => {
      const status = objectAt(obj, 'status');
      return [
        `${intAt(status, 'readyReplicas')}/${intAt(objectAt(obj, 'spec'), 'replicas')}`,
        intAt(status, 'updatedReplicas'),
        intAt(status, 'availableReplicas'),
      ];
    },
    selector: specSelector,
  }),
  'apps/replicasets': workloadPrinter({
    columns: `
      Desired | integer | Replicas wanted.
      Current | integer | Replicas created.
      Ready | integer | Replicas ready.
    `,
    cells: (obj) => {
      const status = objectAt(obj, 'status');
      return [
        intAt(objectAt(obj, 'spec'), 'replicas'),
        intAt(status, 'replicas'),
        intAt(status, 'readyReplicas'),
      ];
    },
    selector: specSelector,
  }),
  'apps/statefulsets': workloadPrinter({
    columns: `
      Ready | string | Ready replicas of the desired ones.
    `,
    cells: (obj) => [
      `${intAt(objectAt(obj, 'status'), 'readyReplicas')}/${intAt(objectAt(obj, 'spec'), 'replicas')}`,
    ],
  }),
  'apps/daemonsets': workloadPrinter({
    columns: `
      Desired | integer | Nodes that should run the pod.
      Current | integer | Nodes that run it.
      Ready | integer | Nodes where it is ready.
      Up-to-date | integer | Nodes running the current template.
      Available | integer | Nodes where it is available.
      Node Selector | string | The nodes it may run on.
    `,
    cells: (obj) => {
      const status = objectAt(obj, 'status');
      return [
        ...[
          'desiredNumberScheduled',
          'currentNumberScheduled',
          'numberReady',
          'updatedNumberScheduled',
          'numberAvailable',
        ].map((key) => intAt(status, key)),
        formatLabels(objectAt(obj, 'spec.template.spec').nodeSelector),
      ];
    },
    selector: specSelector,
  }),
  'apps/controllerrevisions': namedPrinter({
    columns: `
      Controller | string | The object that owns the revision.
      Revision | string | The revision number.
    `,
    cells: (obj) => [controllerName(obj), intAt(obj, 'revision')],
  }),
  'coordination.k8s.io/leases': namedPrinter({
    columns: `
      Holder | string | Who holds the lease.
    `,
    cells: (obj) => [stringAt(objectAt(obj, 'spec'), 'holderIdentity')],
  }),
};

/** Resources without a printer of their own: the name and the creation time (RFC 3339). */
export const defaultPrinter: Printer = {
  columns: [
    tableColumn('Name', 'string', 'name', NAME[2], 0),
    tableColumn('Created At', 'date', '', AGE[2], 0),
  ],
  row: (obj) => ({
    cells: [nameOf(obj), (objectAt(obj, 'metadata').creationTimestamp as JsonValue) ?? null],
  }),
};
