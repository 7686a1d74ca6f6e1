// Seed 003 runs `./crddemo --kubeconfig=… --master=… -alsologtostderr=true`: that command
// line, verbatim apart from the program name, against a server that refuses connections. It
// is accepted, and klog's -v=4 shows the debug lines that -v=0 does not. (The same command
// line against a real kube-apiserver: seed-command-line.e2e.test.ts.)
import { describeSeedCommandLine } from '@kubets-apps/shared/testing';

describeSeedCommandLine({
  app: 'crd-controller',
  appDir: new URL('..', import.meta.url),
  seedArgs: (kubeconfigPath, server) => [
    `--kubeconfig=${kubeconfigPath}`,
    `--master=${server}`,
    '-alsologtostderr=true',
  ],
});
