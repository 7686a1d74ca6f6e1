import { describe, expect, it } from 'vitest';
import type { JsonObject } from './patch.js';
import { builtinResources } from './resources.js';
import { normaliseWireObject } from './wire-times.js';

const events = builtinResources().find((d) => d.group === '' && d.resource === 'events');
if (events === undefined) throw new Error('no core events resource');
const target = { definition: events, version: 'v1', namespace: 'default' };

function normalised(times: Record<string, string>): JsonObject {
  const event: JsonObject = { metadata: { name: 'e' }, ...times };
  normaliseWireObject(target, event);
  return event;
}

describe('normaliseWireObject', () => {
  it('writes Time in whole UTC seconds and MicroTime with six digits', () => {
    expect(
      normalised({
        lastTimestamp: '2026-01-01T10:00:00.5+02:00',
        eventTime: '2026-01-01T00:30:00.1234567-01:00',
      }),
    ).toMatchObject({
      lastTimestamp: '2026-01-01T08:00:00Z',
      eventTime: '2026-01-01T01:30:00.123456Z',
    });
  });

  it('keeps out-of-range values as sent instead of rolling them into another instant', () => {
    const sent = {
      lastTimestamp: '2026-13-01T00:00:00Z',
      firstTimestamp: '2026-04-31T00:00:00+02:00',
      eventTime: '2026-01-01T24:00:00.000000Z',
    };
    expect(normalised(sent)).toMatchObject(sent);
  });
});
