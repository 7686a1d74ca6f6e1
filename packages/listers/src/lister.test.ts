import {
  isNotFound,
  isStatusError,
  type ObjectMeta,
  parseSelector,
  SelectorParseError,
  StatusError,
  selectorFromSet,
} from '@kubets/apimachinery';
import { type Indexer, metaNamespaceIndexFunc, namespaceIndex, newIndexer } from '@kubets/cache';
import { describe, expect, it, vi } from 'vitest';
import {
  listAll,
  listAllByNamespace,
  newGenericLister,
  newNotFoundError,
  toSelector,
} from './index.js';

interface Obj {
  metadata: ObjectMeta;
  data?: Record<string, string>;
}

function obj(namespace: string, name: string, labels?: Record<string, string>): Obj {
  const metadata: ObjectMeta = { name, resourceVersion: '1' };
  if (namespace !== '') metadata.namespace = namespace;
  if (labels) metadata.labels = labels;
  return { metadata };
}

function keysOf(objs: readonly Obj[]): string[] {
  return objs
    .map((o) =>
      o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name!,
    )
    .sort();
}

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

function filled(withNamespaceIndex: boolean): Indexer<Obj> {
  const indexer = newIndexer<Obj>(
    undefined,
    withNamespaceIndex ? { [namespaceIndex]: metaNamespaceIndexFunc } : {},
  );
  indexer.add(obj('a', 'web-1', { app: 'web', tier: 'front' }));
  indexer.add(obj('a', 'web-2', { app: 'web', tier: 'back' }));
  indexer.add(obj('a', 'db', { app: 'db' }));
  indexer.add(obj('b', 'web-1', { app: 'web' }));
  indexer.add(obj('b', 'plain'));
  indexer.add(obj('', 'cluster-thing', { app: 'web' }));
  return indexer;
}

describe('toSelector', () => {
  it('maps undefined and the empty string to everything, parses strings, passes selectors', () => {
    expect(toSelector(undefined).empty()).toBe(true);
    expect(toSelector('').empty()).toBe(true);
    expect(toSelector('app=web').toString()).toBe('app=web');
    const sel = selectorFromSet({ x: 'y' });
    expect(toSelector(sel)).toBe(sel);
  });

  it('rejects an invalid selector string', () => {
    expect(() => toSelector('app in (')).toThrow(SelectorParseError);
  });
});

describe('newNotFoundError', () => {
  it('builds the Status client-go NewNotFound builds, for a named group', () => {
    const err = newNotFoundError({ group: 'apps', resource: 'deployments' }, 'web');
    expect(err).toBeInstanceOf(StatusError);
    expect(isNotFound(err)).toBe(true);
    expect(err.message).toBe('deployments.apps "web" not found');
    expect(err.code).toBe(404);
    expect(err.reason).toBe('NotFound');
    expect(err.status.status).toBe('Failure');
    expect(err.status.details).toEqual({ name: 'web', group: 'apps', kind: 'deployments' });
  });

  it('names the resource alone for the core group', () => {
    const err = newNotFoundError({ group: '', resource: 'pods' }, 'mypod');
    expect(err.message).toBe('pods "mypod" not found');
    expect(err.status.details).toEqual({ name: 'mypod', group: '', kind: 'pods' });
  });
});

describe('listAll / listAllByNamespace', () => {
  it('listAll filters every namespace by labels', () => {
    const indexer = filled(true);
    expect(keysOf(listAll(indexer))).toHaveLength(6);
    expect(keysOf(listAll(indexer, 'app=web'))).toEqual([
      'a/web-1',
      'a/web-2',
      'b/web-1',
      'cluster-thing',
    ]);
    expect(keysOf(listAll(indexer, parseSelector('app=web,tier!=front')))).toEqual([
      'a/web-2',
      'b/web-1',
      'cluster-thing',
    ]);
    expect(keysOf(listAll(indexer, '!app'))).toEqual(['b/plain']);
  });

  it('listAllByNamespace uses the namespace index when there is one', () => {
    const indexer = filled(true);
    const byIndex = vi.spyOn(indexer, 'byIndex');
    const list = vi.spyOn(indexer, 'list');
    expect(keysOf(listAllByNamespace(indexer, 'a', 'app=web'))).toEqual(['a/web-1', 'a/web-2']);
    expect(byIndex).toHaveBeenCalledWith(namespaceIndex, 'a');
    expect(list).not.toHaveBeenCalled();
  });

  it('listAllByNamespace filters every object without a namespace index', () => {
    const indexer = filled(false);
    const byIndex = vi.spyOn(indexer, 'byIndex');
    expect(keysOf(listAllByNamespace(indexer, 'a', 'app=web'))).toEqual(['a/web-1', 'a/web-2']);
    expect(keysOf(listAllByNamespace(indexer, 'b'))).toEqual(['b/plain', 'b/web-1']);
    expect(byIndex).not.toHaveBeenCalled();
  });

  it("listAllByNamespace with '' lists all namespaces", () => {
    const indexer = filled(true);
    expect(keysOf(listAllByNamespace(indexer, '', 'app=web'))).toHaveLength(4);
  });

  it('returns a new array of the cached objects', () => {
    const indexer = filled(true);
    const first = listAll(indexer);
    first.pop();
    expect(listAll(indexer)).toHaveLength(6);
    const cached = indexer.getByKey('a/db');
    expect(listAllByNamespace(indexer, 'a', 'app=db')[0]).toBe(cached);
  });
});

