// The README's example, run as a test (scripts/readme-examples.mjs checks that README.md
// shows the code between the readme markers): the harness of @kubets/test-utils.

import { startApiServer } from '@kubets/apiserver';
import { podFixture, startReadmeHarness } from '@kubets/test-utils';
import { afterAll, expect, it } from 'vitest';

const { logged, create, stop } = await startReadmeHarness(startApiServer);
afterAll(stop);
await create('/api/v1/namespaces/default/pods', podFixture('default', 'web', 'web'));

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
