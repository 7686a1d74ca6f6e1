import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../patch.js';
import { validateEventCreate } from './events.js';

/**
 * The namespace rules the contract tests cannot show without writing into the shared
 * `default` and `kube-system` namespaces of a real cluster, and lengths counted in bytes.
 */

const CORE = { group: '', resource: 'events' };
const EVENTS_API = { group: 'events.k8s.io', resource: 'events' };

const mismatch = (value: string) => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${JSON.stringify(value)}: does not match event.namespace`,
  field: 'involvedObject.namespace',
});

const reported = (namespace: string, extra: JsonObject = {}): JsonObject => ({
  metadata: { name: 'e', namespace },
  eventTime: '2026-01-01T00:00:00.000000Z',
  reportingComponent: 'ctl',
  reportingInstance: 'i',
  action: 'a',
  reason: 'r',
  ...extra,
});

describe('validateEventCreate', () => {
  it('lets an old client’s Event in default (or no namespace) leave involvedObject.namespace empty', () => {
    for (const namespace of ['default', '']) {
      const event = { metadata: { name: 'e', namespace }, involvedObject: { name: 'p' } };
      expect(validateEventCreate(CORE, event, [], [])).toEqual([]);
    }
    const elsewhere = { metadata: { name: 'e', namespace: 'team' }, involvedObject: {} };
    expect(validateEventCreate(CORE, elsewhere, [], [])).toEqual([mismatch('')]);
  });

  it('lets an Event with eventTime leave involvedObject.namespace empty only in kube-system', () => {
    expect(validateEventCreate(CORE, reported('kube-system'), [], [])).toEqual([]);
    expect(validateEventCreate(CORE, reported('default'), [], [])).toEqual([mismatch('')]);
    const other = reported('team', { involvedObject: { namespace: 'other' } });
    expect(validateEventCreate(CORE, other, [], [])).toEqual([]);
  });

  it('counts the length limits in bytes, as Go’s len does', () => {
    const event = reported('team', {
      involvedObject: { namespace: 'team' },
      reason: 'é'.repeat(65),
    });
    expect(validateEventCreate(CORE, event, [], [])).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "": can have at most 128 characters',
        field: 'reason',
      },
    ]);
  });

  it('reports the generic name and metadata causes only when the Event’s own rules pass', () => {
    const nameCause = { reason: 'FieldValueRequired', message: 'Required value', field: 'x' };
    const ok = {
      metadata: { name: 'e', namespace: 'team' },
      involvedObject: { namespace: 'team' },
    };
    expect(validateEventCreate(CORE, ok, [nameCause], [nameCause])).toEqual([nameCause, nameCause]);
    const strict = {
      metadata: { name: 'e', namespace: 'team' },
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'ctl',
      reportingInstance: 'i',
      action: 'a',
      reason: 'r',
      type: 'Normal',
      regarding: { namespace: 'team' },
    };
    expect(validateEventCreate(EVENTS_API, strict, [], [])).toEqual([]);
  });
});