describe('GenericLister', () => {
  const deployments = { group: 'apps', resource: 'deployments' };

  for (const withIndex of [true, false]) {
    describe(withIndex ? 'with a namespace index' : 'without a namespace index', () => {
      it('lists everything, by selector string or Selector, and by namespace', () => {
        const lister = newGenericLister(filled(withIndex), deployments);
        expect(lister.list()).toHaveLength(6);
        expect(keysOf(lister.list('app=web'))).toEqual([
          'a/web-1',
          'a/web-2',
          'b/web-1',
          'cluster-thing',
        ]);
        expect(keysOf(lister.byNamespace('a').list())).toEqual(['a/db', 'a/web-1', 'a/web-2']);
        expect(keysOf(lister.byNamespace('a').list(selectorFromSet({ tier: 'back' })))).toEqual([
          'a/web-2',
        ]);
        expect(
          keysOf(lister.byNamespace('a').list('app in (web, db), tier notin (front)')),
        ).toEqual(['a/db', 'a/web-2']);
        expect(lister.byNamespace('nope').list()).toEqual([]);
      });

      it('sees later changes of the indexer', () => {
        const indexer = filled(withIndex);
        const ns = newGenericLister(indexer, deployments).byNamespace('b');
        indexer.add(obj('b', 'new', { app: 'web' }));
        indexer.delete(obj('b', 'web-1'));
        indexer.update(obj('b', 'plain', { app: 'web' }));
        expect(keysOf(ns.list('app=web'))).toEqual(['b/new', 'b/plain']);
      });
    });
  }

  it('gets a namespaced object by name, returning the cached object', () => {
    const indexer = filled(true);
    const lister = newGenericLister(indexer, deployments);
    const got = lister.byNamespace('b').get('web-1');
    expect(got).toBe(indexer.getByKey('b/web-1'));
    expect(got.metadata.labels).toEqual({ app: 'web' });
  });

  it('throws NotFound for a missing namespaced object', () => {
    const lister = newGenericLister(filled(true), deployments);
    const caught = thrownBy(() => lister.byNamespace('b').get('db'));
    expect(isStatusError(caught)).toBe(true);
    expect(isNotFound(caught)).toBe(true);
    const err = caught as StatusError;
    expect(err.message).toBe('deployments.apps "db" not found');
    expect(err.code).toBe(404);
    expect(err.reason).toBe('NotFound');
    expect(err.status.details).toEqual({ name: 'db', group: 'apps', kind: 'deployments' });
  });

  it('gets a cluster-scoped object by name and throws NotFound otherwise', () => {
    const indexer = filled(true);
    const lister = newGenericLister(indexer, {
      group: 'rbac.authorization.k8s.io',
      resource: 'clusterroles',
    });
    expect(lister.get('cluster-thing')).toBe(indexer.getByKey('cluster-thing'));
    // A namespaced object is not found by its bare name.
    expect(() => lister.get('web-1')).toThrow(
      'clusterroles.rbac.authorization.k8s.io "web-1" not found',
    );
    expect(isNotFound(thrownBy(() => lister.get('missing')))).toBe(true);
  });

  it("byNamespace('') gets cluster-scoped objects by name and lists all namespaces", () => {
    const lister = newGenericLister(filled(true), { group: '', resource: 'things' });
    expect(lister.byNamespace('').get('cluster-thing').metadata.name).toBe('cluster-thing');
    expect(lister.byNamespace('').list()).toHaveLength(6);
    expect(() => lister.byNamespace('').get('web-1')).toThrow('things "web-1" not found');
  });

  it('rejects an invalid selector string', () => {
    const lister = newGenericLister(filled(true), deployments);
    expect(() => lister.list('a b c')).toThrow(SelectorParseError);
    expect(() => lister.byNamespace('a').list('=')).toThrow(SelectorParseError);
  });
});
