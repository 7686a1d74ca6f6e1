import { expect, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
import { contractCalls } from './contract-helpers.js';
import {
  type Cause,
  expectInvalid,
  invalid,
  LABEL_VALUE,
  QUALIFIED,
  required,
  SUBDOMAIN,
} from './validation-causes.js';

/**
 * Event validation as kube-apiserver 1.20 does it (issue 18): lenient through core/v1 (the
 * involved object's namespace), strict on create through events.k8s.io/v1 (eventTime, the
 * reporting fields, type, series, no deprecated fields). Causes name the core Event's fields,
 * whichever API the request came through.
 */

/** The collections of the two Event APIs in a namespace. */
export const EVENT_PATHS = {
  core: (ns: string): string => `/api/v1/namespaces/${ns}/events`,
  events: (ns: string): string => `/apis/events.k8s.io/v1/namespaces/${ns}/events`,
};

const EVENT_TIME = '2026-01-01T00:00:00.000000Z';

/** An events.k8s.io/v1 Event that 1.20 accepts, about a pod in `ns`. */
const validEvent = (ns: string, name: string): Record<string, unknown> => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: EVENT_TIME,
  reportingController: 'kubets.io/ctl',
  reportingInstance: 'ctl-1',
  action: 'Sync',
  reason: 'Synced',
  type: 'Normal',
  regarding: { kind: 'Pod', namespace: ns, name: 'p' },
  note: 'hello',
});

const BAD_LABELS = { labels: { 'bad key': 'x' } };
const BAD_LABEL = invalid('metadata.labels', 'bad key', `name part ${QUALIFIED}`);
const mismatch = (involvedNamespace: string): Cause =>
  invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace');
/** The causes of an empty `reportingController`: required, and not a qualified name. */
const NO_REPORTING_CONTROLLER: Cause[] = [
  required('reportingController'),
  invalid('reportingController', '', 'name part must be non-empty'),
  invalid('reportingController', '', `name part ${QUALIFIED}`),
];
const badType = (type: string): Cause => invalid('type', '', `has invalid value: ${type}`);
const tooLong = (field: string, limit: number): Cause =>
  invalid(field, '', `can have at most ${limit} characters`);

