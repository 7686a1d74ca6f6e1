// The demo mode, run as a user would (`node src/main.ts`) with no cluster configured: the app
// watches deployments.v1.apps as unstructured objects on the embedded API server.
import { klogLine, noClusterEnv, startApp } from '@kubets-apps/shared/testing';
import { afterAll, describe, expect, it } from 'vitest';

const appDir = new URL('..', import.meta.url);
const { env, cleanup } = noClusterEnv();
afterAll(cleanup);

describe('dynamic-watcher demo mode', () => {
  it('plays the scripted scenario on the embedded API server and exits 0', async () => {
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

    expect(out.count(/^add a deployment: nginx$/)).toBe(1);
    expect(out.count(/^add a deployment: redis$/)).toBe(1);
    const listed = out.matching(/^\d+ -> /);
    expect(listed.map((line) => line.split(' -> ')[0])).toEqual(['1', '2']);
    expect(listed.map((line) => line.split(' -> ')[1]).sort()).toEqual(['nginx', 'redis']);

    const web = out.indexOf(/^add a deployment: web$/);
    expect(web).toBeGreaterThan(out.indexOf(/^2 -> /));
    const scaled = out.indexOf(/^update deployment: nginx nginx$/, web);
    const deleted = out.indexOf(/^delete a deployment: redis$/);
    expect(scaled).toBeGreaterThan(web);
    expect(deleted).toBeGreaterThan(scaled);

    // web never changed: its update is the resync.
    const resync = out.indexOf(/^update deployment: web web$/, deleted);
    expect(resync).toBeGreaterThan(deleted);
    expect(out.indexOf(klogLine('main.ts', 'Stopping dynamic watcher'))).toBeGreaterThan(resync);
    expect(out.count(/demo scenario failed/)).toBe(0);
  }, 180_000);

  it('says the demo plays with deployments when given another resource, and exits 1', async () => {
    const app = startApp(appDir, ['configmaps.v1.'], { env });
    expect(await app.exited).toBe(1);
    expect(
      app.output.count(
        klogLine(
          'cluster.ts',
          'demo scenario failed: the demo plays with deployments.v1.apps; point the app at a cluster \\(--kubeconfig\\) to watch configmaps',
          'E',
        ),
      ),
    ).toBe(1);
  }, 180_000);

  it('refuses a resource that is not resource.version.group with a fatal error', async () => {
    const app = startApp(appDir, ['deployments.apps'], { env });
    expect(await app.exited).toBe(255);
    expect(app.output.count(klogLine('main.ts', '.*deployments\\.apps.*', 'F'))).toBe(1);
  }, 180_000);
});
