import {
  findStatusError,
  isConflict,
  isInvalid,
  type Status,
  StatusError,
  type StatusReason,
} from '@kubets/apimachinery';
import type { corev1 } from '@kubets/clientset';
import { configMapOf, rejectionOf } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { useSharedApiServer } from '../test/server.js';
import { finalizer, isTerminalError, TerminalError } from './index.js';

const shared = useSharedApiServer();

const configMaps = () => shared.clientset.coreV1().configMaps('default');
const FIN = 'example.com/cleanup';
let counter = 0;
const uniqueName = () => `fin-${++counter}`;

// Records which handler ran with which finalizers, and answers with `result`.
function recorder(result = 'done') {
  const calls: { handler: string; finalizers: string[] | undefined }[] = [];
  const record = (handler: string) => (obj: corev1.ConfigMap) => {
    calls.push({ handler, finalizers: obj.metadata?.finalizers });
    return result;
  };
  return { calls, handlers: { apply: record('apply'), cleanup: record('cleanup') } };
}

async function created(finalizers?: string[]): Promise<corev1.ConfigMap> {
  const cm: corev1.ConfigMap = configMapOf(uniqueName(), { k: 'v' });
  if (finalizers) cm.metadata = { ...cm.metadata, finalizers };
  return configMaps().create(cm);
}

// Deletes the object; the server keeps it, marked, while finalizers remain.
async function deleting(cm: corev1.ConfigMap): Promise<corev1.ConfigMap> {
  const name = cm.metadata?.name ?? '';
  await configMaps().delete(name);
  const marked = await configMaps().get(name);
  expect(marked.metadata?.deletionTimestamp).toBeTruthy();
  return marked;
}

/** `err` is a Conflict naming `stale` and what was refused, the server's answer its cause. */
function expectChangedSinceRead(err: unknown, stale: corev1.ConfigMap, what: string) {
  expect(isConflict(err)).toBe(true);
  expect(String(err)).toContain(
    `${stale.metadata?.namespace}/${stale.metadata?.name}: the object changed since it was read (at resourceVersion ${stale.metadata?.resourceVersion})`,
  );
  expect(String(err)).toContain(`the guarded patch to ${what} was refused`);
  expect(isInvalid((err as Error).cause)).toBe(true);
}

