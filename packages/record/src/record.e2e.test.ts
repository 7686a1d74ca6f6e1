import { Clientset } from '@kubets/clientset';
import { loadConfig } from '@kubets/rest';
import { configMapOf, createTestNamespace, MemoryLogger, useEnvtest } from '@kubets/test-utils';
import type { ConfigMap, Event } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { type EventBroadcaster, newBroadcaster } from './broadcaster.js';
import { eventSinkFromClientset } from './sink.js';

let clientset: Clientset;
let namespace: string;
let broadcaster: EventBroadcaster;
const logger = new MemoryLogger();
const lines: string[] = [];

useEnvtest(
  async ({ kubeconfigPath: kubeconfig }) => {
    clientset = new Clientset({ ...loadConfig({ kubeconfig }), qps: -1 });
    namespace = await createTestNamespace(clientset.coreV1().namespaces(), 'record-e2e');
    broadcaster = newBroadcaster({ logger });
    broadcaster.startLogging((line) => lines.push(line));
    broadcaster.startRecordingToSink(eventSinkFromClientset(clientset));
  },
  () => broadcaster?.shutdown(),
);

async function eventsFor(reason: string): Promise<Event[]> {
  const list = await clientset.coreV1().events(namespace).list();
  return list.items.filter((e) => e.reason === reason);
}

describe('recording Events to a real kube-apiserver', () => {
  it('records events for a ConfigMap, patches repeats to count 3, and recreates a deleted event', async () => {
    const cm: ConfigMap = await clientset
      .coreV1()
      .configMaps(namespace)
      .create(configMapOf('settings', { a: '1' }));
    expect(cm.kind).toBe('ConfigMap');
    const recorder = broadcaster.newRecorder({ component: 'record-e2e', host: 'test-host' });

    recorder.event(cm, 'Normal', 'Synced', 'ConfigMap synced successfully');
    recorder.eventf(cm, 'Warning', 'Invalid', 'key %q has %d problems', 'a', 2);
    await broadcaster.flush();

    const [synced] = await eventsFor('Synced');
    expect(synced?.involvedObject).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace,
      name: 'settings',
      uid: cm.metadata?.uid,
      resourceVersion: cm.metadata?.resourceVersion,
    });
    expect(synced).toMatchObject({
      type: 'Normal',
      message: 'ConfigMap synced successfully',
      count: 1,
      source: { component: 'record-e2e', host: 'test-host' },
    });
    expect(synced?.metadata.name).toMatch(/^settings\.[0-9a-f]+$/);
    const [invalid] = await eventsFor('Invalid');
    expect(invalid).toMatchObject({ type: 'Warning', message: 'key "a" has 2 problems', count: 1 });

    recorder.event(cm, 'Normal', 'Synced', 'ConfigMap synced successfully');
    recorder.event(cm, 'Normal', 'Synced', 'ConfigMap synced successfully');
    await broadcaster.flush();
    const repeated = await eventsFor('Synced');
    expect(repeated).toHaveLength(1);
    expect(repeated[0]?.count).toBe(3);
    expect(repeated[0]?.metadata.name).toBe(synced?.metadata.name);
    expect(repeated[0]?.firstTimestamp).toBe(synced?.firstTimestamp);

    // The Event expires on the server: the next repeat's patch gets NotFound and creates it again.
    await clientset
      .coreV1()
      .events(namespace)
      .delete(synced?.metadata.name ?? '');
    recorder.event(cm, 'Normal', 'Synced', 'ConfigMap synced successfully');
    await broadcaster.flush();
    const recreated = await eventsFor('Synced');
    expect(recreated).toHaveLength(1);
    expect(recreated[0]?.count).toBe(4);

    expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(lines[0]).toBe(
      `Event(v1.ObjectReference{Kind:"ConfigMap", Namespace:"${namespace}", Name:"settings", UID:"${cm.metadata?.uid}", APIVersion:"v1", ResourceVersion:"${cm.metadata?.resourceVersion}", FieldPath:""}): type: 'Normal' reason: 'Synced' ConfigMap synced successfully`,
    );
    expect(lines).toHaveLength(5);
  });
});
