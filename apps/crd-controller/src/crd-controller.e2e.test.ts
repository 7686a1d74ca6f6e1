// Seed 003's walk-through against envtest's real kube-apiserver, driven with kubectl as the
// seed does: start the controller before the CRD exists, `kubectl apply -f crd/mydemo.yaml`,
// apply the example, change its port to 9090 and apply again, delete it — then SIGTERM.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Envtest, startEnvtest } from '@kubets/envtest';
import { type AppProcess, klogLine, kubectl, startApp } from '@kubets-apps/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const appDir = new URL('..', import.meta.url);
const crdFile = fileURLToPath(new URL('crd/mydemo.yaml', appDir));
const exampleFile = fileURLToPath(new URL('example/example-mydemo.yaml', appDir));

interface EventJson {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  involvedObject: { kind?: string; name?: string; namespace?: string; apiVersion?: string };
}

const tryProcess = (name: string, port: number): RegExp =>
  klogLine(
    'controller.ts',
    `\\[DemoCRD\\] Try to process mydemo: (\\{.*"name":"${name}","namespace":"default".*"spec":\\{"ip":"127\\.0\\.0\\.1","port":${port}\\}\\}) \\.\\.\\.`,
  );
const synced = (name: string): RegExp =>
  klogLine('controller.ts', `Successfully synced 'default/${name}'`);
const eventLine = (name: string, type: string, reason: string, message: string): RegExp =>
  klogLine(
    'controller.ts',
    `Event\\(v1\\.ObjectReference\\{Kind:"Mydemo", Namespace:"default", Name:"${name}", UID:"[-0-9a-f]+", APIVersion:"crddemo\\.k8s\\.io/v1", ResourceVersion:"\\d+", FieldPath:""\\}\\): type: '${type}' reason: '${reason}' ${message}`,
  );
const failedList = klogLine(
  'main.ts',
  '.+: Failed to list \\*v1\\.Mydemo: the server could not find the requested resource \\(get mydemos\\.crddemo\\.k8s\\.io\\)',
  'E',
);

/** The object printed by a "Try to process" line. */
function processed(
  line: string,
  pattern: RegExp,
): { metadata: { resourceVersion: string; generation: number } } {
  const json = pattern.exec(line)?.[1];
  if (json === undefined) throw new Error(`not a "Try to process" line: ${line}`);
  return JSON.parse(json) as { metadata: { resourceVersion: string; generation: number } };
}

