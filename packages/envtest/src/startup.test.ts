import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { alive } from '../test/process.js';
import { startEnvtest } from './envtest.js';
import { EnvtestError } from './errors.js';

// These tests run startEnvtest against small stand-in executables (Node scripts) to check
// the failure paths: a process that crashes, one that hangs and ignores SIGTERM, an abort.
// The real etcd + kube-apiserver are exercised in envtest.e2e.test.ts.

const FAKE = `
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const name = path.basename(process.argv[1]);
const args = process.argv.slice(2);
if (args.includes('--help')) {
  console.log(name === 'etcd' ? '  --data-dir  --unsafe-no-fsync' : '  --secure-port  --insecure-port');
  process.exit(0);
}
const state = process.env.FAKE_STATE_DIR;
fs.writeFileSync(path.join(state, name + '.pid'), String(process.pid));
fs.writeFileSync(path.join(state, name + '.args'), JSON.stringify(args));
const mode = process.env['FAKE_' + name.replace('-', '_').toUpperCase() + '_MODE'];
if (mode === 'crash') {
  for (let i = 1; i <= 40; i++) console.error(name + ' log line ' + i);
  process.exit(3);
} else if (mode === 'hang') {
  console.error(name + ' is hanging');
  process.on('SIGTERM', () => fs.writeFileSync(path.join(state, name + '.sigterm'), 'ignored'));
  setInterval(() => {}, 1000);
} else if (mode === 'serve' && name === 'etcd') {
  const url = new URL(args.find((a) => a.startsWith('--listen-client-urls=')).split('=')[1]);
  http.createServer((req, res) => res.end('{"health":"true"}')).listen(Number(url.port), '127.0.0.1');
} else if (mode === 'serve') {
  // A stand-in kube-apiserver: HTTPS with envtest's serving certificate, 200 for everything.
  const flag = (n) => args.find((a) => a.startsWith('--' + n + '=')).slice(n.length + 3);
  const crashNext = path.join(state, 'crash-next');
  if (fs.existsSync(crashNext)) {
    fs.rmSync(crashNext);
    console.error('kube-apiserver is crashing on purpose');
    process.exit(4);
  }
  fs.appendFileSync(path.join(state, name + '.starts'), process.pid + ' ' + JSON.stringify(args) + '\\n');
  process.on('SIGTERM', () => {
    fs.appendFileSync(path.join(state, name + '.signals'), 'SIGTERM ' + process.pid + '\\n');
    process.exit(0);
  });
  const tls = { cert: fs.readFileSync(flag('tls-cert-file')), key: fs.readFileSync(flag('tls-private-key-file')) };
  require('node:https')
    .createServer(tls, (req, res) => res.end('{"kind":"Status"}'))
    .listen(Number(flag('secure-port')), '127.0.0.1');
}
`;

let root: string;
let assets: string;
let state: string;
let tmp: string;

async function install(name: string, body: string, shebang = `#!${process.execPath}`) {
  await writeFile(join(assets, name), `${shebang}\n${body}`);
  await chmod(join(assets, name), 0o755);
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'kubets-startup-test-'));
  assets = join(root, 'assets');
  state = join(root, 'state');
  tmp = join(root, 'tmp');
  await Promise.all([mkdir(assets), mkdir(state), mkdir(tmp)]);
  await install('etcd', FAKE);
  await install('kube-apiserver', FAKE);
  vi.stubEnv('FAKE_STATE_DIR', state);
  // envtest makes its temp dir under os.tmpdir(), which follows TMPDIR.
  vi.stubEnv('TMPDIR', tmp);
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await rm(root, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected startEnvtest to fail');
}

async function pidOf(name: string): Promise<number> {
  const pid = Number(await readFile(join(state, `${name}.pid`), 'utf8'));
  // An empty file would read as 0, and process.kill(0, 0) targets our own process group.
  if (!(pid > 0)) throw new Error(`no pid in ${name}.pid`);
  return pid;
}

async function leftoverTempDirs(): Promise<string[]> {
  return (await readdir(tmp)).filter((entry) => entry.startsWith('kubets-envtest-'));
}

