// Seed 003's command line, verbatim apart from the program name —
//   ./crddemo --kubeconfig=… --master=… -alsologtostderr=true
// — against envtest's real kube-apiserver: accepted, the controller starts, syncs the
// example Mydemo and logs in klog's format, and stops cleanly on SIGTERM.

import { fileURLToPath } from 'node:url';
import { type Envtest, startEnvtest } from '@kubets/testing';
import {
  type AppProcess,
  flagErrorLine,
  klogLine,
  kubectl,
  startApp,
} from '@kubets-apps/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const appDir = new URL('..', import.meta.url);
const crdFile = fileURLToPath(new URL('crd/mydemo.yaml', appDir));
const exampleFile = fileURLToPath(new URL('example/example-mydemo.yaml', appDir));
const klogHeader = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ \S+:\d+\] /;

describe("crd-controller with seed 003's command line against a real kube-apiserver", () => {
  let env: Envtest;
  let app: AppProcess | undefined;

  beforeAll(async () => {
    env = await startEnvtest();
  });

  afterAll(async () => {
    await app?.stop('SIGKILL');
    await env?.stop();
  });

  it('accepts --kubeconfig=… --master=… -alsologtostderr=true, runs, and logs klog lines', async () => {
    await kubectl(env.kubeconfigPath, ['apply', '-f', crdFile]);

    app = startApp(appDir, [
      `--kubeconfig=${env.kubeconfigPath}`,
      `--master=${env.host}`,
      '-alsologtostderr=true',
    ]);
    const out = app.output;
    await app.waitFor(klogLine('controller.ts', 'Started workers'));

    // The server may briefly refuse the new kind right after the CRD is created: retry.
    for (let attempt = 0; ; attempt++) {
      try {
        await kubectl(env.kubeconfigPath, ['apply', '-f', exampleFile]);
        break;
      } catch (err) {
        if (attempt === 20) throw err;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    await app.waitFor(klogLine('controller.ts', "Successfully synced 'default/example-mydemo'"));

    expect(await app.stop('SIGTERM')).toBe(0);
    expect(out.count(flagErrorLine), out.lines.join('\n')).toBe(0);
    expect(out.count(/no cluster configuration found|embedded in-memory API server/)).toBe(0);
    // Every line the controller wrote is a klog line (no stack traces, no stray output).
    expect(
      out.lines.filter((line) => !klogHeader.test(line)),
      out.lines.join('\n'),
    ).toEqual([]);
  }, 180_000);
});
