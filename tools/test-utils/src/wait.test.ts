import { describe, expect, it } from 'vitest';
import { eventually } from './wait.js';

describe('eventually', () => {
  it('returns once the condition stops throwing', async () => {
    let checks = 0;
    await eventually(() => {
      checks++;
      expect(checks).toBe(3);
    });
    expect(checks).toBe(3);
  });

  it("names what it waited for and the last check's failure in the message, with it as the cause", async () => {
    const failure = await eventually(
      () => {
        expect({ mode: 'off' }).toEqual({ mode: 'on' });
      },
      { timeoutMs: 0, what: 'the mirrored Secret' },
    ).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(Error);
    const { message, cause } = failure as Error;
    expect(message).toMatch(
      /^timed out after 0 ms waiting for the mirrored Secret: expected .*mode/,
    );
    expect(message).not.toContain('\n');
    expect(cause).toBeInstanceOf(Error);
  });

  it('keeps the plain message when the condition only returned false', async () => {
    await expect(eventually(() => false, { timeoutMs: 0 })).rejects.toThrow(
      /^timed out after 0 ms waiting for condition$/,
    );
  });
});
