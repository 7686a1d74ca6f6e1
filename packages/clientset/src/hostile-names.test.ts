// A hostile namespace or name given to the typed clientset (issue #15) is either refused
// before sending, naming the bad part, or reaches exactly the path of that object.
import { isInvalidRequestError } from '@kubets/rest';
import { rejectionOf } from '@kubets/test-utils';
import {
  expectRefusedOrSent,
  hostileSegments,
  notFoundServerForFile,
} from '@kubets/test-utils/hostile-segments';
import { describe, it } from 'vitest';
import { Clientset } from './clientset.js';

const server = await notFoundServerForFile();
const clientset = new Clientset({ host: server.url, qps: -1, maxRetries: 0 });

describe.each(['namespace', 'name'] as const)('configMaps delete with a hostile %s', (part) => {
  it.each(hostileSegments)('$label', async ({ value, refused }) => {
    const namespace = part === 'namespace' ? value : 'a';
    const name = part === 'name' ? value : 'cm';
    const outcome = await rejectionOf(clientset.coreV1().configMaps(namespace).delete(name));
    expectRefusedOrSent(server, isInvalidRequestError, outcome, {
      part,
      value,
      refused,
      path: ['api', 'v1', 'namespaces', namespace, 'configmaps', name],
    });
  });
});
