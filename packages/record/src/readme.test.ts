// The README's example (between the readme markers), run as a test: scripts/readme-examples.mjs
// checks that packages/record/README.md shows this code verbatim, with `from './index.js'`
// written as `from '@kubets/record'`. The cluster is the in-memory API server of
// @kubets/testing; `loadConfig()` finds it through KUBECONFIG, as kubectl would.
import { startApiServer } from '@kubets/testing';
import { afterAll, expect, it, vi } from 'vitest';

const server = await startApiServer();
process.env.KUBECONFIG = server.kubeconfigPath;
afterAll(() => server.stop());
/** What the example prints (vitest clears mock.calls before each test, so keep a copy). */
const logged: unknown[][] = [];
vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
  logged.push(args);
});

/** Writes an object to the server, as kubectl create would. */
async function create(path: string, body: object): Promise<void> {
  const res = await fetch(`${server.host}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
}
const newPod = (namespace: string, name: string, app: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels: { app } },
  spec: { containers: [{ name: 'app', image: 'nginx' }] },
});
await create('/api/v1/namespaces/default/pods', newPod('default', 'web', 'web'));

// readme:start
import { Clientset } from '@kubets/clientset';
import { loadConfig } from '@kubets/rest';
import { eventSinkFromClientset, newBroadcaster } from './index.js';

const clientset = new Clientset(loadConfig()); // as kubectl: KUBECONFIG, ~/.kube/config, ...

const broadcaster = newBroadcaster();
broadcaster.startLogging((message) => console.log(message));
broadcaster.startRecordingToSink(eventSinkFromClientset(clientset));
const recorder = broadcaster.newRecorder({ component: 'web-controller' });

// in the sync handler, for an object from the informer's cache (it needs apiVersion and kind):
const pod = await clientset.coreV1().pods('default').get('web');
recorder.event(pod, 'Normal', 'Synced', 'Pod synced successfully');
recorder.event(pod, 'Normal', 'Synced', 'Pod synced successfully'); // the same Event, count 2

// on exit: wait until the Event is written, then stop
await broadcaster.flush();
await broadcaster.shutdown();
// readme:end

it('runs the README example: one Event, recorded twice, logged twice', async () => {
  const events = await clientset.coreV1().events('default').list();
  expect(events.items).toHaveLength(1);
  expect(events.items[0]).toMatchObject({
    involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'web' },
    type: 'Normal',
    reason: 'Synced',
    message: 'Pod synced successfully',
    count: 2,
    source: { component: 'web-controller' },
  });
  expect(logged).toHaveLength(2);
  expect(String(logged[0]?.[0])).toMatch(
    /^Event\(v1\.ObjectReference\{Kind:"Pod", Namespace:"default", Name:"web", .*\): type: 'Normal' reason: 'Synced' Pod synced successfully$/,
  );
});
