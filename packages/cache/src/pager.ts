import type { ListQueryOptions } from '@kubets/apimachinery';
import { isResourceExpired, type ObjectList } from '@kubets/apimachinery';

/** The page size client-go's pager uses. */
export const defaultPageSize = 500;

/** Settings of {@link listAllPages}. */
export interface ListPagerOptions {
  /** Items per page; `0` asks for everything at once. Default {@link defaultPageSize}. */
  pageSize?: number | undefined;
  /**
   * When a `continue` token has expired (410 `Expired` on page 2 or later), list everything
   * once more in a single request at the resourceVersion first asked for. Default true.
   */
  fullListIfExpired?: boolean | undefined;
}

/** What {@link listAllPages} returns. */
export interface PagedList<T> {
  /** All items; `metadata.resourceVersion` is the one of the last response. */
  list: ObjectList<T>;
  /** True when the server answered with more than one page. */
  paginated: boolean;
}

/**
 * Lists everything by following `continue` tokens (client-go `tools/pager`): the first
 * request carries `limit = pageSize` and the given options, later ones the token (and no
 * resourceVersion, which the token encodes). Items are gathered in one array without
 * copying pages around.
 *
 * @throws the error of the page function, except an expired `continue` token with
 *   `fullListIfExpired`, which is answered by one full list at the resourceVersion (and
 *   resourceVersionMatch) of `initial`.
 */
export async function listAllPages<T>(
  pageFn: (options: ListQueryOptions, signal: AbortSignal) => Promise<ObjectList<T>>,
  initial: ListQueryOptions,
  signal: AbortSignal,
  pagerOptions: ListPagerOptions = {},
): Promise<PagedList<T>> {
  const pageSize = pagerOptions.pageSize ?? defaultPageSize;
  const fullListIfExpired = pagerOptions.fullListIfExpired ?? true;
  const options: ListQueryOptions = { ...initial };
  if ((options.limit === undefined || options.limit === 0) && pageSize > 0) {
    options.limit = pageSize;
  }
  let items: T[] | undefined;
  let paginated = false;
  for (;;) {
    let page: ObjectList<T>;
    try {
      page = await pageFn(options, signal);
    } catch (err) {
      if (!isResourceExpired(err) || !fullListIfExpired || !options.continue) throw err;
      // The token fell out of the server's history while paging: list everything at once,
      // at the resourceVersion first asked for, which may still be served from the watch
      // cache (the token's own one is gone).
      const full: ListQueryOptions = { ...options };
      delete full.limit;
      delete full.continue;
      delete full.resourceVersion;
      delete full.resourceVersionMatch;
      if (initial.resourceVersion !== undefined) full.resourceVersion = initial.resourceVersion;
      if (initial.resourceVersionMatch !== undefined) {
        full.resourceVersionMatch = initial.resourceVersionMatch;
      }
      return { list: await pageFn(full, signal), paginated };
    }
    const token = page.metadata?.continue;
    if (!token) {
      if (items === undefined) return { list: page, paginated };
      for (const item of page.items) items.push(item);
      return { list: { ...page, items }, paginated };
    }
    paginated = true;
    if (items === undefined) items = page.items;
    else for (const item of page.items) items.push(item);
    options.continue = token;
    delete options.resourceVersion;
    delete options.resourceVersionMatch;
  }
}
