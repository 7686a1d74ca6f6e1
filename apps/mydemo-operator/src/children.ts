// What the operator runs for each Mydemo: a Deployment of `spec.replicas` pods of
// `spec.image` listening on `spec.port`, and a Service in front of them. Both are written
// with createOrUpdate, whose `mutate` sets only the fields the operator manages on the live
// object: fields the API server defaults (imagePullPolicy, terminationMessagePath,
// clusterIP, ...) stay as the server set them, so an object already right is left alone
// ('unchanged') rather than rewritten on every reconcile.

import type { appsv1, corev1 } from '@kubets/clientset';
import { setControllerReference } from '@kubets/controller';
import type { crddemoV1 } from './generated/index.ts';

/** The name of the container in each Mydemo's pods. */
export const containerName = 'mydemo';

/** The labels of a Mydemo's pods, which its Deployment and Service select. */
export function podLabels(mydemo: crddemoV1.Mydemo): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'mydemo',
    'app.kubernetes.io/instance': mydemo.metadata?.name ?? '',
  };
}

/** Adds to the Deployment's or the Service's labels the pods' and who manages them. */
function labelObject(
  object: { metadata?: { labels?: Record<string, string> } },
  mydemo: crddemoV1.Mydemo,
): void {
  const labels = { ...podLabels(mydemo), 'app.kubernetes.io/managed-by': 'mydemo-operator' };
  object.metadata = { ...object.metadata, labels: { ...object.metadata?.labels, ...labels } };
}

/** The desired state of a Mydemo, its spec with the defaults filled in. */
export interface DesiredState {
  readonly port: number;
  readonly replicas: number;
  readonly image: string;
}

/** Sets the fields of `deployment` (the live object, or a new one) that the Mydemo decides. */
export function mutateDeployment(
  deployment: appsv1.Deployment,
  mydemo: crddemoV1.Mydemo,
  desired: DesiredState,
): void {
  labelObject(deployment, mydemo);
  const spec = deployment.spec ?? { selector: {}, template: {} };
  deployment.spec = spec;
  spec.replicas = desired.replicas;
  // The selector is immutable once created: set it only on a new Deployment.
  if (spec.selector.matchLabels === undefined) spec.selector = { matchLabels: podLabels(mydemo) };
  const template = spec.template;
  template.metadata = {
    ...template.metadata,
    labels: { ...template.metadata?.labels, ...podLabels(mydemo) },
  };
  const podSpec = template.spec ?? { containers: [] };
  template.spec = podSpec;
  let container = podSpec.containers.find((c) => c.name === containerName);
  if (container === undefined) {
    container = { name: containerName };
    podSpec.containers.push(container);
  }
  container.image = desired.image;
  container.ports = [{ name: 'http', containerPort: desired.port, protocol: 'TCP' }];
  setControllerReference(mydemo, deployment);
}

/** Sets the fields of `service` (the live object, or a new one) that the Mydemo decides. */
export function mutateService(
  service: corev1.Service,
  mydemo: crddemoV1.Mydemo,
  desired: DesiredState,
): void {
  labelObject(service, mydemo);
  const spec = service.spec ?? {};
  service.spec = spec;
  spec.selector = podLabels(mydemo);
  spec.ports = [{ name: 'http', port: desired.port, targetPort: desired.port, protocol: 'TCP' }];
  setControllerReference(mydemo, service);
}
