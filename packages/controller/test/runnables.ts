import type { Runnable } from '../src/index.js';

/** A runnable that does nothing until stopped: a manager runs as long as one of its runnables does. */
export const idleRunnable: Runnable = {
  name: 'idle',
  run: (signal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    }),
};
