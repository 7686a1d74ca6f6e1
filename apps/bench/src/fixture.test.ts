import { describe, expect, it } from 'vitest';
import {
  generationLabel,
  generationPatch,
  note,
  noteAnnotation,
  podFixture,
  podName,
} from './fixture.ts';

describe('podFixture', () => {
  it('is about 0.93 KB as sent (about 2.7 KB as listed, with defaults, status, managedFields)', () => {
    for (const i of [0, 7, 9_999, 99_999]) {
      const bytes = Buffer.byteLength(JSON.stringify(podFixture(i)));
      expect(bytes).toBeGreaterThan(850);
      expect(bytes).toBeLessThan(1000);
    }
  });

  it('carries labels and a 200-byte annotation', () => {
    const pod = podFixture(42) as {
      metadata: {
        name: string;
        labels: Record<string, string>;
        annotations: Record<string, string>;
      };
    };
    expect(pod.metadata.name).toBe('bench-pod-000042');
    expect(Object.keys(pod.metadata.labels).length).toBeGreaterThanOrEqual(3);
    expect(pod.metadata.labels[generationLabel]).toBe('g0');
    expect(Buffer.byteLength(pod.metadata.annotations[noteAnnotation]!)).toBe(200);
    expect(note(1)).not.toBe(note(2));
  });

  it('names Pods so that they sort in creation order', () => {
    expect(podName(9) < podName(10)).toBe(true);
    expect(podName(99_999) < podName(100_000)).toBe(true);
  });

  it('patches the generation label with a merge patch', () => {
    expect(JSON.parse(generationPatch('r1'))).toEqual({
      metadata: { labels: { [generationLabel]: 'r1' } },
    });
  });
});
