// The README's example (between the readme markers), run as a test: scripts/readme-examples.mjs
// checks that packages/workqueue/README.md shows this code verbatim, with `from './index.js'`
// written as `from '@kubets/workqueue'`. Time is a FakeClock, so the retries take no time.

// readme:start
import { FakeClock } from '@kubets/apimachinery/testing';
import { defaultControllerRateLimiter, newRateLimitingQueue } from './index.js';

const clock = new FakeClock(); // time stands still until the example moves it; omit for real time
const queue = newRateLimitingQueue<string>(defaultControllerRateLimiter({ clock }), { clock });

// Informer handlers add keys; a key that is already waiting is not queued twice.
queue.add('default/web');
queue.add('default/web');
queue.add('default/db');

const synced: string[] = [];
let conflicts = 2; // "default/db" fails twice before it syncs
async function processNextItem(): Promise<boolean> {
  const { item: key, shutdown } = await queue.get();
  if (shutdown) return false;
  try {
    if (key === 'default/db' && conflicts-- > 0) throw new Error('conflict'); // your sync logic
    synced.push(`${key} at ${clock.now()} ms`);
    queue.forget(key); // success: reset the key's backoff
  } catch {
    queue.addRateLimited(key); // retry after 5 ms, then 10 ms, 20 ms, ...
  } finally {
    queue.done(key); // always: lets the key be handed out again
  }
  return true;
}

const worker = (async () => {
  while (await processNextItem());
})();
await clock.advance(100); // the retries after 5 ms and 10 ms happen
await queue.shutDownWithDrain(); // no more keys; wait for the ones in flight
await worker;

// readme:end
import { expect, it } from 'vitest'; // after the example, so sorting imports keeps it out

it('runs the README example: deduplicates, retries with backoff, then drains', () => {
  // web at once; db after its two retries, 5 ms and 10 ms later
  expect(synced).toEqual(['default/web at 0 ms', 'default/db at 15 ms']);
  expect(conflicts).toBe(-1);
  expect(queue.numRequeues('default/db')).toBe(0); // forgotten after its success
  expect(queue.len()).toBe(0);
  expect(clock.pending).toBe(0);
});
