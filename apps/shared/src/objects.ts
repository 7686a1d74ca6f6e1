import type { appsv1, corev1 } from '@kubets/clientset';

/** A minimal valid Pod `name` in `default` running `image`, labelled `app: <name>`. */
export function demoPod(name: string, image: string): corev1.Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app: name } },
    spec: { containers: [{ name, image }] },
  };
}

/** A minimal valid Deployment `name` in `default` (1 replica) running `image`. */
export function demoDeployment(name: string, image: string): appsv1.Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name, image }] },
      },
    },
  };
}
