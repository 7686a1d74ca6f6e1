import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** How a child process ended. */
export interface ExitInfo {
  /** Exit code, or null when it was ended by a signal or never started. */
  code: number | null;
  /** The signal that ended it, or null. */
  signal: NodeJS.Signals | null;
  /** Set when the process could not be spawned at all (ENOENT, EACCES, ...). */
  spawnError?: Error;
}

/** A child process whose stdout and stderr go to a log file. */
export interface ManagedProcess {
  readonly name: string;
  readonly pid: number | undefined;
  readonly logPath: string;
  /** Resolves once the process has exited (or failed to spawn). Never rejects. */
  readonly exited: Promise<ExitInfo>;
  /** The exit, once known. */
  exitInfo(): ExitInfo | undefined;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. Idempotent. */
  stop(graceMs: number): Promise<void>;
  /** Sends `signal` (unless the process is gone already) and resolves once it has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

// Safety net: if the test process exits without stopping envtest (a crash, process.exit(),
// a forgotten afterAll), kill the children and remove the temp dirs synchronously on 'exit'.
const liveChildren = new Set<ChildProcess>();
const liveDirs = new Set<string>();
let exitHookInstalled = false;

function onParentExit(): void {
  for (const child of liveChildren) {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }
  liveChildren.clear();
  for (const dir of liveDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Best effort on the way out.
    }
  }
  liveDirs.clear();
}

function syncExitHook(): void {
  const needed = liveChildren.size > 0 || liveDirs.size > 0;
  if (needed && !exitHookInstalled) {
    process.on('exit', onParentExit);
    exitHookInstalled = true;
  } else if (!needed && exitHookInstalled) {
    process.off('exit', onParentExit);
    exitHookInstalled = false;
  }
}

/** Registers a temp dir to be removed if the parent process exits before it is cleaned up. */
export function trackTempDir(dir: string): void {
  liveDirs.add(dir);
  syncExitHook();
}

/** Forgets a temp dir registered with {@link trackTempDir} (after removing it). */
export function untrackTempDir(dir: string): void {
  liveDirs.delete(dir);
  syncExitHook();
}

/** The environment of envtest's children: this process's, minus what would reconfigure etcd. */
export function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    // etcd reads ETCD_* variables as flags; keep the user's environment from reconfiguring it.
    if (key.startsWith('ETCD_') && key !== 'ETCD_UNSUPPORTED_ARCH') continue;
    env[key] = value;
  }
  if (process.arch === 'arm64' && env.ETCD_UNSUPPORTED_ARCH === undefined) {
    env.ETCD_UNSUPPORTED_ARCH = 'arm64';
  }
  return env;
}

/** How a child's end reads in an error message. */
export function describeExit(exit: ExitInfo): string {
  if (exit.spawnError) return `could not be started (${exit.spawnError.message})`;
  if (exit.signal) return `was killed by ${exit.signal}`;
  return `exited with code ${exit.code}`;
}

/** Thrown inside a start when a child exits before it is ready. */
export class ChildExited extends Error {
  constructor(
    readonly child: ManagedProcess,
    readonly exit: ExitInfo,
  ) {
    super(`${child.name} exited`);
  }
}

/** Starts `binary` with `args`, both output streams appended to `logPath`. */
export function startProcess(
  name: string,
  binary: string,
  args: readonly string[],
  logPath: string,
  env: NodeJS.ProcessEnv,
): ManagedProcess {
  const fd = openSync(logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn(binary, args, { stdio: ['ignore', fd, fd], env });
  } finally {
    // The child holds its own copy of the descriptor.
    closeSync(fd);
  }
  let info: ExitInfo | undefined;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => {
      info = { code, signal };
      resolve(info);
    });
    child.once('error', (error) => {
      // 'error' without a pid means the spawn itself failed and no 'exit' will follow.
      if (child.pid === undefined) {
        info = { code: null, signal: null, spawnError: error };
        resolve(info);
      }
    });
  }).finally(() => {
    liveChildren.delete(child);
    syncExitHook();
  });
  if (child.pid !== undefined) {
    liveChildren.add(child);
    syncExitHook();
  }

  let stopping: Promise<void> | undefined;
  return {
    name,
    pid: child.pid,
    logPath,
    exited,
    exitInfo: () => info,
    stop(graceMs: number): Promise<void> {
      stopping ??= (async () => {
        if (info !== undefined || child.pid === undefined) {
          await exited;
          return;
        }
        child.kill('SIGTERM');
        const graceful = await Promise.race([
          exited.then(() => true),
          sleep(graceMs, false, { ref: false }),
        ]);
        if (!graceful && info === undefined) child.kill('SIGKILL');
        await exited;
      })();
      return stopping;
    },
    async kill(signal: NodeJS.Signals): Promise<void> {
      if (info === undefined && child.pid !== undefined) child.kill(signal);
      await exited;
    },
  };
}

/** The last `lines` lines of a log file, or a note when it cannot be read. */
export async function tailLog(path: string, lines = 30): Promise<string> {
  try {
    const text = await readFile(path, 'utf8');
    const all = text.replace(/\s+$/, '').split('\n');
    return all.slice(-lines).join('\n');
  } catch (error) {
    return `(could not read ${path}: ${(error as Error).message})`;
  }
}
