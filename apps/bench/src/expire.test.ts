import type { WatchEvent } from '@kubets/apimachinery';
import { isResourceExpired, watchErrorToStatusError } from '@kubets/apimachinery';
import type { ListerWatcher } from '@kubets/cache';
import { describe, expect, it } from 'vitest';
import { Expirer, expiredEvent } from './expire.ts';

interface Obj {
  metadata: { name: string };
}

function fakeListerWatcher(): ListerWatcher<Obj> & { watches: number } {
  const lw = {
    watches: 0,
    list: async () => ({
      items: [{ metadata: { name: 'a' } }],
      metadata: { resourceVersion: '5' },
    }),
    watch: async (_options: unknown, signal: AbortSignal) => {
      lw.watches++;
      return {
        [Symbol.asyncIterator]: (): AsyncIterator<WatchEvent<Obj>> => ({
          // A watch on which nothing happens; it ends when its signal aborts.
          next: () =>
            new Promise((resolve) => {
              const end = () => resolve({ done: true, value: undefined });
              if (signal.aborted) end();
              else signal.addEventListener('abort', end, { once: true });
            }),
          return: async () => ({ done: true, value: undefined }),
        }),
      };
    },
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

    const watch = await lw.watch({}, signal);
    const it = watch[Symbol.asyncIterator]();
    const next = it.next();
    expirer.expire();
    // The running watch ends, as when the server closes it.
    expect(await next).toEqual({ done: true, value: undefined });

    // The next watch request is answered with 410 Expired, without asking the server.
    const expired = (await lw.watch({}, signal))[Symbol.asyncIterator]();
    const r = await expired.next();
    expect(r.done).toBe(false);
    expect(r.value?.type).toBe('ERROR');
    if (r.value?.type === 'ERROR') {
      expect(isResourceExpired(watchErrorToStatusError(r.value))).toBe(true);
    }
    expect((await expired.next()).done).toBe(true);
    expect(inner.watches).toBe(1);

    // Only once: the watch after that is the server's again, and not ended.
    const it2 = (await lw.watch({}, signal))[Symbol.asyncIterator]();
    expect(inner.watches).toBe(2);
    const raced = await Promise.race([it2.next(), Promise.resolve('pending')]);
    expect(raced).toBe('pending');
  });

  it("keeps the inner list-watch's answer on streaming lists", () => {
    const expirer = new Expirer<Obj>();
    expect(expirer.wrap(fakeListerWatcher()).isWatchListSemanticsUnsupported).toBeUndefined();
    for (const unsupported of [true, false]) {
      const inner = { ...fakeListerWatcher(), isWatchListSemanticsUnsupported: () => unsupported };
      expect(expirer.wrap(inner).isWatchListSemanticsUnsupported?.()).toBe(unsupported);
    }
  });
});
