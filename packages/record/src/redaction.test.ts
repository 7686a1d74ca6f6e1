// Event broadcasters, recorders and sinks over a clientset print without its credentials
// (the clientset itself is walked in @kubets/informers' redaction test).
import { Clientset } from '@kubets/clientset';
import type { Config } from '@kubets/rest';
import { printedForms } from '@kubets/testing';
import { describe, expect, it } from 'vitest';
import { eventSinkFromClientset, newBroadcaster } from './index.js';

// Every kind of credential; the server is never contacted, so the key need not be real.
const config: Config = {
  host: 'https://admin:SECRET-URLPASS-xyz@127.0.0.1:6443',
  bearerToken: 'SECRET-TOKEN-xyz',
  username: 'admin',
  password: 'SECRET-PASSWORD-xyz',
  tls: { certData: 'CERT', keyData: 'SECRET-KEY-xyz' },
};

function expectNoSecret(value: unknown, what: string): void {
  for (const { how, text } of printedForms(value)) {
    expect(text, `${what} (${how})`).not.toMatch(/SECRET[-_]/);
  }
}

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
