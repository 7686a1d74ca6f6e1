// Seed 001's usage cases in TypeScript, one client after the other — the four ways to talk to
// the API server, from the lowest level up:
//
//   1. RESTClient      HTTP requests in Kubernetes terms: list the Nodes
//   2. DiscoveryClient what the server serves: every resource with its group and version
//   3. Clientset       typed clients: Pods and Deployments in "default", 500 at most
//   4. DynamicClient   any resource as unstructured JSON: Pods, then converted to typed Pods
//
//   node src/main.ts --kubeconfig ~/.kube/config [--master URL] [--request-timeout 32s]
//
// Without any cluster configuration it runs on an embedded API server with a few objects.

import { parseGroupVersion } from '@kubets/apimachinery';
import { Clientset, type corev1 } from '@kubets/clientset';
import { DiscoveryClient } from '@kubets/discovery';
import { DynamicClient, toTypedList } from '@kubets/dynamic';
import { RESTClient } from '@kubets/rest';
import {
  connect,
  duration,
  errorMessage,
  fatalOnUncaughtErrors,
  klog,
  parseFlags,
} from '@kubets-apps/shared';
import { clientTourDemo } from './demo.ts';

// An error nothing caught ends the program with one klog F line, not a stack dump
fatalOnUncaughtErrors();

const flags = parseFlags(
  {
    name: 'client-tour',
    summary: 'Lists objects with the RESTClient, DiscoveryClient, Clientset and DynamicClient.',
  },
  {
    'request-timeout': {
      type: 'string',
      parse: duration,
      description:
        "how long to wait for each server request, as kubectl (default: 32s for the first GET /version, as client-go's discovery client, none for the others)",
    },
  },
);

/** client-go's discovery client waits this long when the config sets no timeout (its `defaultTimeout`). */
const defaultVersionTimeoutMs = 32_000;
const requestTimeoutMs = flags['request-timeout'] || undefined;

// creates the connection (--kubeconfig/--master, KUBECONFIG, ~/.kube/config, in-cluster;
// with none of them, the embedded API server and a few demo objects)
const cluster = await connect(flags, clientTourDemo);
const config =
  requestTimeoutMs === undefined
    ? cluster.config
    : { ...cluster.config, timeoutMs: requestTimeoutMs };
const { signal } = cluster; // SIGINT/SIGTERM aborts the requests

// First make sure the server answers at all, as kubectl does: one request to /version without
// the retries of a refused connection (GETs are retried for about 10 s), so that a wrong
// server or a cluster that is down ends the tour at once with one line saying so; and with a
// deadline, so that a server that accepts the connection and never answers ends it too.
try {
  await new RESTClient({ ...config, maxRetries: 0 })
    .get()
    .absPath('/version')
    .timeout(config.timeoutMs || defaultVersionTimeoutMs)
    .signal(signal)
    .do();
} catch (err) {
  klog.fatal(`Unable to connect to the server ${config.host}: ${errorMessage(err)}`);
}

// 1. RESTClient: client-go sets config.APIPath = "api" and config.GroupVersion = core/v1 and
//    calls rest.RESTClientFor(config); here the group/version picks the path (/api/v1).
klog.info('RESTClient: GET /api/v1/nodes');
const restClient = new RESTClient(config, { groupVersion: 'v1' });
const result = await restClient.get().resource('nodes').signal(signal).do<corev1.NodeList>();
for (const d of result.items) {
  const ready = d.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
  console.log(`NAME: ${d.metadata?.name} \t READY: ${ready}`);
}

// 2. DiscoveryClient: every group/version and its resources
klog.info('DiscoveryClient: ServerGroupsAndResources');
const discoveryClient = new DiscoveryClient(config);
const { resources: apiResourceList } = await discoveryClient.serverGroupsAndResources({ signal });
for (const list of apiResourceList) {
  const gv = parseGroupVersion(list.groupVersion);
  for (const resource of list.resources) {
    console.log(`name: ${resource.name}, group: ${gv.group}, version ${gv.version}`);
  }
}

// 3. Clientset: the typed client of each group/version
const clientset = new Clientset(config);

klog.info('Clientset: CoreV1().Pods("default").List(limit 500)');
const podClient = clientset.coreV1().pods('default');
const list = await podClient.list({ limit: 500, signal });
for (const d of list.items) {
  console.log(
    `NAMESPACE: ${d.metadata?.namespace} \t NAME: ${d.metadata?.name} \t STATUS: ${d.status?.phase}`,
  );
}

klog.info('Clientset: AppsV1().Deployments("default").List(limit 500)');
const deploymentClient = clientset.appsV1().deployments('default');
const deployList = await deploymentClient.list({ limit: 500, signal });
for (const d of deployList.items) {
  console.log(
    `NAMESPACE: ${d.metadata?.namespace} \t NAME: ${d.metadata?.name} \t REPLICAS: ${d.spec?.replicas}`,
  );
}

// 4. DynamicClient: a GroupVersionResource becomes the URL; objects are unstructured JSON,
//    converted to typed Pods (client-go: runtime.DefaultUnstructuredConverter.FromUnstructured)
klog.info('DynamicClient: Resource(v1/pods).Namespace("default").List(limit 500), as typed Pods');
const dynamicClient = new DynamicClient(config);
const gvr = { group: '', version: 'v1', resource: 'pods' };
const unstructObj = await dynamicClient
  .resource(gvr)
  .namespace('default')
  .list({ limit: 500, signal });
const podList = toTypedList<corev1.Pod>(unstructObj, { apiVersion: 'v1', kind: 'Pod' });
for (const d of podList.items) {
  console.log(
    `NAMESPACE: ${d.metadata?.namespace} \t NAME: ${d.metadata?.name} \t STATUS: ${d.status?.phase}`,
  );
}

await cluster.close();
