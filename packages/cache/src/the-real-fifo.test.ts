import { describe, expect, it } from 'vitest';
import { pod, type TestPod } from '../test/helpers.js';
import { NonAtomicRealFIFO, type NonAtomicRealFIFOOptions } from './compat.js';
import { RealFIFO } from './the-real-fifo.js';

const noKnownObjects = { listKeys: () => [], getByKey: () => undefined };

describe('RealFIFO bookmarks', () => {
  it('refuses emitDeltaTypeBookmark without atomicEvents', () => {
    expect(
      () =>
        new NonAtomicRealFIFO<TestPod>({
          knownObjects: noKnownObjects,
          emitDeltaTypeBookmark: true,
        } as NonAtomicRealFIFOOptions<TestPod>),
    ).toThrow('RealFIFO: emitDeltaTypeBookmark requires atomicEvents');
  });

  it('refuses knownObjects on the atomic RealFIFO, naming the compat queue', () => {
    expect(() => new RealFIFO<TestPod>({ knownObjects: noKnownObjects } as never)).toThrow(
      /knownObjects .*NonAtomicRealFIFO of @kubets\/cache\/compat/,
    );
  });

  it('queues a bookmark in order and never batches it with object deltas', () => {
    const f = new RealFIFO<TestPod>({ emitDeltaTypeBookmark: true });
    f.add(pod('a', '1'));
    f.bookmark('2');
    f.add(pod('b', '3'));
    const handed: string[] = [];
    const record = (kind: string) => (deltas: readonly { type: string }[]) =>
      void handed.push(`${kind}: ${deltas.map((d) => d.type).join(',')}`);
    while (f.length > 0) f.tryPopBatch(record('batch'), record('single'));
    expect(handed).toEqual(['single: Added', 'single: Bookmark', 'single: Added']);
  });
});
