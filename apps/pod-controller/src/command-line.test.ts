// Seeds 000 and 002 define `-kubeconfig` and `-master` with Go's flag package (which takes
// one dash or two, `-flag=value` or `-flag value`); klog's flags exist in every klog program.
// Against a server that refuses connections: the command line is accepted, and -v=4 shows
// the debug lines that -v=0 does not.
import {
  closedLoopbackPort,
  escapeRegExp,
  flagErrorLine,
  klogLine,
  libraryLogLine,
  runCommandLine,
  writeKubeconfig,
} from '@kubets-apps/shared/testing';
import { describe, expect, it } from 'vitest';

const appDir = new URL('..', import.meta.url);

/** klogLogger's debug report of an informer's reflector: a V(4) line. */
const startingReflector = libraryLogLine('@kubets/cache', 'Starting reflector .*', 'I');
/** The first request of the reflector's list, refused and retried (printed at every -v). */
const listRetried = libraryLogLine(
  '@kubets/rest',
  'retrying after a connection error method="GET" url=".*[?&]resourceVersion=0.*',
);
/** connect()'s V(4) line: where the configuration came from. */
const configFrom = (server: string): RegExp =>
  klogLine('main.ts', `using the cluster configuration from .*: server ${escapeRegExp(server)}.*`);

describe('pod-controller command line', () => {
  it("accepts the seed's command line and klog's flags; -v=4 shows debug lines that -v=0 does not", async () => {
    const server = `https://127.0.0.1:${await closedLoopbackPort()}`;
    const kubeconfig = writeKubeconfig(server);
    try {
      const seed = ['-kubeconfig', kubeconfig.path, `-master=${server}`];

      const verbose = await runCommandLine(appDir, [...seed, '-v=4'], { until: startingReflector });
      expect(verbose.output.count(flagErrorLine), verbose.output.lines.join('\n')).toBe(0);
      expect(verbose.output.count(configFrom(server))).toBe(1);

      const quiet = await runCommandLine(appDir, seed, { until: listRetried });
      expect(quiet.output.count(flagErrorLine), quiet.output.lines.join('\n')).toBe(0);
      expect(quiet.output.count(startingReflector)).toBe(0);
      expect(quiet.output.count(/using the cluster configuration/)).toBe(0);

      // klog's other flags, one dash or two, in Go's forms
      const klogFlags = [
        '--v',
        '0',
        '-logtostderr',
        '--alsologtostderr=false',
        '-stderrthreshold',
        'INFO',
      ];
      const more = await runCommandLine(appDir, [...seed, ...klogFlags], { until: listRetried });
      expect(more.output.count(flagErrorLine), more.output.lines.join('\n')).toBe(0);
    } finally {
      kubeconfig.cleanup();
    }
  }, 120_000);

  it('refuses an unknown flag as Go does: the flag named, the usage, exit code 2', async () => {
    const bad = await runCommandLine(appDir, ['-kubeconfig=/nonexistent', '-a']);
    expect(bad.code).toBe(2);
    expect(bad.output.lines[0]).toBe('pod-controller: flag provided but not defined: -a');
    expect(bad.output.count(/^ {2}--v <value> +number for the log level verbosity/)).toBe(1);
  }, 60_000);
});
