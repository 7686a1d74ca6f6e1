// Seed 001's usage cases run as `go run main.go` (see main.test.ts for the run without
// flags); the apps take `-kubeconfig` as the seeds' other programs do, in Go's forms, and klog's
// flags. Against a server that refuses connections (the tour then ends with one F line): the
// command line is accepted, and -v=4 shows a debug line that -v=0 does not.
import {
  closedLoopbackPort,
  configFromLine,
  flagErrorLine,
  itRefusesAnUnknownFlag,
  klogLine,
  runCommandLine,
  writeKubeconfig,
} from '@kubets-apps/shared/testing';
import { describe, expect, it } from 'vitest';

const appDir = new URL('..', import.meta.url);

describe('client-tour command line', () => {
  it("accepts the seed's flags and klog's flags; -v=4 shows a debug line that -v=0 does not", async () => {
    const server = `https://127.0.0.1:${await closedLoopbackPort()}`;
    const kubeconfig = writeKubeconfig(server);
    const unreachable = klogLine('main.ts', 'Unable to connect to the server .*', 'F');
    try {
      const seed = [`-kubeconfig=${kubeconfig.path}`];

      const verbose = await runCommandLine(appDir, [...seed, '-v=4']);
      expect(verbose.output.count(flagErrorLine), verbose.output.lines.join('\n')).toBe(0);
      expect(verbose.code).toBe(255);
      expect(verbose.output.count(configFromLine(server))).toBe(1);
      expect(verbose.output.count(unreachable)).toBe(1);

      const quiet = await runCommandLine(appDir, [...seed, '--v', '0', '-alsologtostderr=true']);
      expect(quiet.output.count(flagErrorLine), quiet.output.lines.join('\n')).toBe(0);
      expect(quiet.code).toBe(255);
      expect(quiet.output.count(unreachable)).toBe(1);
      expect(quiet.output.count(/using the cluster configuration/)).toBe(0);
    } finally {
      kubeconfig.cleanup();
    }
  }, 120_000);

  itRefusesAnUnknownFlag('client-tour', appDir);
});
