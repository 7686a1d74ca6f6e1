// Seeds 000 and 002 define `-kubeconfig` and `-master` with Go's flag package: the controller
// run with them (verbatim apart from the program name) against envtest's real kube-apiserver,
// at klog's default verbosity and with -v=4.
import { demoPod } from '@kubets-apps/shared';
import { describeSeedCommandLineE2E, kubectl } from '@kubets-apps/shared/testing';

const applyPod = (kubeconfigPath: string, name: string) =>
  kubectl(kubeconfigPath, ['apply', '-f', '-'], JSON.stringify(demoPod(name, 'nginx:1.25')));

describeSeedCommandLineE2E({
  app: 'pod-controller',
  appDir: new URL('..', import.meta.url),
  seedArgs: (kubeconfigPath, server) => ['-kubeconfig', kubeconfigPath, `-master=${server}`],
  longRunning: true,
  before: ({ kubeconfigPath, name }) => applyPod(kubeconfigPath, `${name}-before`),
  job: async ({ app, kubeconfigPath, name }) => {
    await app.waitFor(new RegExp(`^Sync/Add/Update for Pod ${name}-before$`));
    // The pod warmed into the cache does not exist on the server: a delete after the sync.
    await app.waitFor(/^Pod default\/mypod does not exist anymore$/);
    const since = app.output.mark();
    await applyPod(kubeconfigPath, `${name}-after`);
    await app.waitFor(new RegExp(`^Sync/Add/Update for Pod ${name}-after$`), { since });
  },
});
