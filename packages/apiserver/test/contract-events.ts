import { describe, expect, it } from 'vitest';
import { type ContractEndpoint, rawWatch } from './contract-client.js';
import { defineEventValidationContract, EVENT_PATHS } from './contract-events-validation.js';
import { contractCalls, expectFailure } from './contract-helpers.js';
import conversions from './events-conversion.json' with { type: 'json' };

/**
 * The two Event APIs share one store (issue 18 item 6): an Event written through core/v1 is
 * read, listed, watched and patched through events.k8s.io/v1 and back, with 1.20's field
 * mapping, field order and the fields it fills in when they are absent.
 */

/** An object without its metadata, and its keys in the order the server wrote them. */
function body(obj: Record<string, unknown>): { keys: string[]; fields: Record<string, unknown> } {
  const { metadata: _metadata, ...fields } = obj;
  return { keys: Object.keys(fields), fields };
}

/** What 1.20 answered for Events written through one API, read back through both. */
const {
  coreFull: CORE_FULL,
  coreFullAsEvents: CORE_FULL_AS_EVENTS,
  coreEmpty: CORE_EMPTY,
  coreEmptyAsEvents: CORE_EMPTY_AS_EVENTS,
  eventsFull: EVENTS_FULL,
  eventsFullAsCore: EVENTS_FULL_AS_CORE,
} = conversions;

/** `expected` with the namespace placeholder `NS` replaced. */
function inNamespace<T>(expected: T, ns: string): T {
  return JSON.parse(JSON.stringify(expected).replaceAll('"NS"', JSON.stringify(ns))) as T;
}

