// The demo mode, run as a user would (`node src/main.ts`) with no cluster configured: the
// walk-through on the embedded API server, from the first Mydemo to the metrics.

import type { LineLog } from '@kubets-apps/shared';
import { itRefusesAnUnknownFlag, klogLine, runCommandLine } from '@kubets-apps/shared/testing';
import { describe, expect, it } from 'vitest';

const appDir = new URL('..', import.meta.url);

/** A line of the operator's logger about `default/<name>`. */
const operatorLine = (name: string, message: string, severity = 'I'): RegExp =>
  new RegExp(
    `^${severity}\\d{4} [\\d:.]+ +\\d+ mydemo-operator\\] ${message} controller="mydemo" namespace="default" name="${name}"`,
  );

/** Expects a line matching each pattern, each after the previous one's line. */
function expectInOrder(out: LineLog, patterns: readonly RegExp[]): void {
  let from = 0;
  for (const pattern of patterns) {
    const index = out.indexOf(pattern, from);
    expect(index, `${pattern} after line ${from}:\n${out.lines.join('\n')}`).toBeGreaterThanOrEqual(
      0,
    );
    from = index + 1;
  }
}

describe('mydemo-operator demo mode', () => {
  it('plays the walk-through on the embedded API server and exits 0', async () => {
    const { output: out, code } = await runCommandLine(appDir, []);
    expect(code, out.lines.join('\n')).toBe(0);
    expect(out.count(/demo scenario failed/)).toBe(0);

    expectInOrder(out, [
      klogLine(
        'main.ts',
        'no cluster configuration found; running on the embedded in-memory API server',
      ),
      klogLine(
        'demo.ts',
        'demo: creating the CustomResourceDefinition mydemos\\.crddemo\\.k8s\\.io \\(crd/mydemo\\.yaml\\)',
      ),
      /mydemo-operator\] Serving metrics server bindAddress=\{"host":"127\.0\.0\.1","port":\d+\}/,
      /mydemo-operator\] Webhook server started paths=\["\/convert","\/mutate-crddemo-k8s-io-v1-mydemo","\/validate-crddemo-k8s-io-v1-mydemo"\]$/,
      /mydemo-operator\] Serving health probes bindAddress=\{"host":"127\.0\.0\.1","port":\d+\}/,
      /mydemo-operator\] Caches synced informers=3$/,
      /mydemo-operator\] Starting workers controller="mydemo" workerCount=1$/,
      // Stored before the webhooks were installed: refused in its status.
      operatorLine('invalid-mydemo', 'Invalid spec', 'W'),
      /Status updated .*name="invalid-mydemo" reconcileID="[-0-9a-f]+" observedGeneration=1 conditions="Ready=False \(InvalidSpec\)"/,
      klogLine(
        'demo.ts',
        "demo: installing the webhook configurations and the CRD's conversion webhook \\(https://127\\.0\\.0\\.1:\\d+\\)",
      ),
      klogLine('demo.ts', 'demo: default/example-mydemo was created with the image nginx:1\\.25'),
      operatorLine('example-mydemo', 'Deployment created'),
      operatorLine('example-mydemo', 'Service created'),
      operatorLine('example-mydemo', 'External record written'),
      operatorLine('example-mydemo', 'Status updated'),
      klogLine(
        'demo.ts',
        'demo: external record of default/example-mydemo: \\{"namespace":"default","name":"example-mydemo","uid":"[-0-9a-f]+","ip":"127\\.0\\.0\\.1","port":8080,"service":"example-mydemo\\.default\\.svc"\\}',
      ),
      /Status updated .*name="example-mydemo" reconcileID="[-0-9a-f]+" observedGeneration=1 conditions="Ready=True \(Reconciled\), Available=True \(MinimumReplicasAvailable\)"/,
      operatorLine('example-mydemo', 'Deployment updated'),
      operatorLine('example-mydemo', 'Service updated'),
      /External record written .*name="example-mydemo" reconcileID="[-0-9a-f]+" ip="127\.0\.0\.1" port=9090/,
      /Status updated .*name="example-mydemo" reconcileID="[-0-9a-f]+" observedGeneration=2 /,
      klogLine('demo.ts', 'demo: deleting Deployment default/example-mydemo .*'),
      operatorLine('example-mydemo', 'Deployment created'),
      klogLine(
        'demo.ts',
        'demo: refused: admission webhook "vmydemo\\.crddemo\\.k8s\\.io" denied the request: Mydemo\\.crddemo\\.k8s\\.io "refused-mydemo" is invalid: spec\\.port 70000 is outside 1-65535',
      ),
      klogLine(
        'demo.ts',
        'demo: default/alpha-mydemo read at v1: spec \\{"image":"nginx:1\\.25","ip":"127\\.0\\.0\\.1","port":8081\\}',
      ),
      operatorLine('alpha-mydemo', 'Deployment created'),
      operatorLine('example-mydemo', 'External record removed'),
      operatorLine('example-mydemo', 'Deployment deleted'),
      operatorLine('example-mydemo', 'Service deleted'),
      operatorLine('example-mydemo', 'Finalizer removed'),
      klogLine('demo.ts', 'demo: external record of default/example-mydemo: none'),
      klogLine('demo.ts', 'demo: Mydemos left: alpha-mydemo, invalid-mydemo'),
      operatorLine('alpha-mydemo', 'Finalizer removed'),
      operatorLine('invalid-mydemo', 'Finalizer removed'),
      klogLine(
        'demo.ts',
        'demo: metrics \\(http://127\\.0\\.0\\.1:\\d+/metrics\\): controller_runtime_reconcile_total\\{controller="mydemo",result="success"\\} \\d+; controller_runtime_reconcile_total\\{controller="mydemo",result="error"\\} 0; .*',
      ),
      /mydemo-operator\] All workers finished controller="mydemo"$/,
      /mydemo-operator\] Manager stopped$/,
      klogLine('main.ts', 'Stopped the Mydemo operator'),
    ]);
    // Nothing failed on the way.
    expect(out.count(/Reconciler error/)).toBe(0);
    expect(out.count(/^[EF]\d{4}/)).toBe(0);
  }, 120_000);

  it('with --leader-elect, acquires the Lease before it reconciles and releases it after its workers stopped', async () => {
    const { output: out, code } = await runCommandLine(appDir, ['--leader-elect']);
    expect(code, out.lines.join('\n')).toBe(0);
    expectInOrder(out, [
      /mydemo-operator\] Caches synced informers=3$/,
      /mydemo-operator\] successfully acquired lease default\/mydemo-operator lock=/,
      /mydemo-operator\] Became leader; starting controllers identity="[^"]+"$/,
      /mydemo-operator\] Starting workers controller="mydemo"/,
      /Finalizer removed .*name="invalid-mydemo"/, // the whole walk-through, as without it
      /mydemo-operator\] All workers finished controller="mydemo"$/,
      /mydemo-operator\] released lease default\/mydemo-operator lock=/,
      /mydemo-operator\] Manager stopped$/,
    ]);
    expect(out.count(/demo scenario failed/)).toBe(0);
  }, 120_000);

  it('refuses a bad value with the usage and exit code 2', async () => {
    const { output, code } = await runCommandLine(appDir, ['-max-concurrent-reconciles=many']);
    expect([code, output.lines[0]]).toEqual([
      2,
      'mydemo-operator: invalid value "many" for flag -max-concurrent-reconciles: want a whole number ≥ 1',
    ]);
    expect(output.count(/^ {2}--records-dir <value> +directory of the external records/)).toBe(1);
  }, 60_000);

  itRefusesAnUnknownFlag('mydemo-operator', appDir);
});
