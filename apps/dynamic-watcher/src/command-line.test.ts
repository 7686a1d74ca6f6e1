// Seed 001's second example defines `-kubeconfig` with Go's flag package (one dash or two,
// `-flag=value` or `-flag value`) and runs as `go run main.go` (see main.test.ts for the run
// without flags); klog's flags exist in every klog program. Against a server that refuses
// connections: the command line is accepted, and -v=4 shows the debug lines -v=0 does not.
import { describeSeedCommandLine } from '@kubets-apps/shared/testing';

describeSeedCommandLine({
  app: 'dynamic-watcher',
  appDir: new URL('..', import.meta.url),
  seedArgs: (kubeconfigPath) => [`-kubeconfig=${kubeconfigPath}`],
});
