// Event broadcasters, recorders and sinks over a clientset print without its credentials
// (the clientset itself is walked in @kubets/informers' redaction test).
import { Clientset } from '@kubets/clientset';
import type { Config } from '@kubets/rest';
import { noSecretAssertion, secretConfig } from '@kubets/test-utils';
import { describe, it } from 'vitest';
import { eventSinkFromClientset, newBroadcaster } from './index.js';

const config: Config = secretConfig(); // every kind of credential, never contacted
const expectNoSecret = noSecretAssertion();

describe('event objects print without credentials', () => {
  it('a broadcaster recording to a clientset sink, its watcher and recorder', async () => {
    const sink = eventSinkFromClientset(new Clientset({ ...config }));
    expectNoSecret(sink, 'EventSink');
    const broadcaster = newBroadcaster();
    const watcher = broadcaster.startRecordingToSink(sink);
    const recorder = broadcaster.newRecorder({ component: 'redaction-test' });
    expectNoSecret(broadcaster, 'EventBroadcaster');
    expectNoSecret(watcher, 'EventWatcher');
    expectNoSecret(recorder, 'EventRecorder');
    await broadcaster.shutdown();
  });
});
