// Seed 003's command line, verbatim apart from the program name —
//   ./crddemo --kubeconfig=… --master=… -alsologtostderr=true
// — against envtest's real kube-apiserver, at klog's default verbosity and with -v=4: the
// controller starts, syncs the example Mydemo, logs only klog lines, and stops cleanly on
// SIGTERM.
import { fileURLToPath } from 'node:url';
import { describeSeedCommandLineE2E, klogLine, kubectl } from '@kubets-apps/shared/testing';
import { expect } from 'vitest';

const appDir = new URL('..', import.meta.url);
const crdFile = fileURLToPath(new URL('crd/mydemo.yaml', appDir));
const exampleFile = fileURLToPath(new URL('example/example-mydemo.yaml', appDir));
// A library line names its package instead of a file:line.
const klogHeader = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ \S+?(:\d+)?\] /;

describeSeedCommandLineE2E({
  app: 'crd-controller',
  appDir,
  seedArgs: (kubeconfigPath, server) => [
    `--kubeconfig=${kubeconfigPath}`,
    `--master=${server}`,
    '-alsologtostderr=true',
  ],
  longRunning: true,
  before: ({ kubeconfigPath }) => kubectl(kubeconfigPath, ['apply', '-f', crdFile]),
  job: async ({ app, kubeconfigPath }) => {
    await app.waitFor(klogLine('controller.ts', 'Started workers'));
    // Right after the CRD is created the server may briefly refuse the new kind: retried
    // until it is served, each retry one kubectl run.
    for (let attempt = 0; ; attempt++) {
      try {
        await kubectl(kubeconfigPath, ['apply', '-f', exampleFile]);
        break;
      } catch (err) {
        if (attempt === 50) throw err;
      }
    }
    await app.waitFor(klogLine('controller.ts', "Successfully synced 'default/example-mydemo'"));
    // Every line the controller wrote is a klog line (no stack traces, no stray output).
    expect(
      app.output.lines.filter((line) => !klogHeader.test(line)),
      app.output.lines.join('\n'),
    ).toEqual([]);
  },
});
