// The demo mode, run as a user would (`node src/main.ts`) with no cluster configured: the app
// must find none, start the embedded API server, and show adds, the lister, an update, a
// delete and a resync.
import { klogLine, noClusterEnv, startApp } from '@kubets-apps/shared/testing';
import { describe, expect, it } from 'vitest';

const appDir = new URL('..', import.meta.url);

describe('deployment-watcher demo mode', () => {
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

      // The first list, then the lister's view of "default".
      expect(out.count(/^add a deployment: nginx$/)).toBe(1);
      expect(out.count(/^add a deployment: redis$/)).toBe(1);
      const listed = out.matching(/^\d+ -> /);
      expect(listed.map((line) => line.replace(/^\d+ -> /, '')).sort()).toEqual(['nginx', 'redis']);
      expect(listed.map((line) => line.split(' -> ')[0])).toEqual(['1', '2']);

      // Changes while it runs.
      const web = out.indexOf(/^add a deployment: web$/);
      expect(web).toBeGreaterThan(out.indexOf(/^2 -> /));
      const scaled = out.indexOf(/^update deployment: nginx nginx$/, web);
      const deleted = out.indexOf(/^delete a deployment: redis$/);
      expect(scaled).toBeGreaterThan(web);
      expect(deleted).toBeGreaterThan(scaled);

      // The resync re-delivers the remaining deployments as updates; web never changed, so
      // its update can only be the resync.
      const resync = out.indexOf(/^update deployment: web web$/, deleted);
      expect(resync).toBeGreaterThan(deleted);
      expect(out.count(/^update deployment: nginx nginx$/, deleted)).toBeGreaterThanOrEqual(1);
      expect(out.count(/^update deployment: redis redis$/, deleted)).toBe(0);

      expect(out.indexOf(klogLine('main.ts', 'Stopping deployment watcher'))).toBeGreaterThan(
        resync,
      );
      expect(out.count(/demo scenario failed/)).toBe(0);
    } finally {
      cleanup();
    }
  }, 180_000);
});
