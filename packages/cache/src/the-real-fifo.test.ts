import { describe, expect, it } from 'vitest';
import { pod, type TestPod } from '../test/helpers.js';
import { RealFIFO } from './the-real-fifo.js';

describe('RealFIFO bookmarks', () => {
  it('refuses emitDeltaTypeBookmark without atomicEvents', () => {
    expect(
      () =>
        new RealFIFO<TestPod>({
          knownObjects: { listKeys: () => [], getByKey: () => undefined },
          emitDeltaTypeBookmark: true,
        }),
    ).toThrow('RealFIFO: emitDeltaTypeBookmark requires atomicEvents');
  });

  it('queues a bookmark in order and never batches it with object deltas', () => {
    const f = new RealFIFO<TestPod>({ atomicEvents: true, emitDeltaTypeBookmark: true });
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
