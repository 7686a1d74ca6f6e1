// Realistic Pod JSON for the list-decoding benchmark and the large-body unit test.

/** A Pod of about 2 KB of ASCII JSON: labels, annotations, managedFields, two containers, status. */
export function makePod(i: number): Record<string, unknown> {
  const name = `web-${i.toString(36)}-7f9c${(i * 7919).toString(16).padStart(6, '0')}`;
  const namespace = `team-${i % 20}`;
  const time = '2025-03-14T09:26:53Z';
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      name,
      generateName: `web-${i.toString(36)}-`,
      namespace,
      uid: `5c8e${i.toString(16).padStart(4, '0')}-1b2a-4c3d-9e8f-0a1b2c3d4e5f`,
      resourceVersion: String(100_000 + i),
      creationTimestamp: time,
      labels: {
        app: 'web',
        'app.kubernetes.io/name': 'web',
        'app.kubernetes.io/instance': `web-${i % 50}`,
        'pod-template-hash': '7f9c6d8b5',
        tier: i % 2 === 0 ? 'frontend' : 'backend',
      },
      annotations: {
        'kubectl.kubernetes.io/restartedAt': time,
        'prometheus.io/scrape': 'true',
        description: `Replica ${i}: serves "static" assets from C:\\www`,
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `web-${i.toString(36)}`,
          uid: '0d9c8b7a-6f5e-4d3c-2b1a-0f9e8d7c6b5a',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time,
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': {
              'f:generateName': {},
              'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {} },
              'f:ownerReferences': {
                '.': {},
                'k:{"uid":"0d9c8b7a-6f5e-4d3c-2b1a-0f9e8d7c6b5a"}': {},
              },
            },
            'f:spec': {
              'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } },
              'f:restartPolicy': {},
            },
          },
        },
      ],
    },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'registry.example.com/web:1.27.3',
          ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
          resources: {
            limits: { cpu: '500m', memory: '256Mi' },
            requests: { cpu: '100m', memory: '128Mi' },
          },
          terminationMessagePath: '/dev/termination-log',
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      nodeName: `node-${i % 100}`,
    },
    status: {
      phase: 'Running',
      conditions: [
        { type: 'Initialized', status: 'True', lastTransitionTime: time },
        { type: 'Ready', status: 'True', lastTransitionTime: time },
      ],
      hostIP: `10.0.${i % 100}.1`,
      podIP: `10.244.${(i >> 8) % 256}.${i % 256}`,
      startTime: time,
      containerStatuses: [
        {
          name: 'web',
          ready: true,
          restartCount: 0,
          image: 'registry.example.com/web:1.27.3',
          imageID:
            'registry.example.com/web@sha256:4f5e6d7c8b9a0f1e2d3c4b5a69788776655443322110ffeeddccbbaa99887766',
          containerID: `containerd://${(i * 2654435761).toString(16).padStart(16, '0')}`,
          started: true,
          state: { running: { startedAt: time } },
        },
      ],
      qosClass: 'Burstable',
    },
  };
}

/** A `PodList` of `count` pods as JSON bytes. */
export function makePodListBody(count: number, resourceVersion = '123456'): Buffer {
  const items = Array.from({ length: count }, (_, i) => makePod(i));
  return Buffer.from(
    JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion }, items }),
    'utf8',
  );
}

/** Splits bytes into chunks of `size` (views, no copies), as a socket would deliver them. */
export function chunksOf(body: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let start = 0; start < body.length; start += size) {
    chunks.push(body.subarray(start, Math.min(body.length, start + size)));
  }
  return chunks;
}
