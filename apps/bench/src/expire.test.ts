import type { WatchEvent } from '@kubets/apimachinery';
import { isResourceExpired, watchErrorToStatusError } from '@kubets/apimachinery';
import type { ListerWatcher } from '@kubets/cache';
import { describe, expect, it } from 'vitest';
import { Expirer, expiredEvent } from './expire.ts';

interface Obj {
  metadata: { name: string };
}

function fakeListerWatcher(): ListerWatcher<Obj> & { returned: number } {
  const lw = {
    returned: 0,
    list: async () => ({
      items: [{ metadata: { name: 'a' } }],
      metadata: { resourceVersion: '5' },
    }),
    watch: async () => ({
      [Symbol.asyncIterator]: (): AsyncIterator<WatchEvent<Obj>> => ({
        // A watch on which nothing happens.
        next: () => new Promise(() => undefined),
        return: async () => {
          lw.returned++;
          return { done: true, value: undefined };
        },
      }),
    }),
  };
  return lw;
}

describe('Expirer', () => {
  it('builds the 410 Expired event kube-apiserver sends', () => {
    const event = expiredEvent<Obj>();
    expect(event.type).toBe('ERROR');
    if (event.type !== 'ERROR') return;
    expect(isResourceExpired(watchErrorToStatusError(event))).toBe(true);
  });

  it('counts lists and ends the running watch with 410 when asked', async () => {
    const inner = fakeListerWatcher();
    const expirer = new Expirer<Obj>();
    const seen: number[] = [];
    expirer.onList = (list) => seen.push(list.items.length);
    const lw = expirer.wrap(inner);
    const signal = new AbortController().signal;
    await lw.list({}, signal);
    expect(expirer.lists).toBe(1);
    expect(seen).toEqual([1]);

    const it = (await lw.watch({}, signal))[Symbol.asyncIterator]();
    const next = it.next();
    expirer.expire();
    const r = await next;
    expect(r.done).toBe(false);
    expect(r.value?.type).toBe('ERROR');
    await it.return?.();
    expect(inner.returned).toBe(1);

    // Only once: the next watch is not expired.
    const it2 = (await lw.watch({}, signal))[Symbol.asyncIterator]();
    const raced = await Promise.race([it2.next(), new Promise((r) => setTimeout(r, 20, 'idle'))]);
    expect(raced).toBe('idle');
  });
});