// The states of kube-runtime's FinalizerState, each with what must happen.
describe('finalizer', () => {
  it.each([
    { name: 'without finalizers', before: undefined, after: [FIN] },
    { name: 'with another finalizer', before: ['other.io/x'], after: ['other.io/x', FIN] },
  ])('adds the finalizer to an object $name before the first apply', async ({ before, after }) => {
    const cm = await created(before);
    const { calls, handlers } = recorder();
    expect(await finalizer(configMaps(), cm, FIN, handlers)).toBe('done');
    expect(calls).toEqual([{ handler: 'apply', finalizers: after }]);
    expect((await configMaps().get(cm.metadata?.name ?? '')).metadata?.finalizers).toEqual(after);
  });

  it('only applies when the finalizer is there, without writing', async () => {
    const cm = await created([FIN]);
    const { calls, handlers } = recorder();
    expect(await finalizer(configMaps(), cm, FIN, handlers)).toBe('done');
    expect(calls).toEqual([{ handler: 'apply', finalizers: [FIN] }]);
    const live = await configMaps().get(cm.metadata?.name ?? '');
    expect(live.metadata?.resourceVersion).toBe(cm.metadata?.resourceVersion);
  });

  it('cleans up an object being deleted, then removes the finalizer so it goes away', async () => {
    const cm = await deleting(await created(['other.io/x', FIN]));
    const { calls, handlers } = recorder('cleaned');
    expect(await finalizer(configMaps(), cm, FIN, handlers)).toBe('cleaned');
    expect(calls).toEqual([{ handler: 'cleanup', finalizers: ['other.io/x', FIN] }]);
    const live = await configMaps().get(cm.metadata?.name ?? '');
    expect(live.metadata?.finalizers).toEqual(['other.io/x']);

    // With the last finalizer gone, the server deletes the object.
    const last = await deleting(await created([FIN]));
    await finalizer(configMaps(), last, FIN, handlers);
    const gone = rejectionOf(configMaps().get(last.metadata?.name ?? ''));
    expect(String(await gone)).toMatch(/not found/);
  });

  it('does nothing for an object being deleted without our finalizer', async () => {
    const cm = await deleting(await created(['other.io/x']));
    const { calls, handlers } = recorder();
    expect(await finalizer(configMaps(), cm, FIN, handlers)).toBeUndefined();
    expect(calls).toEqual([]);
    const live = await configMaps().get(cm.metadata?.name ?? '');
    expect(live.metadata?.resourceVersion).toBe(cm.metadata?.resourceVersion);
  });

  it('propagates an apply error unchanged', async () => {
    const cm = await created([FIN]);
    const err = await rejectionOf(
      finalizer(configMaps(), cm, FIN, {
        apply: () => Promise.reject(new TerminalError('bad spec')),
        cleanup: () => undefined,
      }),
    );
    expect(isTerminalError(err)).toBe(true);
  });

  it('keeps the finalizer when cleanup fails', async () => {
    const cm = await deleting(await created([FIN]));
    const err = await rejectionOf(
      finalizer(configMaps(), cm, FIN, {
        apply: () => undefined,
        cleanup: () => {
          throw new Error('external record still there');
        },
      }),
    );
    expect(String(err)).toContain('external record still there');
    const live = await configMaps().get(cm.metadata?.name ?? '');
    expect(live.metadata?.finalizers).toEqual([FIN]);
  });

  it.each([
    { name: 'finalizers changed since it was read', finalizers: ['other.io/x'] },
    { name: 'it was written since it was read', finalizers: undefined },
  ])('refuses to add the finalizer when $name', async ({ finalizers }) => {
    const stale = await created(finalizers);
    const live = structuredClone(stale);
    live.metadata = { ...live.metadata, finalizers: [...(finalizers ?? []), 'third.io/y'] };
    await configMaps().update(live);
    const { calls, handlers } = recorder();
    const err = await rejectionOf(finalizer(configMaps(), stale, FIN, handlers));
    expectChangedSinceRead(err, stale, `add the finalizer ${FIN}`);
    expect(calls).toEqual([]);
  });

  it('does not remove a finalizer that moved since the object was read', async () => {
    const stale = await deleting(await created(['other.io/x', FIN]));
    const live = structuredClone(stale);
    live.metadata = { ...live.metadata, finalizers: [FIN] };
    await configMaps().update(live);
    const err = await rejectionOf(
      finalizer(configMaps(), stale, FIN, { apply: () => 1, cleanup: () => 2 }),
    );
    // Index 1 is gone: the patch is refused rather than removing whatever sits there.
    expectChangedSinceRead(err, stale, `remove the finalizer ${FIN}`);
    expect((await configMaps().get(stale.metadata?.name ?? '')).metadata?.finalizers).toEqual([
      FIN,
    ]);
  });

  it.each([
    {
      name: 'an empty finalizer name',
      fin: '',
      obj: { metadata: { name: 'a' } },
      message: 'finalizer name must be a non-empty string, got ""',
    },
    {
      name: 'an object without a name',
      fin: FIN,
      obj: { metadata: {} },
      message: 'finalizer needs an object with metadata.name',
    },
  ])('refuses $name', async ({ fin, obj, message }) => {
    const err = await rejectionOf(
      finalizer(configMaps(), obj, fin, { apply: () => 1, cleanup: () => 2 }),
    );
    expect(String(err)).toContain(message);
  });

  describe('a refused patch', () => {
    const stale: corev1.ConfigMap = {
      kind: 'ConfigMap',
      metadata: { name: 'web', namespace: 'ns', resourceVersion: '7' },
    };
    const rejecting = (status: Status) => ({
      patch: () => Promise.reject(new StatusError(status)),
    });
    const failure = (
      code: number,
      reason: StatusReason,
      message: string,
      causes = [] as string[],
    ) =>
      ({
        kind: 'Status',
        status: 'Failure',
        code,
        ...(reason ? { reason } : {}),
        message,
        details: { causes: causes.map((m) => ({ message: m })) },
      }) satisfies Status;

    it.each([
      {
        name: "kube-apiserver's answer to a failed test (422, generic message)",
        status: failure(
          422,
          'Invalid',
          'the server rejected our request due to an error in our request',
          ['testing value /metadata/resourceVersion failed: test failed'],
        ),
      },
      {
        name: 'a failed test answered 500 without a reason',
        status: failure(500, '', 'testing value /metadata/finalizers failed: test failed'),
      },
    ])('becomes a Conflict naming the object: $name', async ({ status }) => {
      const err = await rejectionOf(
        finalizer(rejecting(status), stale, FIN, { apply: () => 1, cleanup: () => 2 }),
      );
      expect(isConflict(err)).toBe(true);
      expect(String(err)).toContain(
        'Operation cannot be fulfilled on ConfigMap ns/web: the object changed since it was read (at resourceVersion 7)',
      );
      expect(findStatusError((err as Error).cause)?.status).toEqual(status);
    });

    it('that is a validation failure propagates unchanged', async () => {
      const refusal = new StatusError(
        failure(
          422,
          'Invalid',
          'ConfigMap "web" is invalid: metadata.finalizers[0]: Invalid value: "Bad Name"',
        ),
      );
      const err = await rejectionOf(
        finalizer({ patch: () => Promise.reject(refusal) }, stale, 'Bad Name', {
          apply: () => 1,
          cleanup: () => 2,
        }),
      );
      expect(err).toBe(refusal);
    });
  });
});
