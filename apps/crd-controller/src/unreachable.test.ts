// An API server that cannot be reached: the app must say so in klog lines within seconds and
// keep retrying, as client-go's reflector does, instead of waiting in silence.
import {
  escapeRegExp,
  expectRetriesAgainstUnreachableServer,
  klogLine,
} from '@kubets-apps/shared/testing';
import { describe, it } from 'vitest';

describe('crd-controller against an unreachable server', () => {
  it('logs the refused connections and the failed list, and keeps retrying', async () => {
    await expectRetriesAgainstUnreachableServer(new URL('..', import.meta.url), (server) =>
      klogLine(
        'main.ts',
        `.+: Failed to list \\*v1\\.Mydemo: GET ${escapeRegExp(server)}/apis/crddemo\\.k8s\\.io/v1/mydemos\\?.*: connect ECONNREFUSED .*`,
        'E',
      ),
    );
  }, 120_000);
});
