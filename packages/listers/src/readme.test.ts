// The README's example (between the readme markers), run as a test: scripts/readme-examples.mjs
// checks that packages/listers/README.md shows this code verbatim, with `from './index.js'`
// written as `from '@kubets/listers'`. No server: the indexer is filled by hand, as an
// informer's cache would be.

// readme:start
import { isNotFound, type ObjectMeta } from '@kubets/apimachinery';
import { metaNamespaceIndexFunc, namespaceIndex, newIndexer } from '@kubets/cache';
import { newGenericLister } from './index.js';

interface Deployment {
  metadata: ObjectMeta;
  spec?: { replicas?: number };
}

// An informer's cache (informer.getIndexer()), filled by hand here as in a unit test; keys
// are namespace/name, and the namespace index makes namespace lists fast.
const indexer = newIndexer<Deployment>(undefined, { [namespaceIndex]: metaNamespaceIndexFunc });
indexer.add({
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
  spec: { replicas: 3 },
});
indexer.add({ metadata: { name: 'db', namespace: 'default', labels: { app: 'db' } } });
indexer.add({ metadata: { name: 'web', namespace: 'prod', labels: { app: 'web' } } });

const lister = newGenericLister(indexer, { group: 'apps', resource: 'deployments' });

const all = lister.list(); // every deployment, all namespaces: 3
const inDefault = lister.byNamespace('default').list(); // one namespace: web and db
const webs = lister.list('app=web'); // label selector string (or a Selector): both webs
const replicas = lister.byNamespace('default').get('web').spec?.replicas; // 3

let missing: unknown;
try {
  lister.byNamespace('default').get('api');
} catch (err) {
  if (!isNotFound(err)) throw err;
  missing = err; // a StatusError: 'deployments.apps "api" not found'
}

// readme:end
import { expect, it } from 'vitest'; // after the example, so sorting imports keeps it out

it('runs the README example: lists by namespace and selector, gets by name', () => {
  const keys = (objs: Deployment[]) =>
    objs.map((d) => `${d.metadata.namespace}/${d.metadata.name}`).sort();
  expect(keys(all)).toEqual(['default/db', 'default/web', 'prod/web']);
  expect(keys(inDefault)).toEqual(['default/db', 'default/web']);
  expect(keys(webs)).toEqual(['default/web', 'prod/web']);
  expect(replicas).toBe(3);
  expect(String(missing)).toBe('StatusError: deployments.apps "api" not found');
});