/** [pid, args] of every start of the stand-in kube-apiserver in 'serve' mode. */
async function apiServerStarts(): Promise<[number, string[]][]> {
  const text = await readFile(join(state, 'kube-apiserver.starts'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const space = line.indexOf(' ');
      return [Number(line.slice(0, space)), JSON.parse(line.slice(space + 1)) as string[]];
    });
}

async function readIfExists(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return '';
  }
}

describe('Envtest.restartApiServer (stand-in binaries)', () => {
  beforeEach(() => {
    vi.stubEnv('FAKE_ETCD_MODE', 'serve');
    vi.stubEnv('FAKE_KUBE_APISERVER_MODE', 'serve');
  });

  it('kills (SIGKILL) or stops (SIGTERM) kube-apiserver and starts it again with the same flags', async () => {
    const env = await startEnvtest({ assetsDir: assets, startTimeoutMs: 20_000 });
    try {
      const first = env.pids;
      expect(first.kubeApiserver).toBe((await apiServerStarts())[0]?.[0]);

      await env.restartApiServer({ signal: 'SIGKILL' });
      const second = env.pids;
      expect(second.etcd).toBe(first.etcd);
      expect(second.kubeApiserver).not.toBe(first.kubeApiserver);
      expect(alive(first.kubeApiserver)).toBe(false);
      expect(alive(second.kubeApiserver)).toBe(true);
      expect(alive(second.etcd)).toBe(true);
      // Killed, not asked: it never saw a SIGTERM.
      expect(await readIfExists(join(state, 'kube-apiserver.signals'))).toBe('');

      await env.restartApiServer(); // SIGTERM by default
      const third = env.pids;
      expect(third.kubeApiserver).not.toBe(second.kubeApiserver);
      expect(alive(second.kubeApiserver)).toBe(false);
      expect(await readIfExists(join(state, 'kube-apiserver.signals'))).toBe(
        `SIGTERM ${second.kubeApiserver}\n`,
      );

      const starts = await apiServerStarts();
      expect(starts.map(([pid]) => pid)).toEqual([
        first.kubeApiserver,
        second.kubeApiserver,
        third.kubeApiserver,
      ]);
      // Same flags every time: same port, certificates and etcd.
      expect(starts[1]?.[1]).toEqual(starts[0]?.[1]);
      expect(starts[2]?.[1]).toEqual(starts[0]?.[1]);
      expect(starts[0]?.[1]).toContain(`--secure-port=${new URL(env.host).port}`);
      const log = await readFile(join(env.dir, 'kube-apiserver.log'), 'utf8');
      expect(log).toContain(`kube-apiserver ${first.kubeApiserver} ended by SIGKILL`);
    } finally {
      await env.stop();
    }
    expect(alive(env.pids.kubeApiserver)).toBe(false);
    expect(alive(env.pids.etcd)).toBe(false);
    expect(await leftoverTempDirs()).toEqual([]);
    await expect(env.restartApiServer()).rejects.toThrow('envtest was stopped');
  }, 60_000);

  it('reports a kube-apiserver that does not come back, with its log; stop() still cleans up', async () => {
    const env = await startEnvtest({ assetsDir: assets, startTimeoutMs: 20_000 });
    try {
      await writeFile(join(state, 'crash-next'), '');
      const error = await failure(env.restartApiServer({ signal: 'SIGKILL' }));
      expect(error).toBeInstanceOf(EnvtestError);
      const e = error as EnvtestError;
      expect(e.code).toBe('ProcessExited');
      expect(e.binary).toBe('kube-apiserver');
      expect(e.message).toMatch(
        /^kube-apiserver exited with code 4 while envtest was waiting for it to answer https:\/\/127\.0\.0\.1:\d+\/readyz with 200 after a restart\./,
      );
      expect(e.logTail).toContain('kube-apiserver is crashing on purpose');

      // A later restart works again.
      await env.restartApiServer({ signal: 'SIGKILL' });
      expect(alive(env.pids.kubeApiserver)).toBe(true);
      expect(await apiServerStarts()).toHaveLength(2);
    } finally {
      await env.stop();
    }
    expect(alive(env.pids.etcd)).toBe(false);
    expect(await leftoverTempDirs()).toEqual([]);
  }, 60_000);
});

