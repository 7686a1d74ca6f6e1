import { eventually } from '@kubets/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listOf, pod, runFakes, type TestPod } from '../test/helpers.js';
import { newIndexerInformer } from './controller.js';
import {
  cacheMutationDetectorEnv,
  deepFreeze,
  isCacheMutationDetectorEnabled,
  setCacheMutationDetectorDefault,
} from './mutation-detector.js';
import { newSharedIndexInformer } from './shared-informer.js';
import type { SharedIndexInformerOptions } from './shared-informer-options.js';

/** Runs an informer over a list of two pods and one watch event; resolves once all is cached. */
async function cachedPods(options: SharedIndexInformerOptions<TestPod> = {}) {
  const { lw, ac, timing } = runFakes();
  lw.listFn = () => listOf([pod('a', '1'), pod('b', '1')], '1');
  const errors: unknown[] = [];
  const informer = newSharedIndexInformer(lw, 'pods', {
    ...timing,
    onHandlerError: (err) => errors.push(err),
    ...options,
  });
  const mutatedInHandler: string[] = [];
  informer.addEventHandler({
    onUpdate: (_old, obj) => {
      obj.metadata.resourceVersion = 'changed by a handler';
      mutatedInHandler.push(obj.metadata.name);
    },
  });
  void informer.run(ac.signal);
  const w = await lw.watchNumber(1);
  w.push({ type: 'MODIFIED', object: { ...pod('a', '2'), spec: { nodeName: 'n1' } } });
  await eventually(() => errors.length + mutatedInHandler.length === 1);
  const cached = informer.getStore().getByKey('default/a');
  if (cached === undefined) throw new Error('default/a is not cached');
  return { cached, informer, errors, mutatedInHandler };
}

afterEach(() => {
  vi.unstubAllEnvs();
  setCacheMutationDetectorDefault(false);
});

describe('the cache mutation detector', () => {
  it('freezes cached objects, so that a mutation throws where it is made', async () => {
    const { cached, informer, errors, mutatedInHandler } = await cachedPods({
      detectMutations: true,
    });
    expect(() => {
      cached.metadata.name = 'renamed';
    }).toThrow(TypeError);
    expect(() => {
      if (cached.spec) cached.spec.nodeName = 'n2';
    }).toThrow(TypeError);
    expect(() => {
      (informer.getStore().list()[1] as TestPod).metadata.namespace = 'other';
    }).toThrow(TypeError);
    // The handler's mutation threw, was reported, and the cache is as the server sent it.
    expect(mutatedInHandler).toEqual([]);
    // V8 says "read only" (or "read-only"), JavaScriptCore (Bun) "readonly".
    expect(String(errors[0])).toMatch(/^TypeError: .*read[- ]?only/);
    expect(cached).toEqual({ ...pod('a', '2'), spec: { nodeName: 'n1' } });
  });

  it('freezes nothing when off', async () => {
    const { cached, errors, mutatedInHandler } = await cachedPods({ detectMutations: false });
    expect(Object.isFrozen(cached)).toBe(false);
    expect(mutatedInHandler).toEqual(['a']);
    expect(errors).toEqual([]);
    cached.metadata.name = 'renamed';
    expect(cached.metadata.name).toBe('renamed');
  });

  it('is off unless the environment or a test environment turns it on', async () => {
    vi.stubEnv(cacheMutationDetectorEnv, undefined);
    expect(isCacheMutationDetectorEnabled()).toBe(false);
    expect(Object.isFrozen((await cachedPods()).cached)).toBe(false);

    vi.stubEnv(cacheMutationDetectorEnv, 'true');
    expect(isCacheMutationDetectorEnabled()).toBe(true);
    expect(Object.isFrozen((await cachedPods()).cached)).toBe(true);

    vi.stubEnv(cacheMutationDetectorEnv, undefined);
    expect(setCacheMutationDetectorDefault(true)).toBe(false);
    expect(Object.isFrozen((await cachedPods()).cached)).toBe(true);
    // What the environment says explicitly wins over the default, as does the option.
    vi.stubEnv(cacheMutationDetectorEnv, 'false');
    expect(Object.isFrozen((await cachedPods()).cached)).toBe(false);
    expect(Object.isFrozen((await cachedPods({ detectMutations: true })).cached)).toBe(true);
    // A value that is not a boolean is ignored, as Go's ParseBool error is.
    vi.stubEnv(cacheMutationDetectorEnv, 'yes');
    expect(isCacheMutationDetectorEnabled()).toBe(true);
  });

  it('freezes after the transform, which still sees a fresh object', async () => {
    const { lw, ac, timing } = runFakes();
    lw.listFn = () => listOf([pod('a', '1')], '1');
    const informer = newSharedIndexInformer<TestPod>(lw, 'pods', {
      ...timing,
      detectMutations: true,
    });
    informer.setTransform((obj) => {
      obj.metadata.namespace = 'transformed';
      return obj;
    });
    void informer.run(ac.signal);
    await eventually(() => informer.hasSynced());
    const cached = informer.getStore().getByKey('transformed/a');
    expect(cached?.metadata.namespace).toBe('transformed');
    expect(Object.isFrozen(cached?.metadata)).toBe(true);
  });

  it('covers newIndexerInformer too', async () => {
    const { lw, ac, timing } = runFakes();
    lw.listFn = () => listOf([pod('a', '1')], '1');
    const { indexer, controller } = newIndexerInformer<TestPod>(
      lw,
      {},
      0,
      {},
      {
        ...timing,
        detectMutations: true,
      },
    );
    void controller.run(ac.signal);
    await eventually(() => controller.hasSynced());
    const cached = indexer.getByKey('default/a');
    expect(() => {
      if (cached) cached.metadata.name = 'b';
    }).toThrow(TypeError);
  });

  it('deepFreeze freezes what is reachable and returns its argument', () => {
    const obj = { a: { b: [{ c: 1 }] }, d: 'x' };
    expect(deepFreeze(obj)).toBe(obj);
    expect(Object.isFrozen(obj.a.b[0])).toBe(true);
    expect(deepFreeze(3)).toBe(3);
    expect(deepFreeze(null)).toBe(null);
  });
});
