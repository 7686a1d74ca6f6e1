import { expect, it } from 'vitest';
import type { ContractEndpoint, RawResponse } from './contract-client.js';
import { EVENT_PATHS } from './contract-events-validation.js';
import { contractCalls } from './contract-helpers.js';
import table from './microtime-decoding.json' with { type: 'json' };

/**
 * metav1.MicroTime fields (an Event's `eventTime` and `series.lastObservedTime`, through either
 * Event API, and a Lease's times) as kube-apiserver 1.20 decodes them: Go's RFC3339Micro layout, six fractional
 * digits exactly, refused with the decoder's 400 naming the fields it read after the bad one.
 */

/** Registers the tests in the caller's describe block. */
export function defineMicroTimeContract(getTarget: () => ContractEndpoint): void {
  const { call, newNamespace } = contractCalls(getTarget);

  it('decodes MicroTime fields as 1.20 does, with its 400 text for each bad value', async () => {
    const ns = await newNamespace('microtime');
    for (const { api, name, body, status, message } of table.cases) {
      const path =
        api === 'lease'
          ? `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`
          : EVENT_PATHS[api as 'core' | 'events'](ns);
      const res = await call('POST', path, { body });
      const answer = { name, status: res.status, message: res.json.message };
      if (status === 400) {
        expect({ name, body: res.json }).toEqual({
          name,
          body: {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message,
            reason: 'BadRequest',
            code: 400,
          },
        });
      } else {
        // Decoded: validation has the last word (these bodies name no namespace to match).
        expect(answer).toEqual({ name, status, message });
      }
    }
  });

  it('writes times sent with an offset back in UTC: a MicroTime to the microsecond, a Time to the second', async () => {
    const ns = await newNamespace('time-offsets');
    const event = await call('POST', `/api/v1/namespaces/${ns}/events`, {
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'offsets' },
        involvedObject: { kind: 'Pod', name: 'p', namespace: ns },
        reason: 'Tested',
        firstTimestamp: '2026-01-01T10:00:00.123456+02:00',
        lastTimestamp: '2026-01-01T23:30:00.9-05:30',
        eventTime: '2026-01-01T10:00:00.000000+02:00',
        series: { count: 2, lastObservedTime: '2026-01-01T00:30:00.123456+01:00' },
        reportingComponent: 'contract',
        reportingInstance: 'contract-1',
        action: 'Testing',
      },
    });
    const leases = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
    const lease = await call('POST', leases, {
      body: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'offsets' },
        spec: {
          holderIdentity: 'h',
          renewTime: '2026-01-01T10:00:00.123456+02:00',
          acquireTime: '2026-01-01T00:30:00.000000+01:00',
        },
      },
    });
    const patched = await call('PATCH', `${leases}/offsets`, {
      body: { spec: { renewTime: '2026-06-30T23:59:59.999999-00:30' } },
      contentType: 'application/merge-patch+json',
    });
    const pods = `/api/v1/namespaces/${ns}/pods`;
    const pod = await call('POST', pods, {
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'offsets' },
        spec: { containers: [{ name: 'main', image: 'busybox' }] },
      },
    });
    const status = await call('PUT', `${pods}/offsets/status`, {
      body: {
        ...pod.json,
        status: {
          startTime: '2026-01-01T10:00:00.9+02:00',
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              lastProbeTime: null,
              lastTransitionTime: '2026-01-01T10:00:00-02:00',
            },
          ],
        },
      },
    });
    const stored = await call('GET', `/api/v1/namespaces/${ns}/events/offsets`);
    const times = (e: RawResponse) => ({
      firstTimestamp: e.json.firstTimestamp,
      lastTimestamp: e.json.lastTimestamp,
      eventTime: e.json.eventTime,
      lastObservedTime: e.json.series?.lastObservedTime,
    });
    expect({
      event: [event.status, times(event)],
      stored: times(stored),
      lease: [lease.status, lease.json.spec],
      patched: [patched.status, patched.json.spec],
      pod: [status.status, status.json.status],
    }).toEqual({
      event: [
        201,
        {
          firstTimestamp: '2026-01-01T08:00:00Z',
          lastTimestamp: '2026-01-02T05:00:00Z',
          eventTime: '2026-01-01T08:00:00.000000Z',
          lastObservedTime: '2025-12-31T23:30:00.123456Z',
        },
      ],
      stored: {
        firstTimestamp: '2026-01-01T08:00:00Z',
        lastTimestamp: '2026-01-02T05:00:00Z',
        eventTime: '2026-01-01T08:00:00.000000Z',
        lastObservedTime: '2025-12-31T23:30:00.123456Z',
      },
      lease: [
        201,
        {
          holderIdentity: 'h',
          renewTime: '2026-01-01T08:00:00.123456Z',
          acquireTime: '2025-12-31T23:30:00.000000Z',
        },
      ],
      patched: [
        200,
        {
          holderIdentity: 'h',
          renewTime: '2026-07-01T00:29:59.999999Z',
          acquireTime: '2025-12-31T23:30:00.000000Z',
        },
      ],
      pod: [
        200,
        {
          startTime: '2026-01-01T08:00:00Z',
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              lastProbeTime: null,
              lastTransitionTime: '2026-01-01T12:00:00Z',
            },
          ],
        },
      ],
    });
  });
}
