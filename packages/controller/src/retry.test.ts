import { FakeClock } from '@kubets/apimachinery/testing';
import { eventually, rejectionOf, statusError } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { defaultBackoff, defaultRetry, retryOnConflict, retryOnError } from './index.js';

const conflict = () => statusError(409, 'Conflict', 'the object has been modified');
const noJitter = { random: () => 0 };

/** Runs `promise` to its end, moving the fake clock each time the retry loop sleeps. */
async function settle<R>(clock: FakeClock, promise: Promise<R>): Promise<R> {
  let done = false;
  const watched = promise.finally(() => {
    done = true;
  });
  watched.catch(() => {});
  await eventually(() => {
    if (!done && clock.nextDue() !== undefined) clock.stepToNext();
    return done;
  });
  return watched;
}

describe('retryOnConflict', () => {
  it('keeps client-go util/retry defaults', () => {
    expect(defaultRetry).toEqual({ steps: 5, duration: 10, factor: 1.0, jitter: 0.1 });
    expect(defaultBackoff).toEqual({ steps: 4, duration: 10, factor: 5.0, jitter: 0.1 });
  });

  it.each([
    {
      name: 'returns at once on success',
      failures: 0,
      backoff: defaultRetry,
      calls: 1,
      sleeps: [],
    },
    {
      name: 'retries conflicts until success',
      failures: 2,
      backoff: defaultRetry,
      calls: 3,
      sleeps: [10, 10],
    },
    {
      name: 'gives up after steps attempts (DefaultRetry)',
      failures: 9,
      backoff: defaultRetry,
      calls: 5,
      sleeps: [10, 10, 10, 10],
    },
    {
      name: 'waits longer each time (DefaultBackoff)',
      failures: 9,
      backoff: defaultBackoff,
      calls: 4,
      sleeps: [10, 50, 250],
    },
  ])('$name', async ({ failures, backoff, calls, sleeps }) => {
    const clock = new FakeClock();
    let attempts = 0;
    const result = settle(
      clock,
      retryOnConflict(
        { ...backoff, ...noJitter },
        () => {
          attempts++;
          if (attempts <= failures) throw conflict();
          return 'written';
        },
        { clock },
      ),
    );
    if (failures >= calls) expect(String(await rejectionOf(result))).toContain('modified');
    else expect(await result).toBe('written');
    expect(attempts).toBe(calls);
    expect(clock.requestedSleeps).toEqual(sleeps);
  });

  it('throws other errors at once', async () => {
    const clock = new FakeClock();
    let attempts = 0;
    const err = await rejectionOf(
      retryOnConflict(
        defaultRetry,
        async () => {
          attempts++;
          throw statusError(404, 'NotFound');
        },
        { clock },
      ),
    );
    expect(String(err)).toContain('NotFound');
    expect(attempts).toBe(1);
    expect(clock.requestedSleeps).toEqual([]);
  });

  it('jitters each wait by up to 10 %', async () => {
    const clock = new FakeClock();
    let attempts = 0;
    await settle(
      clock,
      retryOnConflict(
        { ...defaultRetry, random: () => 0.5 },
        () => {
          if (++attempts < 3) throw conflict();
        },
        { clock },
      ),
    );
    expect(clock.requestedSleeps).toEqual([10.5, 10.5]);
  });

  it('stops waiting when the signal aborts', async () => {
    const clock = new FakeClock();
    const abort = new AbortController();
    const result = retryOnConflict(
      defaultRetry,
      () => {
        throw conflict();
      },
      { clock, signal: abort.signal },
    );
    await eventually(() => clock.requestedSleeps.length === 1);
    abort.abort(new Error('shutting down'));
    expect(String(await rejectionOf(result))).toContain('shutting down');
  });
});

describe('retryOnError', () => {
  it('retries what the predicate accepts', async () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    const result = await settle(
      clock,
      retryOnError(
        { ...defaultRetry, ...noJitter },
        (err) => String(err).includes('flaky'),
        () => {
          seen.push('call');
          if (seen.length < 2) throw new Error('flaky');
          return 42;
        },
        { clock },
      ),
    );
    expect(result).toBe(42);
    expect(seen).toHaveLength(2);
  });

  it('refuses a backoff without steps to take', async () => {
    expect(
      String(
        await rejectionOf(
          retryOnError(
            { duration: 10, steps: 0 },
            () => true,
            () => 1,
          ),
        ),
      ),
    ).toContain('backoff steps must be a positive integer, got 0');
  });
});
