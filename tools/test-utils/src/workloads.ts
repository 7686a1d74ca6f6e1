// Workload objects the tests create, on envtest or on the in-memory API server, and how
// informers select them.

/** The container of {@link deploymentOf}'s pods unless told otherwise. */
export const sleepingBusybox = {
  name: 'main',
  image: 'busybox',
  command: ['sleep', '3600'],
};

/**
 * A Deployment of `replicas` pods labelled and selected by `app: <name>`, each running
 * `container` ({@link sleepingBusybox} by default). `metadata` is added to the Deployment's
 * name: labels, a namespace.
 */
export function deploymentOf(
  name: string,
  replicas: number,
  metadata: { namespace?: string; labels?: Record<string, string> } = {},
  container: { name: string; image: string; command?: string[] } = sleepingBusybox,
) {
  return {
    apiVersion: 'apps/v1' as const,
    kind: 'Deployment' as const,
    metadata: { name, ...metadata },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [container] } },
    },
  };
}

/** A ConfigMap holding `data`; `metadata` is added to its name (labels, a namespace). */
export function configMapOf(
  name: string,
  data: Record<string, string>,
  metadata: { namespace?: string; labels?: Record<string, string> } = {},
) {
  return {
    apiVersion: 'v1' as const,
    kind: 'ConfigMap' as const,
    metadata: { name, ...metadata },
    data,
  };
}

/** A `tweakListOptions` that lists and watches only the objects matching `labelSelector`. */
export function selectingLabels(
  labelSelector: string,
): (options: { labelSelector?: unknown }) => void {
  return (options) => {
    options.labelSelector = labelSelector;
  };
}
