import { coreV1Resources } from '@kubets/clientset';
import type { EventRecorder } from '@kubets/record';
import { configMapOf, eventually, thrownBy } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { useSharedApiServer } from '../test/server.js';
import { controller, Manager } from './index.js';
import { newTestContext } from './testing.js';

const shared = useSharedApiServer();

describe('event recorders', () => {
  it('each controller records Events with its own name as source, about the object', async () => {
    const namespace = await shared.createNamespace('events-a');
    const mgr = new Manager({ host: shared.server.host, qps: -1 }, { namespace });
    controller(mgr)
      .named('mirror')
      .for(coreV1Resources.configMaps)
      .complete((_request, ctx) => {
        const cm = ctx.cached();
        if (cm) ctx.recorder.event(cm, 'Normal', 'Mirrored', `mirrored ${cm.metadata?.name}`);
      });
    const abort = new AbortController();
    const running = mgr.start(abort.signal);
    const cm = await shared.clientset
      .coreV1()
      .configMaps(namespace)
      .create(configMapOf('settings', { a: '1' }));
    // A recorder asked for by name, for something that is not a controller.
    mgr.eventRecorderFor('janitor').eventf(cm, 'Warning', 'Stale', 'left %d keys', 1);

    const events = shared.clientset.coreV1().events(namespace);
    await eventually(async () => expect((await events.list()).items).toHaveLength(2));
    const byReason = new Map((await events.list()).items.map((e) => [e.reason, e]));
    expect(byReason.get('Mirrored')).toMatchObject({
      type: 'Normal',
      message: 'mirrored settings',
      source: { component: 'mirror' },
      reportingComponent: 'mirror',
      involvedObject: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace,
        name: 'settings',
        uid: cm.metadata?.uid,
      },
    });
    expect(byReason.get('Stale')).toMatchObject({
      type: 'Warning',
      message: 'left 1 keys',
      source: { component: 'janitor' },
      involvedObject: { kind: 'ConfigMap', name: 'settings', uid: cm.metadata?.uid },
    });
    abort.abort();
    await running;
  });

  it('refuses a recorder without a name', () => {
    const mgr = new Manager({ host: shared.server.host, qps: -1 });
    expect(String(thrownBy(() => mgr.eventRecorderFor('')))).toContain(
      'eventRecorderFor needs a non-empty name (the events\' source component), got ""',
    );
  });

  it('a test context hands the reconciler the recorder given', () => {
    const recorded: string[] = [];
    const recorder: EventRecorder = {
      event: (_obj, type, reason, message) => void recorded.push(`${type} ${reason} ${message}`),
      eventf: () => {},
      annotatedEventf: () => {},
    };
    const ctx = newTestContext({ namespace: 'default', name: 'x' }, { recorder });
    ctx.recorder.event({ kind: 'ConfigMap', apiVersion: 'v1' }, 'Normal', 'Synced', 'ok');
    expect(recorded).toEqual(['Normal Synced ok']);
  });
});
