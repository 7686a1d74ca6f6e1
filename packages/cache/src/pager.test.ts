import type { ListQueryOptions } from '@kubets/apimachinery';
import { describe, expect, it } from 'vitest';
import { expiredError, listOf, statusError } from '../test/helpers.js';
import { listAllPages } from './pager.js';

const signal = new AbortController().signal;

describe('listAllPages', () => {
  it('returns a single page as is, not paginated', async () => {
    const page = listOf(['a'], '3');
    const r = await listAllPages(async () => page, { resourceVersion: '0' }, signal);
    expect(r).toEqual({ list: page, paginated: false });
  });

  it('honours pageSize 0 and an explicit limit', async () => {
    const calls: ListQueryOptions[] = [];
    const fn = async (o: ListQueryOptions) => {
      calls.push({ ...o });
      return listOf([], '1');
    };
    await listAllPages(fn, {}, signal, { pageSize: 0 });
    await listAllPages(fn, { limit: 7 }, signal);
    await listAllPages(fn, {}, signal, { pageSize: 50 });
    expect(calls).toEqual([{}, { limit: 7 }, { limit: 50 }]);
  });

  it('rethrows errors of the first page, and expired tokens without fullListIfExpired', async () => {
    await expect(
      listAllPages(
        async () => {
          throw expiredError();
        },
        {},
        signal,
      ),
    ).rejects.toThrow(/too old/);
    const fn = async (o: ListQueryOptions) => {
      if (o.continue) throw expiredError();
      return listOf(['a'], '1', 'tok');
    };
    await expect(listAllPages(fn, {}, signal, { fullListIfExpired: false })).rejects.toThrow();
    const other = async (o: ListQueryOptions) => {
      if (o.continue) throw statusError(500, 'InternalError');
      return listOf(['a'], '1', 'tok');
    };
    await expect(listAllPages(other, {}, signal)).rejects.toThrow('InternalError');
  });

  it('keeps selectors on every page', async () => {
    const calls: ListQueryOptions[] = [];
    const fn = async (o: ListQueryOptions) => {
      calls.push({ ...o });
      return o.continue ? listOf(['b'], '5') : listOf(['a'], '5', 'tok');
    };
    const r = await listAllPages(fn, { labelSelector: 'app=x', resourceVersion: '0' }, signal);
    expect(r.paginated).toBe(true);
    expect(r.list.items).toEqual(['a', 'b']);
    expect(calls).toEqual([
      { labelSelector: 'app=x', resourceVersion: '0', limit: 500 },
      { labelSelector: 'app=x', limit: 500, continue: 'tok' },
    ]);
  });
});
