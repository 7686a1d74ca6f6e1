// A one-shot program against an API server that cannot be reached: it must end at once,
// non-zero, with one line on stderr naming the server and the error — no stack trace. The
// same when the server accepts the connection and never answers (a blackholed route): the
// first request has a deadline (client-go's discovery timeout, 32 s, unless
// --request-timeout says otherwise).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ChaosProxy } from '@kubets/test-utils';
import {
  appRuntimeArgs,
  closedLoopbackPort,
  escapeRegExp,
  klogLine,
  noClusterEnv,
  runCommandLine,
} from '@kubets-apps/shared/testing';
import { describe, expect, it } from 'vitest';

const appDir = new URL('..', import.meta.url);

describe('client-tour against an unreachable server', () => {
  it('exits non-zero with one klog line naming the server and the error', async () => {
    const port = await closedLoopbackPort();
    const server = `https://127.0.0.1:${port}`;
    const { env, cleanup } = noClusterEnv();
    try {
      const child = spawn(
        process.execPath,
        [...appRuntimeArgs, 'src/main.ts', `--master=${server}`],
        {
          cwd: fileURLToPath(appDir),
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (text: string) => {
        stdout += text;
      });
      child.stderr.setEncoding('utf8').on('data', (text: string) => {
        stderr += text;
      });
      const code = await new Promise<number | null>((resolve, reject) => {
        child.once('error', reject);
        child.once('close', (exitCode) => resolve(exitCode));
      });
      expect(code, stderr).not.toBe(0);
      expect(code, stderr).not.toBeNull();
      expect(stdout).toBe('');
      const lines = stderr.split('\n').filter((line) => line !== '');
      expect(lines, stderr).toHaveLength(1);
      expect(lines[0]).toMatch(
        klogLine(
          'main.ts',
          `Unable to connect to the server ${escapeRegExp(server)}: .*connect ECONNREFUSED 127\\.0\\.0\\.1:${port}`,
          'F',
        ),
      );
    } finally {
      cleanup();
    }
  }, 120_000);

  it('gives up on a server that never answers after --request-timeout, with one klog line saying so', async () => {
    const closed = await closedLoopbackPort();
    // Connections are accepted and held: the TLS handshake never even starts.
    const proxy = await ChaosProxy.start(`https://127.0.0.1:${closed}`);
    proxy.hold(true);
    try {
      const server = proxy.url();
      const { output, code } = await runCommandLine(appDir, [
        `--master=${server}`,
        '--request-timeout=1s',
      ]);
      expect(code, output.lines.join('\n')).toBe(255);
      expect(output.lines, output.lines.join('\n')).toHaveLength(1);
      expect(output.lines[0]).toMatch(
        klogLine(
          'main.ts',
          `Unable to connect to the server ${escapeRegExp(server)}: .*timed out after 1000 ms`,
          'F',
        ),
      );
      expect(proxy.held).toBeGreaterThan(0);
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
