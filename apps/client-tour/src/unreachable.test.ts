// A one-shot program against an API server that cannot be reached: it must end at once,
// non-zero, with one line on stderr naming the server and the error — no stack trace.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { closedLoopbackPort, escapeRegExp, noClusterEnv } from '@kubets-apps/shared/testing';
import { describe, expect, it } from 'vitest';

describe('client-tour against an unreachable server', () => {
  it('exits non-zero with one klog line naming the server and the error', async () => {
    const port = await closedLoopbackPort();
    const server = `https://127.0.0.1:${port}`;
    const { env, cleanup } = noClusterEnv();
    try {
      const child = spawn(process.execPath, ['src/main.ts', `--master=${server}`], {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
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
        new RegExp(
          `^F\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d{6} +\\d+ main\\.ts:\\d+\\] Unable to connect to the server ${escapeRegExp(server)}: .*connect ECONNREFUSED 127\\.0\\.0\\.1:${port}$`,
        ),
      );
    } finally {
      cleanup();
    }
  }, 120_000);
});