describe('startEnvtest failure paths', () => {
  it('reports a crashing etcd with the last 30 lines of its log and cleans up', async () => {
    vi.stubEnv('FAKE_ETCD_MODE', 'crash');
    const error = await failure(startEnvtest({ assetsDir: assets, startTimeoutMs: 20_000 }));
    expect(error).toBeInstanceOf(EnvtestError);
    const e = error as EnvtestError;
    expect(e.code).toBe('ProcessExited');
    expect(e.binary).toBe('etcd');
    expect(e.message).toMatch(
      /^etcd exited with code 3 while envtest was waiting for etcd to report healthy at http:\/\/127\.0\.0\.1:\d+\/health\.\nLast lines of its log:\n/,
    );
    const tail = e.logTail?.split('\n') ?? [];
    expect(tail).toHaveLength(30);
    expect(tail[0]).toBe('etcd log line 11');
    expect(tail[29]).toBe('etcd log line 40');
    expect(e.message).toContain('etcd log line 40');
    expect(e.message).not.toContain('etcd log line 10\n');
    expect(await leftoverTempDirs()).toEqual([]);
    expect(await readdir(state)).not.toContain('kube-apiserver.pid');
  });

  it('times out on an etcd that never gets healthy, and SIGKILLs it when SIGTERM is ignored', async () => {
    vi.stubEnv('FAKE_ETCD_MODE', 'hang');
    // Generous: the fake etcd is a Node script that must start and log before the deadline,
    // even on a loaded machine.
    const error = await failure(
      startEnvtest({ assetsDir: assets, startTimeoutMs: 8_000, stopGracePeriodMs: 200 }),
    );
    const e = error as EnvtestError;
    expect(e).toBeInstanceOf(EnvtestError);
    expect(e.code).toBe('StartTimeout');
    expect(e.message).toContain('envtest did not start within 8000 ms: still waiting for etcd');
    expect(e.message).toContain('Last lines of the etcd log:\netcd is hanging');
    // It got SIGTERM, ignored it, and is gone all the same: SIGKILL followed.
    expect(await readdir(state)).toContain('etcd.sigterm');
    expect(alive(await pidOf('etcd'))).toBe(false);
    expect(await leftoverTempDirs()).toEqual([]);
  }, 30_000);

  it('reports a crashing kube-apiserver, stops etcd, and passed the expected flags', async () => {
    vi.stubEnv('FAKE_ETCD_MODE', 'serve');
    vi.stubEnv('FAKE_KUBE_APISERVER_MODE', 'crash');
    const error = (await failure(
      startEnvtest({
        assetsDir: assets,
        startTimeoutMs: 20_000,
        apiServerFlags: { 'authorization-mode': 'AlwaysAllow', v: '2' },
      }),
    )) as EnvtestError;
    expect(error.code).toBe('ProcessExited');
    expect(error.binary).toBe('kube-apiserver');
    expect(error.message).toMatch(
      /^kube-apiserver exited with code 3 while envtest was waiting for kube-apiserver to answer https:\/\/127\.0\.0\.1:\d+\/readyz/,
    );
    expect(error.message).toContain('kube-apiserver log line 40');
    expect(alive(await pidOf('etcd'))).toBe(false);
    expect(await leftoverTempDirs()).toEqual([]);

    const etcdArgs = JSON.parse(await readFile(join(state, 'etcd.args'), 'utf8')) as string[];
    const clientUrl = etcdArgs.find((a) => a.startsWith('--listen-client-urls='))?.split('=')[1];
    expect(clientUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(etcdArgs).toContain(`--advertise-client-urls=${clientUrl}`);
    expect(etcdArgs).toContain('--unsafe-no-fsync=true');
    expect(etcdArgs.find((a) => a.startsWith('--listen-peer-urls='))).toMatch(
      /^--listen-peer-urls=http:\/\/127\.0\.0\.1:\d+$/,
    );

    const apiArgs = JSON.parse(
      await readFile(join(state, 'kube-apiserver.args'), 'utf8'),
    ) as string[];
    expect(apiArgs).toContain(`--etcd-servers=${clientUrl}`);
    expect(apiArgs).toContain('--bind-address=127.0.0.1');
    expect(apiArgs).toContain('--advertise-address=127.0.0.1');
    expect(apiArgs).toContain('--insecure-port=0');
    expect(apiArgs).toContain('--authorization-mode=AlwaysAllow');
    expect(apiArgs).toContain('--v=2');
    expect(apiArgs).toContain(
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    );
    expect(apiArgs).toContain('--service-cluster-ip-range=10.0.0.0/24');
    expect(apiArgs).toContain('--disable-admission-plugins=ServiceAccount');
    expect(
      apiArgs.filter((a) =>
        /^--(client-ca-file|tls-cert-file|tls-private-key-file|service-account-key-file|service-account-signing-key-file|cert-dir|secure-port)=./.test(
          a,
        ),
      ),
    ).toHaveLength(7);
  });

  it('stops and cleans up when the signal aborts, rejecting with its reason', async () => {
    vi.stubEnv('FAKE_ETCD_MODE', 'hang');
    const controller = new AbortController();
    const reason = new Error('test is over');
    const promise = startEnvtest({
      assetsDir: assets,
      signal: controller.signal,
      stopGracePeriodMs: 200,
    });
    // Abort once etcd is running.
    // Once the pid is written (not merely the file created: killed in between, it stays empty).
    for (let i = 0; i < 200 && !(await readIfExists(join(state, 'etcd.pid'))); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    controller.abort(reason);
    expect(await failure(promise)).toBe(reason);
    expect(alive(await pidOf('etcd'))).toBe(false);
    expect(await leftoverTempDirs()).toEqual([]);
  });

  it('rejects at once with an already-aborted signal', async () => {
    const reason = new Error('never mind');
    expect(
      await failure(startEnvtest({ assetsDir: assets, signal: AbortSignal.abort(reason) })),
    ).toBe(reason);
  });

  it('reports a binary that cannot be executed', async () => {
    await install('etcd', '', '#!/nonexistent/interpreter');
    const error = (await failure(startEnvtest({ assetsDir: assets }))) as EnvtestError;
    expect(error.code).toBe('ProcessExited');
    // The spawn error in the runtime's words: `spawn <path> ENOENT` (Node, Deno),
    // `ENOENT: no such file or directory, posix_spawn '<path>'` (Bun).
    expect(error.message).toMatch(
      /^etcd could not be started \((spawn .*ENOENT|ENOENT: .*spawn .*)\)/,
    );
    expect(await leftoverTempDirs()).toEqual([]);
  });

  // The safety net runs in the parent's 'exit' handler, so it needs a separate Node process
  // that loads the built package.
  const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
  it.skipIf(!existsSync(dist))(
    'kills the children and removes the temp dir when the parent process exits',
    async () => {
      vi.stubEnv('FAKE_ETCD_MODE', 'hang');
      const script = `
        import { existsSync, readFileSync } from 'node:fs';
        import { startEnvtest } from ${JSON.stringify(dist)};
        startEnvtest({ assetsDir: ${JSON.stringify(assets)} }).catch(() => {});
        const pidFile = ${JSON.stringify(join(state, 'etcd.pid'))};
        const timer = setInterval(() => {
          if (existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '') {
            clearInterval(timer);
            process.exit(0);
          }
        }, 20);
      `;
      await new Promise<void>((resolve, reject) =>
        execFile(process.execPath, ['--input-type=module', '-e', script], (error) =>
          error ? reject(error) : resolve(),
        ),
      );
      const pid = await pidOf('etcd');
      // SIGKILL is asynchronous; the process is reparented to init and reaped shortly.
      for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20));
      expect(alive(pid)).toBe(false);
      expect(await leftoverTempDirs()).toEqual([]);
    },
  );
});
