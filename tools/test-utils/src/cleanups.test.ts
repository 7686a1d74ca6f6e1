import { describe, expect, it } from 'vitest';
import { runUntilCleanup } from './cleanups.js';

describe('runUntilCleanup', () => {
  it('runs until the cleanup aborts it, and the cleanup waits for the end', async () => {
    const cleanups: (() => unknown)[] = [];
    const steps: string[] = [];
    const running = runUntilCleanup(
      cleanups,
      (signal) =>
        new Promise<string>((resolve) => {
          signal.addEventListener('abort', () => {
            steps.push('aborted');
            setTimeout(() => {
              steps.push('ended');
              resolve('done');
            }, 0);
          });
        }),
    );
    expect(cleanups).toHaveLength(1);
    expect(steps).toEqual([]);
    await cleanups[0]!();
    expect(steps).toEqual(['aborted', 'ended']);
    expect(await running).toBe('done');
  });
});
