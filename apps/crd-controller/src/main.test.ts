// The demo mode, run as a user would (`node src/main.ts`) with no cluster configured: seed 003's
// walk-through on the embedded API server, from the list failures before the CRD exists to
// the delete.
import { klogLine, noClusterEnv, startApp } from '@kubets-apps/shared/testing';
import { describe, expect, it } from 'vitest';

const appDir = new URL('..', import.meta.url);

describe('crd-controller demo mode', () => {
  it('plays the walk-through on the embedded API server and exits 0', async () => {
    const { env, cleanup } = noClusterEnv();
    try {
      const app = startApp(appDir, [], { env });
      const code = await app.exited;
      const out = app.output;
      expect(code, out.lines.join('\n')).toBe(0);
      expect(out.count(/demo scenario failed/)).toBe(0);

      // Each line once, in the seed's order.
      const inOrder = (patterns: RegExp[], since = 0): number[] => {
        const at: number[] = [];
        let from = since;
        for (const pattern of patterns) {
          const index = out.indexOf(pattern, from);
          expect(
            index,
            `${pattern} after line ${from}:\n${out.lines.join('\n')}`,
          ).toBeGreaterThanOrEqual(0);
          at.push(index);
          from = index + 1;
        }
        return at;
      };
      const tryProcess = (name: string, port: number): RegExp =>
        klogLine(
          'controller.ts',
          `\\[DemoCRD\\] Try to process mydemo: \\{.*"name":"${name}","namespace":"default".*"spec":\\{"ip":"127\\.0\\.0\\.1","port":${port}\\}\\} \\.\\.\\.`,
        );
      const event = (name: string, type: string, reason: string, message: string): RegExp =>
        klogLine(
          'controller.ts',
          `Event\\(v1\\.ObjectReference\\{Kind:"Mydemo", Namespace:"default", Name:"${name}", UID:"[-0-9a-f]+", APIVersion:"crddemo\\.k8s\\.io/v1", ResourceVersion:"\\d+", FieldPath:""\\}\\): type: '${type}' reason: '${reason}' ${message}`,
        );
      const synced = klogLine('controller.ts', "Successfully synced 'default/example-mydemo'");
      const failedList = klogLine(
        'main.ts',
        '.+: Failed to list \\*v1\\.Mydemo: the server could not find the requested resource \\(get mydemos\\.crddemo\\.k8s\\.io\\)',
        'E',
      );
      const [, , , firstFailure, crdCreated, startingWorkers] = inOrder([
        klogLine('controller.ts', 'Setting up mydemo event handlers'),
        klogLine('controller.ts', 'Starting Mydemo control loop'),
        klogLine('controller.ts', 'Waiting for informer caches to sync'),
        failedList,
        klogLine(
          'demo.ts',
          'demo: creating the CustomResourceDefinition mydemos\\.crddemo\\.k8s\\.io .*',
        ),
        klogLine('controller.ts', 'Starting workers'),
        klogLine('controller.ts', 'Started workers'),
        tryProcess('example-mydemo', 8080),
        synced,
        event('example-mydemo', 'Normal', 'Synced', 'Mydemo synced successfully'),
        tryProcess('example-mydemo', 9090),
        synced,
        event('example-mydemo', 'Normal', 'Synced', 'Mydemo synced successfully'),
        tryProcess('invalid-mydemo', 70000),
        klogLine(
          'controller.ts',
          '\\[DemoCRD\\] Invalid mydemo default/invalid-mydemo: spec\\.port 70000 is outside 1-65535',
          'W',
        ),
        event(
          'invalid-mydemo',
          'Warning',
          'InvalidSpec',
          'Invalid spec: spec\\.port 70000 is outside 1-65535',
        ),
        klogLine(
          'controller.ts',
          'DemoCRD: default/example-mydemo does not exist in local cache, will delete it from Mydemo \\.\\.\\.',
          'W',
        ),
        klogLine(
          'controller.ts',
          '\\[DemoCRD\\] Deleting mydemo: default/example-mydemo \\.\\.\\.',
        ),
        synced,
        klogLine(
          'demo.ts',
          'demo: Events of Mydemo objects on the API server: example-mydemo: Normal Synced ×2 "Mydemo synced successfully"; invalid-mydemo: Warning InvalidSpec ×1 "Invalid spec: spec.port 70000 is outside 1-65535"',
        ),
        klogLine('controller.ts', 'Shutting down workers'),
      ]);
      // List failures only while the CRD did not exist; the controller kept going.
      expect(firstFailure).toBeLessThan(crdCreated!);
      expect(out.count(failedList, startingWorkers)).toBe(0);
      // Every change was processed exactly once; nothing failed.
      expect(out.count(/Try to process mydemo/)).toBe(3);
      expect(out.count(/Successfully synced/)).toBe(4);
      expect(out.count(/error syncing/)).toBe(0);
      expect(out.count(/^E/, startingWorkers)).toBe(0);
    } finally {
      cleanup();
    }
  }, 90_000);

  it('refuses a bad flag with the usage and exit code 2', async () => {
    const bad = startApp(appDir, ['--threadiness', 'many']);
    expect(await bad.exited).toBe(2);
    expect(bad.output.lines[0]).toBe(
      'crd-controller: invalid value "many" for flag --threadiness: want a whole number ≥ 1',
    );
    expect(
      bad.output.count(/^ {2}--kubeconfig <value> +absolute path to the kubeconfig file$/),
    ).toBe(1);
  }, 60_000);

  it('refuses leader-election durations that do not fit together, naming the flags', async () => {
    const bad = startApp(appDir, [
      '--leader-elect',
      '--leader-elect-lease-duration',
      '4s',
      '--leader-elect-renew-deadline',
      '4s',
    ]);
    expect(await bad.exited).toBe(2);
    expect(bad.output.lines[0]).toBe(
      'crd-controller: --leader-elect-lease-duration (4s) must be greater than --leader-elect-renew-deadline (4s)',
    );
    expect(bad.output.count(/^ {2}--leader-elect-retry-period <value> .*\(default 2s\)$/)).toBe(1);
  }, 60_000);

  it('with --leader-elect, acquires the Lease before it starts and releases it after it stopped', async () => {
    const { env, cleanup } = noClusterEnv();
    delete env.POD_NAMESPACE; // so the Lease is in default
    try {
      const app = startApp(appDir, ['--leader-elect', '--leader-elect-retry-period=500ms'], {
        env,
      });
      const code = await app.exited;
      const out = app.output;
      expect(code, out.lines.join('\n')).toBe(0);
      expect(out.count(/demo scenario failed/)).toBe(0);
      const at = (pattern: RegExp): number => {
        const index = out.indexOf(pattern);
        expect(index, `${pattern}:\n${out.lines.join('\n')}`).toBeGreaterThanOrEqual(0);
        return index;
      };
      const announced = at(
        klogLine(
          'leaderelection.ts',
          'leader election: identity (\\S+)_[-0-9a-f]{36}, Lease default/crd-controller, lease duration 15s, renew deadline 10s, retry period 500ms',
        ),
      );
      const acquired = at(
        klogLine('leaderelection.ts', 'successfully acquired lease default/crd-controller'),
      );
      const setUp = at(klogLine('controller.ts', 'Setting up mydemo event handlers'));
      const shuttingDown = at(klogLine('controller.ts', 'Shutting down workers'));
      const released = at(klogLine('leaderelection.ts', 'released lease default/crd-controller'));
      const stopped = at(klogLine('leaderelection.ts', 'stopped leading: \\S+'));
      expect(announced).toBeLessThan(acquired);
      expect(acquired).toBeLessThan(setUp);
      expect(shuttingDown).toBeLessThan(released);
      expect(released).toBeLessThan(stopped);
      expect(out.count(/Successfully synced/)).toBe(4); // the whole walk-through, as without it
      expect(out.count(/leaderelection lost/)).toBe(0);
    } finally {
      cleanup();
    }
  }, 90_000);
});
