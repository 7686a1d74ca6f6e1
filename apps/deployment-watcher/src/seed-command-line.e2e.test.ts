// Seed 001's first example (typed informer factory and lister) runs as `go run main.go`: no flags, the kubeconfig from
// $HOME/.kube/config (client-go's default). Run verbatim apart from the program name against
// envtest's real kube-apiserver, at klog's default verbosity and with -v=4.
import { describeSeedCommandLineE2E, watchDeploymentsJob } from '@kubets-apps/shared/testing';

describeSeedCommandLineE2E({
  app: 'deployment-watcher',
  appDir: new URL('..', import.meta.url),
  seedArgs: () => [],
  longRunning: true,
  ...watchDeploymentsJob,
});
