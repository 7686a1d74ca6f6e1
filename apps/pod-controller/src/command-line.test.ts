// Seeds 000 and 002 define `-kubeconfig` and `-master` with Go's flag package (which takes
// one dash or two, `-flag=value` or `-flag value`); klog's flags exist in every klog program.
// Against a server that refuses connections: the command line is accepted, and -v=4 shows
// the debug lines that -v=0 does not.
import { describeSeedCommandLine } from '@kubets-apps/shared/testing';

describeSeedCommandLine({
  app: 'pod-controller',
  appDir: new URL('..', import.meta.url),
  seedArgs: (kubeconfigPath, server) => ['-kubeconfig', kubeconfigPath, `-master=${server}`],
});
