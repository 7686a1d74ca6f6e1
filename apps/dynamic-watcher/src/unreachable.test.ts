// An API server that cannot be reached: the app must say so in klog lines within seconds and
// keep retrying, as client-go's reflector does, instead of waiting in silence.
import {
  escapeRegExp,
  expectRetriesAgainstUnreachableServer,
  libraryLogLine,
} from '@kubets-apps/shared/testing';
import { describe, it } from 'vitest';

describe('dynamic-watcher against an unreachable server', () => {
  it('logs the refused connections and the failed list, and keeps retrying', async () => {
    await expectRetriesAgainstUnreachableServer(new URL('..', import.meta.url), (server) =>
      libraryLogLine(
        '@kubets/cache',
        `List/watch failed .*error="TransportError: GET ${escapeRegExp(server)}/apis/apps/v1/deployments\\?.*: connect ECONNREFUSED .*"`,
      ),
    );
  }, 120_000);
});