/** Registers the tests in the caller's describe block. */
export function defineEventsContract(getTarget: () => ContractEndpoint): void {
  const { call, create, newNamespace } = contractCalls(getTarget);
  const { core, events } = EVENT_PATHS;

  it('reads a core/v1 Event through events.k8s.io/v1 with its fields renamed, and fills in absent ones', async () => {
    const ns = await newNamespace('events-core');
    const { kind: _k, apiVersion: _a, ...fields } = inNamespace(CORE_FULL, ns);
    const created = await create(core(ns), { metadata: { name: 'full' }, ...fields });
    expect(body(created.json).fields).toEqual(inNamespace(CORE_FULL, ns));
    expect(body(created.json).keys).toEqual(Object.keys(CORE_FULL));
    const asEvents = await call('GET', `${events(ns)}/full`);
    expect(asEvents.status).toBe(200);
    expect(body(asEvents.json).fields).toEqual(inNamespace(CORE_FULL_AS_EVENTS, ns));
    expect(body(asEvents.json).keys).toEqual(Object.keys(CORE_FULL_AS_EVENTS));
    expect(asEvents.json.metadata).toEqual(created.json.metadata);

    // kube-apiserver requires involvedObject.namespace to be the Event's namespace.
    const regarding = { namespace: ns };
    const empty = await create(core(ns), {
      metadata: { name: 'empty' },
      involvedObject: regarding,
    });
    expect(body(empty.json).fields).toEqual(inNamespace(CORE_EMPTY, ns));
    expect(body(empty.json).keys).toEqual(Object.keys(CORE_EMPTY));
    const emptyAsEvents = await call('GET', `${events(ns)}/empty`);
    expect(body(emptyAsEvents.json).fields).toEqual(inNamespace(CORE_EMPTY_AS_EVENTS, ns));
    expect(body(emptyAsEvents.json).keys).toEqual(Object.keys(CORE_EMPTY_AS_EVENTS));
  });

  it('reads an events.k8s.io/v1 Event through core/v1, and lists both through either API', async () => {
    const ns = await newNamespace('events-new');
    const { kind: _k, apiVersion: _a, ...fields } = inNamespace(EVENTS_FULL, ns);
    const created = await create(events(ns), {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'modern' },
      ...fields,
    });
    expect(body(created.json).fields).toEqual(inNamespace(EVENTS_FULL, ns));
    expect(body(created.json).keys).toEqual(Object.keys(EVENTS_FULL));
    const asCore = await call('GET', `${core(ns)}/modern`);
    expect(body(asCore.json).fields).toEqual(inNamespace(EVENTS_FULL_AS_CORE, ns));
    expect(body(asCore.json).keys).toEqual(Object.keys(EVENTS_FULL_AS_CORE));
    await create(core(ns), {
      metadata: { name: 'old' },
      involvedObject: { namespace: ns },
      message: 'from core',
    });
    // Items of a list carry no kind or apiVersion on kube-apiserver; their fields tell the API.
    for (const [path, text, other] of [
      [core(ns), 'message', 'note'],
      [events(ns), 'note', 'message'],
    ] as const) {
      const listed = await call('GET', path);
      expect(listed.status).toBe(200);
      expect(
        listed.json.items.map((i: Record<string, unknown>) => [
          (i.metadata as { name: string }).name,
          i[text],
          i[other],
        ]),
      ).toEqual([
        ['modern', 'hello', undefined],
        ['old', 'from core', undefined],
      ]);
    }
  });

  it('selects Events by each API’s field labels', async () => {
    const ns = await newNamespace('events-fields');
    const event = (name: string, pod: string, reason: string) =>
      create(core(ns), {
        metadata: { name },
        involvedObject: { kind: 'Pod', namespace: ns, name: pod },
        reason,
      });
    await event('one', 'p1', 'Started');
    await event('two', 'p2', 'Killed');
    const names = async (path: string) =>
      (await call('GET', path)).json.items.map(
        (i: { metadata: { name: string } }) => i.metadata.name,
      );
    expect(await names(`${events(ns)}?fieldSelector=regarding.name%3Dp2`)).toEqual(['two']);
    expect(await names(`${events(ns)}?fieldSelector=reason%3DStarted`)).toEqual(['one']);
    expect(await names(`${core(ns)}?fieldSelector=involvedObject.name%3Dp1`)).toEqual(['one']);
    for (const [path, field] of [
      [events(ns), 'involvedObject.name'],
      [events(ns), 'source'],
      [core(ns), 'regarding.name'],
    ] as const) {
      const res = await call('GET', `${path}?fieldSelector=${field}%3Dx`);
      expectFailure(res, 400, {
        reason: 'BadRequest',
        message: `field label not supported: ${field}`,
      });
    }
  });

  it('watches and patches an Event through the other API', async () => {
    const ns = await newNamespace('events-watch');
    const listed = await call('GET', events(ns));
    const w = await rawWatch(
      getTarget(),
      `${events(ns)}?watch=true&resourceVersion=${listed.json.metadata.resourceVersion}`,
    );
    await create(core(ns), {
      metadata: { name: 'seen' },
      involvedObject: { namespace: ns },
      message: 'one',
    });
    const patched = await call('PATCH', `${events(ns)}/seen`, {
      body: { note: 'two' },
      contentType: 'application/merge-patch+json',
    });
    expect(patched.status).toBe(200);
    expect(patched.json.note).toBe('two');
    const seen = await w.take(2);
    w.close();
    expect(seen.map((e) => [e.type, e.object.apiVersion, e.object.note])).toEqual([
      ['ADDED', 'events.k8s.io/v1', 'one'],
      ['MODIFIED', 'events.k8s.io/v1', 'two'],
    ]);
    const asCore = await call('GET', `${core(ns)}/seen`);
    expect(asCore.json.message).toBe('two');
    expect(asCore.json.note).toBeUndefined();
    // Server-side apply through events.k8s.io keeps what other managers set (the note).
    const applied = await call('PATCH', `${events(ns)}/seen?fieldManager=contract`, {
      body: {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: 'seen' },
        reason: 'R2',
      },
      contentType: 'application/apply-patch+yaml',
    });
    expect(applied.status).toBe(200);
    expect([applied.json.reason, applied.json.note]).toEqual(['R2', 'two']);
    // Writing back what events.k8s.io shows changes nothing: no new resourceVersion.
    const unchanged = await call('PUT', `${events(ns)}/seen`, { body: applied.json });
    expect(unchanged.status).toBe(200);
    expect(unchanged.json.metadata.resourceVersion).toBe(applied.json.metadata.resourceVersion);
  });

  describe('validation', () => defineEventValidationContract(getTarget));
}
