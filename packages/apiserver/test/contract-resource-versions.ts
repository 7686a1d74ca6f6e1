import { expect, it } from 'vitest';
import { type ContractEndpoint, rawWatch } from './contract-client.js';
import { cm, contractCalls, crdBody, expectFailure, suffix } from './contract-helpers.js';

/**
 * resourceVersion semantics (issue 18 item 6): a GET or LIST is served from a state at least
 * as new as the one asked for (waiting up to 3 s for a version ahead of the server's, then 504),
 * exact and paged lists read the state at their version, and a custom resource is updated only
 * with the resourceVersion it was read at.
 */

const TOO_LARGE = {
  reason: 'Timeout',
  message: expect.stringMatching(/^Timeout: Too large resource version: \d+, current: \d+$/),
  details: {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  },
};

/** A server these tests run against; see `ContractTarget` in `contract.ts`. */
export interface ResourceVersionTarget extends ContractEndpoint {
  /** Lets the 3 s pass that a read at a future resourceVersion waits, once one is waiting. */
  elapseReadWait(): Promise<void>;
  /** Whether the server streams lists (`sendInitialEvents=true`), as servers newer than 1.20 do. */
  streamingLists: boolean;
}

/** Registers the tests in the caller's describe block. */
export function defineResourceVersionContract(getTarget: () => ResourceVersionTarget): void {
  const { call, create, newNamespace, eventually } = contractCalls(getTarget);

  it('answers a get at an older resourceVersion with the current object, a future one with 504 after the wait', async () => {
    const ns = await newNamespace('rv-get');
    const created = await create(`/api/v1/namespaces/${ns}/configmaps`, cm('a'));
    const rv = created.json.metadata.resourceVersion as string;
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const old = await call('GET', `${path}/a?resourceVersion=1`);
    expect(old.status).toBe(200);
    expect(old.json.metadata.resourceVersion).toBe(rv);
    const future = String(Number(rv) + 1_000_000);
    // The watch cache waits 3 s for the version before it gives up, for a get and a list.
    for (const query of [`/a?resourceVersion=${future}`, `?resourceVersion=${future}`]) {
      const pending = call('GET', `${path}${query}`);
      await getTarget().elapseReadWait();
      expectFailure(await pending, 504, TOO_LARGE);
    }
    const bad = await call('GET', `${path}/a?resourceVersion=abc`);
    expectFailure(bad, 500, {
      message:
        'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    });
    expect(bad.json.reason).toBeUndefined();
  });

  it('answers lists read from etcd at a future resourceVersion at once: 500 for exact, 504 for NotOlderThan', async () => {
    const ns = await newNamespace('rv-future-list');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const listed = await call('GET', path);
    const future = String(Number(listed.json.metadata.resourceVersion) + 1_000_000);
    const futureRevision = {
      message: 'etcdserver: mvcc: required revision is a future revision',
    };
    for (const query of [
      `resourceVersion=${future}&resourceVersionMatch=Exact`,
      `resourceVersion=${future}&limit=1`,
    ]) {
      const res = await call('GET', `${path}?${query}`);
      expectFailure(res, 500, futureRevision);
      expect(res.json.reason).toBeUndefined();
    }
    const notOlder = await call(
      'GET',
      `${path}?resourceVersion=${future}&resourceVersionMatch=NotOlderThan&limit=1`,
    );
    expectFailure(notOlder, 504, { reason: 'Timeout', message: TOO_LARGE.message });
    expect(notOlder.json.details).toEqual({
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    });
  });

  it('answers a get waiting for a future resourceVersion once a write brings the server there', async () => {
    const ns = await newNamespace('rv-rescue');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const created = await create(path, cm('a', { data: { v: '1' } }));
    // On kube-apiserver the wait is 3 s of wall-clock time: a write that arrives later (a
    // loaded machine) leaves the get with a 504 naming a version below the one asked for,
    // which is the server being right, so that round is tried again with a new write.
    for (let round = 1; ; round++) {
      const listed = await call('GET', path);
      const wanted = Number(listed.json.metadata.resourceVersion) + 1;
      const pendingGet = call('GET', `${path}/a?resourceVersion=${wanted}`);
      const pendingList = call('GET', `${path}?resourceVersion=${wanted}`);
      const written = await create(path, cm(`b${round}`));
      expect(Number(written.json.metadata.resourceVersion)).toBeGreaterThanOrEqual(wanted);
      const [got, list] = await Promise.all([pendingGet, pendingList]);
      if (got.status === 504 || list.status === 504) {
        for (const res of [got, list].filter((r) => r.status === 504)) {
          const current = /current: (\d+)$/.exec(res.json.message)?.[1];
          expect(Number(current)).toBeLessThan(wanted);
        }
        expect(round).toBeLessThan(5);
        continue;
      }
      expect(got.status).toBe(200);
      expect(got.json.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);
      expect(list.status).toBe(200);
      expect(Number(list.json.metadata.resourceVersion)).toBeGreaterThanOrEqual(wanted);
      expect(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toContain(
        `b${round}`,
      );
      return;
    }
  });

  it('answers an exact or paged list at an older resourceVersion with the objects as they were then', async () => {
    const ns = await newNamespace('rv-exact');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    await create(path, cm('a', { data: { v: '1' } }));
    await create(path, cm('b', { data: { v: '1' } }));
    const then = (await call('GET', path)).json.metadata.resourceVersion as string;
    await call('PATCH', `${path}/a`, {
      body: { data: { v: '2' } },
      contentType: 'application/merge-patch+json',
    });
    await call('DELETE', `${path}/b`);
    await create(path, cm('c', { data: { v: '1' } }));
    const state = (res: { json: { items: { metadata: { name: string }; data: object }[] } }) =>
      res.json.items.map((i) => [i.metadata.name, i.data]);
    const exact = await call('GET', `${path}?resourceVersion=${then}&resourceVersionMatch=Exact`);
    expect(exact.status).toBe(200);
    expect(exact.json.metadata.resourceVersion).toBe(then);
    expect(state(exact)).toEqual([
      ['a', { v: '1' }],
      ['b', { v: '1' }],
    ]);
    const page = await call('GET', `${path}?resourceVersion=${then}&limit=1`);
    expect(state(page)).toEqual([['a', { v: '1' }]]);
    const rest = await call(
      'GET',
      `${path}?limit=5&continue=${encodeURIComponent(page.json.metadata.continue)}`,
    );
    expect(state(rest)).toEqual([['b', { v: '1' }]]);
    expect(rest.json.metadata.resourceVersion).toBe(then);
    const now = await call('GET', path);
    expect(state(now)).toEqual([
      ['a', { v: '2' }],
      ['c', { v: '1' }],
    ]);
  });

  it('sends a watch from a future resourceVersion only the events after it', async () => {
    const ns = await newNamespace('rv-watch-future');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const listed = await call('GET', path);
    const from = Number(listed.json.metadata.resourceVersion) + 3;
    const w = await rawWatch(getTarget(), `${path}?watch=true&resourceVersion=${from}`);
    expect(w.status).toBe(200);
    const written: [string, number][] = [];
    for (const name of ['f1', 'f2', 'f3', 'f4', 'f5']) {
      const created = await create(path, cm(name));
      written.push([name, Number(created.json.metadata.resourceVersion)]);
    }
    const expected = written.filter(([, rv]) => rv > from).map(([name]) => `ADDED ${name}`);
    const events = await w.take(expected.length);
    w.close();
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(expected);
  });

  it('treats sendInitialEvents as its version does: 1.20 ignores it, newer servers check it', async () => {
    const ns = await newNamespace('rv-initial');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    await create(path, cm('present'));
    const listed = await call('GET', path);
    await create(path, cm('later'));
    const from = listed.json.metadata.resourceVersion;
    const alone = `${path}?watch=true&sendInitialEvents=true`;
    const withRv = `${path}?watch=true&sendInitialEvents=true&resourceVersion=${from}`;
    if (getTarget().streamingLists) {
      // Newer servers require resourceVersionMatch=NotOlderThan with it.
      for (const query of [alone, withRv]) {
        expectFailure(await call('GET', query), 422, {
          reason: 'Invalid',
          details: { kind: 'ListOptions', group: 'meta.k8s.io' },
        });
      }
      return;
    }
    // 1.20 knows no such parameter: a plain watch, with the state for no resourceVersion and
    // the events since one.
    const plain = await rawWatch(getTarget(), alone);
    const initial = await plain.take(2);
    plain.close();
    // The watch cache sends its state in no particular order.
    expect(initial.map((e) => `${e.type} ${e.object.metadata.name}`).sort()).toEqual([
      'ADDED later',
      'ADDED present',
    ]);
    const since = await rawWatch(getTarget(), withRv);
    const [event] = await since.take(1);
    since.close();
    expect(`${event?.type} ${event?.object.metadata.name}`).toBe('ADDED later');
  });

  it('refuses to update a custom resource, or its status, without a resourceVersion (422)', async () => {
    const group = `rv${suffix()}.contract.kubets.io`;
    const schema = {
      openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    };
    const names = { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' };
    await create(
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crdBody(group, names, { schema, subresources: { status: {} } }),
    );
    const ns = await newNamespace('rv-put');
    const base = `/apis/${group}/v1/namespaces/${ns}/gizmos`;
    await eventually(async () => (await call('GET', base)).status === 200, true);
    const gizmo = (extra: object) => ({
      apiVersion: `${group}/v1`,
      kind: 'Gizmo',
      metadata: { name: 'g' },
      ...extra,
    });
    const created = await create(base, gizmo({ spec: { a: 1 } }));
    for (const [path, body] of [
      [`${base}/g`, gizmo({ spec: { a: 2 } })],
      [`${base}/g/status`, gizmo({ status: { a: 2 } })],
    ] as const) {
      expectFailure(await call('PUT', path, { body }), 422, {
        reason: 'Invalid',
        message: `gizmos.${group} "g" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`,
        details: {
          name: 'g',
          group,
          kind: 'gizmos',
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: 'Invalid value: 0x0: must be specified for an update',
              field: 'metadata.resourceVersion',
            },
          ],
        },
      });
    }
    const rv = created.json.metadata.resourceVersion;
    const updated = await call('PUT', `${base}/g`, {
      body: gizmo({ metadata: { name: 'g', resourceVersion: rv }, spec: { a: 3 } }),
    });
    expect(updated.status).toBe(200);
    expect(updated.json.spec).toEqual({ a: 3 });
    expectFailure(
      await call('PUT', `${base}/nope`, { body: gizmo({ metadata: { name: 'nope' } }) }),
      404,
      {
        reason: 'NotFound',
      },
    );
  });
}
