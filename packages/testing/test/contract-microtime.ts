import { expect, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
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
}
