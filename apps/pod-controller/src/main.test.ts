// The demo mode, run as a user would (`node src/main.ts`) with no cluster configured: the app
// must find none, start the embedded API server, and show the whole behaviour of the seed.
import { klogLine, noClusterEnv, startApp } from '@kubets-apps/shared/testing';
import { describe, expect, it } from 'vitest';

const appDir = new URL('..', import.meta.url);

describe('pod-controller demo mode', () => {
  it('plays the scripted scenario on the embedded API server and exits 0', async () => {
    const { env, cleanup } = noClusterEnv();
    try {
      const app = startApp(appDir, [], { env });
      const code = await app.exited;
      const out = app.output;
      expect(code, out.lines.join('\n')).toBe(0);

      expect(
        out.count(
          klogLine(
            'main.ts',
            'no cluster configuration found; running on the embedded in-memory API server',
          ),
        ),
      ).toBe(1);
      const starting = out.indexOf(klogLine('main.ts', 'Starting Pod controller'));
      expect(starting).toBeGreaterThan(0);

      // The warmed-up pod that does not exist is reported deleted after the sync.
      const mypod = out.indexOf(/^Pod default\/mypod does not exist anymore$/);
      expect(mypod).toBeGreaterThan(starting);
      expect(out.count(/^Sync\/Add\/Update for Pod redis$/)).toBe(1);

      // The failing pod: 5 retries, each logged, then dropped — and nothing after that.
      const failure = 'sync of pod default/broken failed on purpose \\(--fail-pod broken\\)';
      const retries = out.matching(
        klogLine('main.ts', `Error syncing pod default/broken: ${failure}`),
      );
      expect(retries).toHaveLength(5);
      const dropped = out.indexOf(
        klogLine('main.ts', `Dropping pod "default/broken" out of the queue: ${failure}`),
      );
      expect(dropped).toBeGreaterThan(starting);
      expect(out.count(/Error syncing pod default\/broken/, dropped)).toBe(0);
      expect(out.count(/Dropping pod/)).toBe(1);
      expect(out.indexOf(klogLine('main.ts', failure, 'E'))).toBe(dropped - 1); // runtime.HandleError
      expect(out.count(/Sync\/Add\/Update for Pod broken/)).toBe(0);

      // The changes made while it runs: update, create, delete.
      expect(out.count(/^Sync\/Add\/Update for Pod nginx$/)).toBe(2);
      const web = out.indexOf(/^Sync\/Add\/Update for Pod web$/);
      const redisGone = out.indexOf(/^Pod default\/redis does not exist anymore$/);
      expect(web).toBeGreaterThan(dropped);
      expect(redisGone).toBeGreaterThan(web);

      const stopping = out.indexOf(klogLine('main.ts', 'Stopping Pod controller'));
      expect(stopping).toBeGreaterThan(redisGone);
      expect(out.count(/demo scenario failed/)).toBe(0);
    } finally {
      cleanup();
    }
  }, 180_000);

  it('refuses a bad flag with the usage and exit code 2, and prints --help', async () => {
    const bad = startApp(appDir, ['--threadiness', '0']);
    const help = startApp(appDir, ['--help']);
    expect(await bad.exited).toBe(2);
    expect(bad.output.lines[0]).toBe(
      'pod-controller: invalid value "0" for flag --threadiness: want a whole number ≥ 1',
    );
    expect(bad.output.count(/^ {2}--fail-pod <value> +make the sync of the pod/)).toBe(1);

    expect(await help.exited).toBe(0);
    expect(
      help.output.count(/^ {2}--kubeconfig <value> +absolute path to the kubeconfig file$/),
    ).toBe(1);
    expect(
      help.output.count(/^ {2}--threadiness <value> +number of workers .*\(default 1\)$/),
    ).toBe(1);
  }, 180_000);

  it('treats a configuration that cannot be loaded as fatal (exit 255), attributed to main.ts', async () => {
    const app = startApp(appDir, ['--kubeconfig', '/nonexistent/kubeconfig']);
    expect(await app.exited).toBe(255);
    expect(app.output.lines).toHaveLength(1);
    expect(app.output.lines[0]).toMatch(
      klogLine('main.ts', 'cannot read kubeconfig /nonexistent/kubeconfig.*', 'F'),
    );
  }, 180_000);
});
