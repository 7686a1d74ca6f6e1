import { expect, vi } from 'vitest';

/**
 * On vitest's fake timers: checks that `promise` is still pending `ms - 1` ms from now and has
 * resolved once the clock reaches `ms`.
 */
export async function expectResolvesAfter(promise: Promise<unknown>, ms: number): Promise<void> {
  let done = false;
  const settled = promise.then(() => {
    done = true;
  });
  await vi.advanceTimersByTimeAsync(ms - 1);
  expect(done).toBe(false);
  await vi.advanceTimersByTimeAsync(1);
  await settled;
  expect(done).toBe(true);
}