describe('crd-controller against a real kube-apiserver', () => {
  let env: Envtest;
  let app: AppProcess | undefined;

  beforeAll(async () => {
    env = await startEnvtest();
  });

  afterAll(async () => {
    await app?.stop('SIGKILL');
    await env?.stop();
  });

  /** Events about Mydemo objects, as `kubectl get events -o json` shows them. */
  async function mydemoEvents(): Promise<EventJson[]> {
    const list = JSON.parse(
      await kubectl(env.kubeconfigPath, ['get', 'events', '-n', 'default', '-o', 'json']),
    ) as { items: EventJson[] };
    return list.items.filter((e) => e.involvedObject.kind === 'Mydemo');
  }

  /** Polls `kubectl get events` until `accept` is satisfied (the recorder writes asynchronously). */
  async function eventsUntil(accept: (events: EventJson[]) => boolean): Promise<EventJson[]> {
    for (let attempt = 0; ; attempt++) {
      const events = await mydemoEvents();
      if (accept(events) || attempt === 60) return events;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  it("replays the seed's walk-through with kubectl and stops cleanly on SIGTERM", async () => {
    const kube = (args: string[], stdin?: string): Promise<string> =>
      kubectl(env.kubeconfigPath, args, stdin);

    // 1. The controller starts before the CRD exists: its list fails, is logged and retried
    //    with backoff, and the controller keeps waiting for the cache.
    app = startApp(appDir, ['--kubeconfig', env.kubeconfigPath]);
    const out = app.output;
    await app.waitFor(klogLine('controller.ts', 'Setting up mydemo event handlers'));
    await app.waitFor(klogLine('controller.ts', 'Starting Mydemo control loop'));
    await app.waitFor(klogLine('controller.ts', 'Waiting for informer caches to sync'));
    const firstFailure = out.indexOf(await app.waitFor(failedList));
    await app.waitFor(failedList, { since: firstFailure + 1 }); // retried, still running
    expect(out.count(/Starting workers/)).toBe(0);

    // 2. kubectl apply -f crd/mydemo.yaml: the list succeeds, the workers start.
    expect(await kube(['apply', '-f', crdFile])).toBe(
      'customresourcedefinition.apiextensions.k8s.io/mydemos.crddemo.k8s.io created\n',
    );
    await app.waitFor(klogLine('controller.ts', 'Starting workers'));
    const started = out.indexOf(await app.waitFor(klogLine('controller.ts', 'Started workers')));
    expect(out.count(failedList, started)).toBe(0);

    // 3. kubectl apply -f example-mydemo.yaml: processed, synced, a Normal Synced Event.
    // (Right after the CRD is created the server may briefly refuse the new kind; retry.)
    let since = out.mark();
    for (let attempt = 0; ; attempt++) {
      try {
        expect(await kube(['apply', '-f', exampleFile])).toBe(
          'mydemo.crddemo.k8s.io/example-mydemo created\n',
        );
        break;
      } catch (err) {
        if (attempt === 20) throw err;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    const first = processed(
      await app.waitFor(tryProcess('example-mydemo', 8080), { since }),
      tryProcess('example-mydemo', 8080),
    );
    await app.waitFor(synced('example-mydemo'), { since });
    await app.waitFor(
      eventLine('example-mydemo', 'Normal', 'Synced', 'Mydemo synced successfully'),
      {
        since,
      },
    );
    expect(out.indexOf(synced('example-mydemo'), since)).toBeGreaterThan(
      out.indexOf(tryProcess('example-mydemo', 8080), since),
    );

    // 4. Change the port to 9090 and apply again: a new resourceVersion is processed.
    since = out.mark();
    const changed = readFileSync(exampleFile, 'utf8').replace('port: 8080', 'port: 9090');
    expect(changed).toContain('port: 9090');
    expect(await kube(['apply', '-f', '-'], changed)).toBe(
      'mydemo.crddemo.k8s.io/example-mydemo configured\n',
    );
    const second = processed(
      await app.waitFor(tryProcess('example-mydemo', 9090), { since }),
      tryProcess('example-mydemo', 9090),
    );
    expect(second.metadata.resourceVersion).not.toBe(first.metadata.resourceVersion);
    expect(second.metadata.generation).toBe(first.metadata.generation + 1);
    await app.waitFor(synced('example-mydemo'), { since });
    await app.waitFor(
      eventLine('example-mydemo', 'Normal', 'Synced', 'Mydemo synced successfully'),
      {
        since,
      },
    );

    // The Synced Event is on the server: kubectl get events.
    const events = await eventsUntil((list) =>
      list.some((e) => e.involvedObject.name === 'example-mydemo' && (e.count ?? 1) >= 2),
    );
    const syncedEvents = events.filter(
      (e) => e.involvedObject.name === 'example-mydemo' && e.reason === 'Synced',
    );
    expect(syncedEvents).toHaveLength(1); // the repeat patched the count
    expect(syncedEvents[0]).toMatchObject({
      type: 'Normal',
      reason: 'Synced',
      message: 'Mydemo synced successfully',
      count: 2,
      involvedObject: {
        kind: 'Mydemo',
        name: 'example-mydemo',
        namespace: 'default',
        apiVersion: 'crddemo.k8s.io/v1',
      },
    });

    // 5. A port the schema does not bound but the controller rejects: a Warning Event, no crash.
    since = out.mark();
    const invalid = readFileSync(exampleFile, 'utf8')
      .replace('name: example-mydemo', 'name: invalid-mydemo')
      .replace('port: 8080', 'port: 70000');
    expect(await kube(['apply', '-f', '-'], invalid)).toBe(
      'mydemo.crddemo.k8s.io/invalid-mydemo created\n',
    );
    await app.waitFor(
      klogLine(
        'controller.ts',
        '\\[DemoCRD\\] Invalid mydemo default/invalid-mydemo: spec\\.port 70000 is outside 1-65535',
        'W',
      ),
      { since },
    );
    await app.waitFor(
      eventLine(
        'invalid-mydemo',
        'Warning',
        'InvalidSpec',
        'Invalid spec: spec\\.port 70000 is outside 1-65535',
      ),
      { since },
    );
    const warnings = await eventsUntil((list) => list.some((e) => e.reason === 'InvalidSpec'));
    expect(warnings.filter((e) => e.reason === 'InvalidSpec')).toEqual([
      expect.objectContaining({
        type: 'Warning',
        message: 'Invalid spec: spec.port 70000 is outside 1-65535',
        involvedObject: expect.objectContaining({ name: 'invalid-mydemo' }),
      }),
    ]);

    // 6. kubectl delete -f example-mydemo.yaml: gone from the cache, "deleted".
    since = out.mark();
    expect(await kube(['delete', '-f', exampleFile])).toBe(
      'mydemo.crddemo.k8s.io "example-mydemo" deleted\n',
    );
    const gone = out.indexOf(
      await app.waitFor(
        klogLine(
          'controller.ts',
          'DemoCRD: default/example-mydemo does not exist in local cache, will delete it from Mydemo \\.\\.\\.',
          'W',
        ),
        { since },
      ),
    );
    const deleting = out.indexOf(
      await app.waitFor(
        klogLine(
          'controller.ts',
          '\\[DemoCRD\\] Deleting mydemo: default/example-mydemo \\.\\.\\.',
        ),
        {
          since,
        },
      ),
    );
    expect(deleting).toBe(gone + 1);
    await app.waitFor(synced('example-mydemo'), { since: deleting });
    const remaining = JSON.parse(await kube(['get', 'mydemos', '-n', 'default', '-o', 'json'])) as {
      items: { metadata: { name: string } }[];
    };
    expect(remaining.items.map((i) => i.metadata.name)).toEqual(['invalid-mydemo']);

    // Nothing failed after the workers started.
    expect(out.count(/^E/, started)).toBe(0);
    expect(out.count(/error syncing/)).toBe(0);

    // 7. SIGTERM: a clean stop.
    since = out.mark();
    expect(await app.stop('SIGTERM')).toBe(0);
    expect(out.count(klogLine('controller.ts', 'Shutting down workers'), since)).toBe(1);
  });
});