/** Registers the tests in the caller's describe block. */
export function defineEventValidationContract(getTarget: () => ContractEndpoint): void {
  const { call, create, newNamespace } = contractCalls(getTarget);
  const { core, events } = EVENT_PATHS;

  it('refuses a core/v1 Event whose involvedObject is in another namespace, before its metadata (422)', async () => {
    const ns = await newNamespace('ev-core');
    const other = await call('POST', core(ns), {
      body: { metadata: { name: 'a', ...BAD_LABELS }, involvedObject: { namespace: 'other' } },
    });
    // The Event's own rules failed, so its labels were never looked at.
    expectInvalid(other, 'Event', 'a', [mismatch('other')]);
    const none = await call('POST', core(ns), {
      body: { metadata: { name: 'b' }, involvedObject: { kind: 'Pod', name: 'p' } },
    });
    expectInvalid(none, 'Event', 'b', [mismatch('')]);
    const labels = await call('POST', core(ns), {
      body: { metadata: { name: 'c', ...BAD_LABELS }, involvedObject: { namespace: ns } },
    });
    expectInvalid(labels, 'Event', 'c', [BAD_LABEL]);
    // A core Event with an eventTime is a new client's: it needs the reporting fields too.
    const modern = await call('POST', core(ns), {
      body: {
        metadata: { name: 'd' },
        eventTime: EVENT_TIME,
        reportingInstance: 'i'.repeat(129),
        message: 'm'.repeat(1025),
      },
    });
    expectInvalid(modern, 'Event', 'd', [
      mismatch(''),
      ...NO_REPORTING_CONTROLLER,
      tooLong('reportingInstance', 128),
      required('action'),
      required('reason'),
      tooLong('message', 1024),
    ]);
  });

  it('requires eventTime and the reporting fields of an events.k8s.io/v1 Event, and a Normal or Warning type (422)', async () => {
    const ns = await newNamespace('ev-new');
    const empty = await call('POST', events(ns), {
      body: { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'a' } },
    });
    // Without an eventTime the reporting fields are not checked, only that it is missing.
    expectInvalid(empty, 'Event', 'a', [mismatch(''), required('eventTime'), badType('')]);
    const noController = await call('POST', events(ns), {
      body: { ...validEvent(ns, 'b'), reportingController: undefined, action: undefined },
    });
    expectInvalid(noController, 'Event', 'b', [...NO_REPORTING_CONTROLLER, required('action')]);
    const type = await call('POST', events(ns), { body: { ...validEvent(ns, 'c'), type: 'Bad' } });
    expectInvalid(type, 'Event', 'c', [badType('Bad')]);
    const accepted = await create(events(ns), {
      ...validEvent(ns, 'd'),
      type: 'Warning',
      regarding: { namespace: 'elsewhere' },
    });
    expect(accepted.json.regarding).toEqual({ namespace: 'elsewhere' });
  });

  it('checks an events.k8s.io/v1 Event’s name, metadata, series and deprecated fields, in 1.20’s order (422)', async () => {
    const ns = await newNamespace('ev-strict');
    const res = await call('POST', events(ns), {
      body: {
        ...validEvent(ns, 'Bad_Name'),
        metadata: { name: 'Bad_Name', ...BAD_LABELS },
        series: { count: 1 },
        note: 'n'.repeat(1025),
        deprecatedFirstTimestamp: '2026-01-01T00:00:00Z',
        deprecatedLastTimestamp: '2026-01-01T00:00:00Z',
        deprecatedCount: 3,
        deprecatedSource: { host: 'h' },
      },
    });
    expectInvalid(res, 'Event', 'Bad_Name', [
      tooLong('message', 1024),
      invalid('metadata.name', 'Bad_Name', SUBDOMAIN),
      BAD_LABEL,
      invalid('series.count', '', 'should be at least 2'),
      required('series.lastObservedTime'),
      invalid('firstTimestamp', '', 'needs to be unset'),
      invalid('lastTimestamp', '', 'needs to be unset'),
      invalid('count', '', 'needs to be unset'),
      invalid('source', '', 'needs to be unset'),
    ]);
  });

  it('checks an Event again on update, but lets any field change (1.20 compares the Event with itself)', async () => {
    const ns = await newNamespace('ev-update');
    const created = await create(events(ns), validEvent(ns, 'a'));
    const changed = await call('PUT', `${events(ns)}/a`, {
      body: { ...created.json, type: 'Bad', reason: 'Other', series: { count: 1 } },
    });
    expect(changed.status).toBe(200);
    expect([changed.json.type, changed.json.reason]).toEqual(['Bad', 'Other']);
    const broken = await call('PUT', `${events(ns)}/a`, {
      body: {
        ...changed.json,
        metadata: { ...changed.json.metadata, ...BAD_LABELS },
        reportingController: undefined,
      },
    });
    // The labels: twice in the common checks, once more in the events.k8s.io rules.
    expectInvalid(broken, 'Event', 'a', [
      BAD_LABEL,
      BAD_LABEL,
      ...NO_REPORTING_CONTROLLER,
      BAD_LABEL,
    ]);
    await create(core(ns), { metadata: { name: 'b' }, involvedObject: { namespace: ns } });
    const moved = await call('PATCH', `${core(ns)}/b`, {
      body: { metadata: BAD_LABELS, involvedObject: { namespace: 'other' } },
      contentType: 'application/merge-patch+json',
    });
    expectInvalid(moved, 'Event', 'b', [BAD_LABEL, BAD_LABEL, mismatch('other')]);
    const labelValue = await call('PATCH', `${core(ns)}/b`, {
      body: { metadata: { labels: { ok: 'bad value' } } },
      contentType: 'application/merge-patch+json',
    });
    const badValue = invalid('metadata.labels', 'bad value', LABEL_VALUE);
    expectInvalid(labelValue, 'Event', 'b', [badValue, badValue]);
  });

  it('creates a missing Event on PUT (201), checked as a create through either API', async () => {
    const ns = await newNamespace('ev-put');
    const created = await call('PUT', `${core(ns)}/a`, {
      body: { metadata: { name: 'a' }, involvedObject: { namespace: ns }, reason: 'R' },
    });
    expect(created.status).toBe(201);
    expect((await call('GET', `${events(ns)}/a`)).json.reason).toBe('R');
    const strict = await call('PUT', `${events(ns)}/b`, {
      body: { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'b' } },
    });
    expectInvalid(strict, 'Event', 'b', [mismatch(''), required('eventTime'), badType('')]);
    const accepted = await call('PUT', `${events(ns)}/c`, { body: validEvent(ns, 'c') });
    expect(accepted.status).toBe(201);
  });
}
