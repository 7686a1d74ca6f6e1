// The README's example, run as a test (scripts/readme-examples.mjs checks that README.md
// shows the code between the readme markers): the harness of @kubets/test-utils.

import { startApiServer } from '@kubets/apiserver';
import { startReadmeHarness } from '@kubets/test-utils';
import { afterAll, expect, it } from 'vitest';

const { logged, stop } = await startReadmeHarness(startApiServer);
afterAll(stop);

// readme:start
import { randomUUID } from 'node:crypto';
import { Clientset } from '@kubets/clientset';
import { loadConfig } from '@kubets/rest';
import { LeaseLock, runLeaderElection } from './index.js';

const id = randomUUID(); // unique per process
const clientset = new Clientset(loadConfig()); // as kubectl: KUBECONFIG, ~/.kube/config, ...
const shutdown = new AbortController(); // a real process aborts it on SIGTERM

/** The controller: informers, workqueue, workers — all stopped by `signal`. */
async function run(signal: AbortSignal): Promise<void> {
  signal.addEventListener('abort', () => console.log('Controller stopped'));
  console.log('Controller loop...'); // e.g. factory.start(signal); await controller.run(2, signal);
  shutdown.abort(); // this example ends at once: the election is cancelled, the lease released
}

await runLeaderElection(
  {
    lock: new LeaseLock({ namespace: 'default', name: 'example', client: clientset, identity: id }),
    releaseOnCancel: true, // only safe because run() stops when its signal aborts
    leaseDurationMs: 60_000,
    renewDeadlineMs: 15_000,
    retryPeriodMs: 5_000,
    callbacks: {
      onStartedLeading: (signal) => run(signal),
      onStoppedLeading: () => console.log(`leader lost: ${id}`),
      onNewLeader: (identity) => {
        if (identity !== id) console.log(`new leader elected: ${identity}`);
      },
    },
  },
  shutdown.signal,
); // resolves when the election ends
// readme:end

it('runs the README example: leads, runs the controller, releases the lease', async () => {
  expect(logged).toEqual([['Controller loop...'], ['Controller stopped'], [`leader lost: ${id}`]]);
  // Released: an empty holder with a 1 s lease, so the next candidate takes over at once.
  const lease = await clientset.coordinationV1().leases('default').get('example');
  expect(lease.spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
});
