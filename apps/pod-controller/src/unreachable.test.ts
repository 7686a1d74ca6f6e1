// An API server that cannot be reached: the app must say so in klog lines within seconds and
// keep retrying, as client-go's reflector does, instead of waiting in silence.
import {
  escapeRegExp,
  expectRetriesAgainstUnreachableServer,
  libraryLogLine,
} from '@kubets-apps/shared/testing';
import { describe, it } from 'vitest';

describe('pod-controller against an unreachable server', () => {
  it('logs the refused connections and the failed list, and keeps retrying', async () => {
    await expectRetriesAgainstUnreachableServer(new URL('..', import.meta.url), (server) =>
      libraryLogLine(
        '@kubets/cache',
        `List/watch failed .*error="TransportError: GET ${escapeRegExp(server)}/api/v1/namespaces/default/pods\\?.*: connect ECONNREFUSED .*"`,
      ),
    );
  }, 120_000);
});
