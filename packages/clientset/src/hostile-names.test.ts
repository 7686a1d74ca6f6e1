// A hostile namespace or name given to the typed clientset (issue #15) is either refused
// before sending, naming the bad part, or reaches exactly the path of that object.
import { isInvalidRequestError } from '@kubets/rest';
import { rejectionOf, type StubServer, sendJson, startStubServer } from '@kubets/test-utils';
import { decodedPathSegments, hostileSegments } from '@kubets/test-utils/hostile-segments';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Clientset } from './clientset.js';

let server: StubServer;
let clientset: Clientset;

beforeAll(async () => {
  server = await startStubServer((_request, response) =>
    sendJson(response, 404, { kind: 'Status', status: 'Failure', code: 404, reason: 'NotFound' }),
  );
  clientset = new Clientset({ host: server.url, qps: -1, maxRetries: 0 });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

describe.each(['namespace', 'name'] as const)('configMaps delete with a hostile %s', (part) => {
  it.each(hostileSegments)('$label', async ({ value, refused }) => {
    const namespace = part === 'namespace' ? value : 'a';
    const name = part === 'name' ? value : 'cm';
    const outcome = await rejectionOf(clientset.coreV1().configMaps(namespace).delete(name));
    if (refused) {
      expect(isInvalidRequestError(outcome)).toBe(true);
      expect(outcome).toMatchObject({ part, value });
      expect(server.requests).toHaveLength(0);
      return;
    }
    expect(outcome).toMatchObject({ status: { code: 404 } });
    expect(server.requests.map((r) => decodedPathSegments(r.url))).toEqual([
      ['api', 'v1', 'namespaces', namespace, 'configmaps', name],
    ]);
  });
});
