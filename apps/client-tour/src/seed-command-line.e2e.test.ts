// Seed 001's usage cases run as `go run main.go`: no flags, the kubeconfig from
// $HOME/.kube/config (client-go's default). Run verbatim apart from the program name against
// envtest's real kube-apiserver, at klog's default verbosity and with -v=4: the tour lists a
// Pod made before it starts with the Clientset and the DynamicClient, and ends by itself.
import { demoPod } from '@kubets-apps/shared';
import { describeSeedCommandLineE2E, kubectl } from '@kubets-apps/shared/testing';
import { expect } from 'vitest';

describeSeedCommandLineE2E({
  app: 'client-tour',
  appDir: new URL('..', import.meta.url),
  seedArgs: () => [],
  longRunning: false,
  before: async ({ kubeconfigPath, name }) => {
    await kubectl(
      kubeconfigPath,
      ['apply', '-f', '-'],
      JSON.stringify(demoPod(name, 'nginx:1.25')),
    );
  },
  job: async ({ app, name }) => {
    await app.exited;
    const listed = new RegExp(`^NAMESPACE: default \\t NAME: ${name} \\t STATUS: `);
    // Once by the Clientset, once by the DynamicClient (converted to typed Pods).
    expect(app.output.count(listed), app.output.lines.join('\n')).toBe(2);
  },
});
