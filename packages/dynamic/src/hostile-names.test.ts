// A hostile namespace, name, resource, subresource, API group or version given to the
// dynamic client (issue #15) is either refused before sending, naming the bad part, or
// reaches exactly the path of that object; a group can never climb out of a base path.
import { isInvalidRequestError } from '@kubets/rest';
import { rejectionOf } from '@kubets/test-utils';
import {
  decodedPathSegments,
  expectRefusedOrSent,
  hostileGroups,
  hostileSegments,
  hostileVersions,
  notFoundServerForFile,
  objectPathParts,
} from '@kubets/test-utils/hostile-segments';
import { describe, expect, it } from 'vitest';
import { DynamicClient } from './client.js';

const server = await notFoundServerForFile();
const dynamic = new DynamicClient({
  host: `${server.url}/k8s/clusters/c1`,
  qps: -1,
  maxRetries: 0,
});

describe.each(objectPathParts)('a hostile %s', (part) => {
  it.each(hostileSegments)('$label', async ({ value, refused }) => {
    const namespace = part === 'namespace' ? value : 'a';
    const resource = part === 'resource' ? value : 'widgets';
    const name = part === 'name' ? value : 'w';
    const subresources = part === 'subresource' ? [value] : [];
    const outcome = await rejectionOf(
      dynamic
        .resource({ group: 'example.com', version: 'v1', resource })
        .namespace(namespace)
        .delete(name, {}, ...subresources),
    );
    expectRefusedOrSent(server, isInvalidRequestError, outcome, {
      part,
      value,
      refused,
      path: [
        'k8s',
        'clusters',
        'c1',
        'apis',
        'example.com',
        'v1',
        'namespaces',
        namespace,
        resource.toLowerCase(),
        name,
        ...subresources,
      ],
    });
  });
});

describe('hostile API groups and versions', () => {
  it.each(hostileGroups)('group: $label', async ({ value, refused }) => {
    const resource = () => dynamic.resource({ group: value, version: 'v1', resource: 'things' });
    if (refused) {
      expect(resource).toThrow(expect.objectContaining({ part: 'group', value }));
      return;
    }
    await expect(resource().get('x')).rejects.toMatchObject({ status: { code: 404 } });
    const sent = decodedPathSegments(server.requests.at(-1)?.url ?? '');
    expect(sent.slice(0, 3)).toEqual(['k8s', 'clusters', 'c1']);
    expect(sent.slice(3)).toEqual(
      value === '' ? ['api', 'v1', 'things', 'x'] : ['apis', value, 'v1', 'things', 'x'],
    );
  });

  it.each(hostileVersions)('version: $label', ({ value, refused }) => {
    const resource = () => dynamic.resource({ group: 'apps', version: value, resource: 'things' });
    if (refused) expect(resource).toThrow(expect.objectContaining({ part: 'version', value }));
    else expect(resource).not.toThrow();
  });

  it('refuses a bad group given in a string GVR', () => {
    expect(() => dynamic.resource('deployments.v1.c2..apps')).toThrow(
      expect.objectContaining({ part: 'group', value: 'c2..apps' }),
    );
    expect(server.requests).toHaveLength(0);
  });
});
